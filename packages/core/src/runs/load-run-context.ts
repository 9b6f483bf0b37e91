import type { ModelMessage, ModelToolCall } from "../models/model-client.ts";
import type { GrantRef } from "../policy/decide-tool-call.ts";
import type { StoredApproval } from "../policy/approval-seal.ts";
import { mergeTaintSources, type TaintSource, unrecordedTaintSource } from "../policy/taint-sources.ts";
import { settingsFromRows, type AgentSettings } from "../settings/agent-settings.ts";
import { sqlPoolOf, type PrismaClient } from "../store/create-prisma-client.ts";
import type { RunRequest } from "../store/statements/run-create-statements.ts";
import { type RunContextRow, selectRunContext } from "../store/statements/run-context-statements.ts";
import type { WorkspaceRef } from "../tools/tool-definition.ts";
import type { StoredToolCall } from "./chat-messages.ts";
import { parseLoopState, type LoopState } from "./loop-state.ts";
import type { RunStatus } from "./run-status.ts";

export interface RunContext {
  run: RunRequest & {
    id: string;
    chatId: string;
    userId: string;
    status: RunStatus;
    rounds: number;
    toolCalls: number;
    tainted: boolean;
    /** The calls that tainted the run, earliest first, at most five (empty while it is untainted). */
    taintedBy: TaintSource[];
    cancelRequested: boolean;
  };
  role: "admin" | "user";
  /** The user's daily token quota (their own, else `user_tokens_per_day`); 0 = none. */
  tokensPerDay: number;
  workspace: WorkspaceRef | null;
  settings: AgentSettings;
  loopState: LoopState;
  /** The chat so far, as the model sees it. */
  transcript: ModelMessage[];
  grants: GrantRef[];
  /**
   * What tainted the chat's other runs, earliest first, at most five; not empty when one was
   * tainted: its material is in this run's input too.
   */
  chatTaintedBy: TaintSource[];
  /** Calls an earlier execution left without a result, in order (see loop/resume-open-calls.ts). */
  openToolCalls: OpenToolCall[];
}

/** A tool call of the run still without a result, with its approval record if it has one. */
export interface OpenToolCall {
  rowId: string;
  callId: string;
  round: number;
  position: number;
  tool: string;
  arguments: unknown;
  status: "pending" | "started" | "awaiting_approval";
  approval: OpenCallApproval | null;
}

export type OpenCallApproval = StoredApproval & { status: "pending" | "allowed" | "denied" | "cancelled"; editedArguments: unknown };

interface StoredMessage {
  role: string;
  content: string | null;
  toolCalls: unknown;
  toolCallId: string | null;
}

/** Everything the loop needs about a run, read on its own (a worker reads it when it takes the lease: run-lease.ts). */
export async function loadRunContext(prisma: PrismaClient, runId: string): Promise<RunContext> {
  // One statement (store/statements/run-context-statements.ts): every execution starts here.
  const row = await selectRunContext(sqlPoolOf(prisma), runId);
  if (!row) throw new Error(`run ${runId} does not exist`);
  return runContextOf(row);
}

/** The context of the row the run's context statement read (taking the lease reads it too: run-lease.ts). */
export function runContextOf(row: RunContextRow): RunContext {
  const settings = settingsFromRows(row.settings);
  return {
    tokensPerDay: row.user_tokens_per_day ?? settings.user_tokens_per_day,
    run: {
      id: row.id,
      chatId: row.chat_id,
      userId: row.user_id,
      status: row.status,
      input: row.input,
      model: row.model,
      mode: row.mode,
      allowBash: row.allow_bash,
      allowWebSearch: row.allow_web_search,
      useWeb: row.use_web,
      tools: row.tools,
      rounds: row.rounds,
      toolCalls: row.tool_calls,
      tainted: row.tainted,
      taintedBy: !row.tainted ? [] : row.tainted_by?.length ? row.tainted_by : [unrecordedTaintSource(row.id, "this_run")],
      cancelRequested: row.cancel_requested,
    },
    role: row.role,
    workspace: row.workspace_id !== null && row.workspace_root !== null ? { id: row.workspace_id, rootPath: row.workspace_root } : null,
    settings,
    loopState: parseLoopState(row.loop_state),
    transcript: row.messages.map(toModelMessage),
    grants: row.grants,
    chatTaintedBy: mergeTaintSources(...row.chat_tainted_runs.map((other) => other.tainted_by ?? [unrecordedTaintSource(other.run_id, "earlier_run")])),
    openToolCalls: row.open_calls.map((call) => ({
      ...call,
      approval: call.approval ? { ...call.approval, expiresAt: new Date(call.approval.expiresAt) } : null,
    })),
  };
}

function toModelMessage(message: StoredMessage): ModelMessage {
  if (message.role === "tool") return { role: "tool", toolCallId: message.toolCallId ?? "", content: message.content ?? "" };
  if (message.role === "assistant") {
    const calls = (message.toolCalls as StoredToolCall[] | null) ?? [];
    const toolCalls: ModelToolCall[] = calls.map((call) => ({ id: call.id, name: call.name, argumentsText: JSON.stringify(call.arguments ?? {}) }));
    return toolCalls.length > 0 ? { role: "assistant", content: message.content, toolCalls } : { role: "assistant", content: message.content };
  }
  return { role: "user", content: message.content ?? "" };
}
