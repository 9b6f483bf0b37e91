import { describe, expect, it } from "vitest";
import { z } from "zod";
import type { ModelToolSchema } from "../../models/model-client.ts";
import type { ToolOfferContext } from "../../policy/offered-tools.ts";
import { type AgentSettings, defaultSettings } from "../../settings/agent-settings.ts";
import type { ToolDefinition } from "../../tools/tool-definition.ts";
import type { RunContext } from "../load-run-context.ts";
import { parseLoopState } from "../loop-state.ts";
import { checkRoundBudget, prepareRound } from "./prepare-round.ts";

const listFiles: ToolDefinition = {
  name: "list_files",
  family: "files",
  description: "lists files",
  parameters: z.object({}),
  effects: ["read"],
  taints: true,
  requiresWorkspace: false,
  execute: async () => ({ ok: true, output: "" }),
};
const catalog = {
  list: () => [listFiles],
  get: (name: string) => (name === listFiles.name ? listFiles : undefined),
  toModelSchema: (tool: ToolDefinition): ModelToolSchema => ({ name: tool.name, description: tool.description, parameters: { type: "object" } }),
};
const offer: ToolOfferContext = {
  mode: "agent",
  allowBash: false,
  allowWebSearch: false,
  useWeb: false,
  tools: [],
  hasWorkspace: true,
  role: "user",
  settings: defaultSettings(),
};

function context(overrides: { rounds?: number; tainted?: boolean; settings?: Partial<AgentSettings>; transcript?: RunContext["transcript"] } = {}): RunContext {
  return {
    tokensPerDay: 0,
    run: {
      id: "run_1",
      chatId: "chat_1",
      userId: "user_1",
      status: "running",
      input: "go",
      model: "scripted",
      mode: "agent",
      allowBash: false,
      allowWebSearch: false,
      useWeb: false,
      tools: [],
      rounds: overrides.rounds ?? 0,
      toolCalls: 0,
      tainted: overrides.tainted ?? false,
      taintedBy: overrides.tainted ? [{ run_id: "run_1", tool_call_id: "call_1", tool: "read_file", detail: "notes.txt" }] : [],
      cancelRequested: false,
    },
    role: "user",
    workspace: null,
    settings: { ...defaultSettings(), ...overrides.settings },
    loopState: parseLoopState({}),
    transcript: overrides.transcript ?? [{ role: "user", content: "go" }],
    grants: [],
    chatTaintedBy: [],
    openToolCalls: [],
  };
}

describe("prepareRound", () => {
  it("sends the offered tools, records them and the taint in the loop state, and numbers the round", () => {
    const prepared = prepareRound({
      context: context({ rounds: 2, tainted: true }),
      loopState: parseLoopState({}),
      tools: catalog,
      offer,
      contextWindow: 128_000,
    });
    expect(prepared).toMatchObject({
      kind: "ready",
      round: 3,
      tools: [{ name: "list_files" }],
      events: [{ type: "round.started", data: { round: 3, tools: ["list_files"] } }],
      loopState: { roundTools: ["list_files"], roundTainted: true, roundTaintSources: 1, finalAnswerRound: false },
      finalAnswerRound: false,
    });
  });

  it("a final answer round sends no tools and the pending nudge once, after the chat", () => {
    const loopState = parseLoopState({ finalAnswerRound: true, pendingNote: "answer now" });
    const prepared = prepareRound({ context: context(), loopState, tools: catalog, offer, contextWindow: 128_000 });
    if (prepared.kind !== "ready") throw new Error("expected a ready round");
    expect(prepared.tools).toEqual([]);
    expect(prepared.finalAnswerRound).toBe(true);
    expect(prepared.messages.at(-1)).toEqual({ role: "user", content: "answer now" });
    expect(prepared.loopState).toMatchObject({ roundTools: [], pendingNote: null, finalAnswerRound: false });
  });

  it("fails the run with token_budget when the request cannot fit even after truncating the chat", () => {
    const hugeSchemas = { ...catalog, toModelSchema: (tool: ToolDefinition) => ({ ...catalog.toModelSchema(tool), description: "word ".repeat(5000) }) };
    const prepared = prepareRound({
      context: context({ settings: { agent_input_token_budget: 1000, agent_input_token_hard_max: 1000 } }),
      loopState: parseLoopState({}),
      tools: hugeSchemas,
      offer,
      contextWindow: 128_000,
    });
    expect(prepared).toMatchObject({ kind: "failed", error: { code: "token_budget" }, events: [{ data: { guard: "token_budget", budget: 1000 } }] });
  });
});

describe("checkRoundBudget", () => {
  it("passes below agent_max_rounds and fails the run at it", () => {
    expect(checkRoundBudget(context({ rounds: 4, settings: { agent_max_rounds: 5 } }))).toBeNull();
    expect(checkRoundBudget(context({ rounds: 5, settings: { agent_max_rounds: 5 } }))).toMatchObject({
      error: { code: "round_budget" },
      events: [{ data: { guard: "round_budget", limit: 5 } }],
    });
  });
});
