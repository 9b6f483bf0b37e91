import type { ModelMessage, ModelToolCall } from "../models/model-client.ts";
import type { GrantRef } from "../policy/decide-tool-call.ts";
import type { StoredApproval } from "../policy/approval-seal.ts";
import { settingsFromRows, type AgentSettings } from "../settings/agent-settings.ts";
import { sqlPoolOf, type PrismaClient } from "../store/create-prisma-client.ts";
import { preparedSql, queryRows } from "../store/sql-pool.ts";
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

/**
 * The run, its user's role, its workspace, the settings, the chat's messages, the grants that apply,
 * whether an earlier run of the chat was tainted, and the open tool calls with their approvals: one
 * statement, because every execution (and so every resume after an approval) starts here.
 */
const LOAD_SQL = preparedSql(
  "run_context",
  `
SELECT r.id, r.chat_id, r.user_id, r.status::text AS status, r.input, r.model, r.mode::text AS mode,
  r.allow_bash, r.allow_web_search, r.use_web, r.rounds, r.tool_calls, r.tainted, r.cancel_requested, r.loop_state,
  u.role::text AS role, w.id AS workspace_id, w.root_path AS workspace_root,
  (SELECT COALESCE(json_agg(json_build_object('key', s.key, 'value', s.value)), '[]'::json) FROM settings AS s) AS settings,
  (SELECT COALESCE(json_agg(json_build_object('role', m.role, 'content', m.content, 'toolCalls', m.tool_calls, 'toolCallId', m.tool_call_id) ORDER BY m.position), '[]'::json)
    FROM messages AS m WHERE m.chat_id = r.chat_id) AS messages,
  (SELECT COALESCE(json_agg(json_build_object('tool', g.tool, 'effects', COALESCE(g.effects, '{}'))), '[]'::json)
    FROM grants AS g WHERE g.revoked_at IS NULL AND ((g.run_id = r.id AND g.scope = 'task') OR (g.chat_id = r.chat_id AND g.scope = 'chat'))) AS grants,
  EXISTS (SELECT 1 FROM runs AS o WHERE o.chat_id = r.chat_id AND o.id <> r.id AND o.tainted) AS chat_tainted,
  (SELECT COALESCE(json_agg(json_build_object(
      'rowId', tc.id, 'callId', tc.call_id, 'round', tc.round, 'position', tc.position, 'tool', tc.tool,
      'arguments', tc.arguments, 'status', tc.status,
      'approval', CASE WHEN a.id IS NULL THEN NULL ELSE json_build_object(
        'id', a.id, 'runId', a.run_id, 'chatId', a.chat_id, 'userId', a.user_id, 'toolCallId', a.tool_call_id, 'tool', a.tool,
        'arguments', a.arguments, 'argumentsHash', a.arguments_hash, 'workspaceId', a.workspace_id, 'effects', COALESCE(a.effects, '{}'),
        'targetPath', a.target_path, 'targetRevision', a.target_revision, 'policyVersion', a.policy_version,
        'expiresAt', a.expires_at, 'seal', a.seal, 'status', a.status, 'editedArguments', a.edited_arguments) END
    ) ORDER BY tc.round, tc.position), '[]'::json)
    FROM tool_calls AS tc LEFT JOIN approvals AS a ON a.tool_call_row_id = tc.id
    WHERE tc.run_id = r.id AND tc.status <> 'completed') AS open_calls
FROM runs AS r
JOIN users AS u ON u.id = r.user_id
JOIN chats AS c ON c.id = r.chat_id
LEFT JOIN workspaces AS w ON w.id = c.workspace_id
WHERE r.id = $1`,
);

interface LoadedRow {
  id: string;
  chat_id: string;
  user_id: string;
  status: RunStatus;
  input: string;
  model: string;
  mode: "agent" | "guide";
  allow_bash: boolean;
  allow_web_search: boolean;
  use_web: boolean;
  rounds: number;
  tool_calls: number;
  tainted: boolean;
  cancel_requested: boolean;
  loop_state: unknown;
  role: "admin" | "user";
  workspace_id: string | null;
  workspace_root: string | null;
  settings: { key: string; value: unknown }[];
  messages: StoredMessage[];
  grants: GrantRef[];
  chat_tainted: boolean;
  open_calls: (Omit<OpenToolCall, "approval"> & { approval: (Omit<OpenCallApproval, "expiresAt"> & { expiresAt: string }) | null })[];
}

interface StoredMessage {
  role: string;
  content: string | null;
  toolCalls: unknown;
  toolCallId: string | null;
}

/** Everything the loop needs about a run, read once when a worker takes it. */
export async function loadRunContext(prisma: PrismaClient, runId: string): Promise<RunContext> {
  const [row] = await queryRows<LoadedRow>(sqlPoolOf(prisma), LOAD_SQL, [runId]);
  if (!row) throw new Error(`run ${runId} does not exist`);
  return {
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
      rounds: row.rounds,
      toolCalls: row.tool_calls,
      tainted: row.tainted,
      cancelRequested: row.cancel_requested,
    },
    role: row.role,
    workspace: row.workspace_id !== null && row.workspace_root !== null ? { id: row.workspace_id, rootPath: row.workspace_root } : null,
    settings: settingsFromRows(row.settings),
    loopState: parseLoopState(row.loop_state),
    transcript: row.messages.map(toModelMessage),
    grants: row.grants,
    chatTainted: row.chat_tainted,
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
