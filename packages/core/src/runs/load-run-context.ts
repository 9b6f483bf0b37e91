import type { ModelMessage, ModelToolCall } from "../models/model-client.ts";
import type { GrantRef } from "../policy/decide-tool-call.ts";
import { loadSettings, type AgentSettings } from "../settings/agent-settings.ts";
import type { PrismaClient } from "../store/create-prisma-client.ts";
import type { WorkspaceRef } from "../tools/tool-definition.ts";
import type { StoredToolCall } from "./chat-messages.ts";
import { parseLoopState, type LoopState } from "./loop-state.ts";
import type { RunStatus } from "./run-status.ts";

export interface RunContext {
  run: {
    id: string;
    chatId: string;
    userId: string;
    status: RunStatus;
    input: string;
    model: string;
    mode: "agent" | "guide";
    allowBash: boolean;
    allowWebSearch: boolean;
    useWeb: boolean;
    rounds: number;
    toolCalls: number;
    tainted: boolean;
    cancelRequested: boolean;
  };
  role: "admin" | "user";
  workspace: WorkspaceRef | null;
  settings: AgentSettings;
  loopState: LoopState;
  /** The chat so far, as the model sees it. */
  transcript: ModelMessage[];
  grants: GrantRef[];
  /** An earlier run of the chat was tainted: its material is in this run's input too. */
  chatTainted: boolean;
}

/** Everything the loop needs about a run, read once when a worker takes it. */
export async function loadRunContext(prisma: PrismaClient, runId: string): Promise<RunContext> {
  const run = await prisma.run.findUniqueOrThrow({
    where: { id: runId },
    include: { user: { select: { role: true } }, chat: { include: { workspace: { select: { id: true, rootPath: true } } } } },
  });
  const [settings, messages, grants, taintedRuns] = await Promise.all([
    loadSettings(prisma),
    prisma.message.findMany({ where: { chatId: run.chatId }, orderBy: { position: "asc" } }),
    prisma.grant.findMany({
      where: { revokedAt: null, OR: [{ runId, scope: "task" }, { chatId: run.chatId, scope: "chat" }] },
      select: { tool: true, effects: true },
    }),
    prisma.run.count({ where: { chatId: run.chatId, id: { not: runId }, tainted: true } }),
  ]);
  return {
    run: {
      id: run.id,
      chatId: run.chatId,
      userId: run.userId,
      status: run.status,
      input: run.input,
      model: run.model,
      mode: run.mode,
      allowBash: run.allowBash,
      allowWebSearch: run.allowWebSearch,
      useWeb: run.useWeb,
      rounds: run.rounds,
      toolCalls: run.toolCalls,
      tainted: run.tainted,
      cancelRequested: run.cancelRequested,
    },
    role: run.user.role,
    workspace: run.chat.workspace ? { id: run.chat.workspace.id, rootPath: run.chat.workspace.rootPath } : null,
    settings,
    loopState: parseLoopState(run.loopState),
    transcript: messages.map(toModelMessage),
    grants,
    chatTainted: taintedRuns > 0,
  };
}

function toModelMessage(message: { role: string; content: string | null; toolCalls: unknown; toolCallId: string | null }): ModelMessage {
  if (message.role === "tool") return { role: "tool", toolCallId: message.toolCallId ?? "", content: message.content ?? "" };
  if (message.role === "assistant") {
    const calls = (message.toolCalls as StoredToolCall[] | null) ?? [];
    const toolCalls: ModelToolCall[] = calls.map((call) => ({ id: call.id, name: call.name, argumentsText: JSON.stringify(call.arguments ?? {}) }));
    return toolCalls.length > 0 ? { role: "assistant", content: message.content, toolCalls } : { role: "assistant", content: message.content };
  }
  return { role: "user", content: message.content ?? "" };
}
