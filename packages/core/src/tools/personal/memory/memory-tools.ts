import { z } from "zod";
import { createMemory, DEFAULT_RECALL_LIMIT, deleteMemory, MAX_RECALL_LIMIT, memoryCreateSchema, recallMemories } from "../../../personal/memory-store.ts";
import { idField } from "../../../personal/personal-fields.ts";
import type { ToolDefinition } from "../../tool-definition.ts";
import { type PersonalStore, recordLines, withPersonalStore } from "../personal-tool-support.ts";

const common = { family: "personal", feature: "memory", requiresWorkspace: false } as const;

const recallSchema = z.object({
  query: z.string().trim().min(1).max(1000).describe('What to look for: words, a "quoted phrase", `or`, -excluded.'),
  limit: z.number().int().min(1).max(MAX_RECALL_LIMIT).default(DEFAULT_RECALL_LIMIT).describe(`How many memories at most (default ${DEFAULT_RECALL_LIMIT}).`),
});

/**
 * Long-term memory across chats (API.md "Personal data"): `remember` and `forget` are `write` effects;
 * what `recall` returns is untrusted material (it may have been remembered from a web page), so it taints.
 */
export function createMemoryTools(store: PersonalStore | null): ToolDefinition[] {
  const remember: ToolDefinition<z.output<typeof memoryCreateSchema>> = {
    ...common,
    name: "remember",
    description: "Remember a fact about the user or their work for later chats. Returns its memory_id.",
    parameters: memoryCreateSchema,
    effects: ["write"],
    taints: false,
    execute: (args, context) =>
      withPersonalStore(store, async ({ runner, generateId }) => {
        const memory = await createMemory(runner, generateId, context.userId, args);
        return { ok: true, output: `Remembered. memory_id: ${memory.id}`, data: { memory_id: memory.id } };
      }),
  };

  const recall: ToolDefinition<z.output<typeof recallSchema>> = {
    ...common,
    name: "recall",
    description: "Search what you remembered in earlier chats, best match first (full-text, tolerant of typos).",
    parameters: recallSchema,
    effects: ["read"],
    taints: true,
    execute: (args, context) =>
      withPersonalStore(store, async ({ runner }) => {
        const memories = await recallMemories(runner, context.userId, args);
        return { ok: true, output: recordLines("memories", memories), data: { count: memories.length } };
      }),
    describeCall: (args) => `memories matching "${args.query}"`,
  };

  const forget: ToolDefinition<{ memory_id: string }> = {
    ...common,
    name: "forget",
    description: "Forget a memory.",
    parameters: z.object({ memory_id: idField("The memory_id of the memory.") }),
    effects: ["write"],
    taints: false,
    execute: (args, context) =>
      withPersonalStore(store, async ({ runner }) => {
        await deleteMemory(runner, context.userId, args.memory_id);
        return { ok: true, output: `Forgot memory ${args.memory_id}.` };
      }),
  };

  return [remember, recall, forget];
}
