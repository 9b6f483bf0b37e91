import { type EmailApprovalPreview, type EmailContent, emailApprovalPreview } from "../email/email-revision.ts";
import type { TaintSource } from "../policy/taint-sources.ts";
import type { RunMode } from "../store/generated/enums.ts";
import type { RunRequest } from "../store/statements/run-create-statements.ts";
import { RunStatus } from "./run-status.ts";

/** What the run was asked: the user's message, the model and mode, the switches (as stored and as shown). */
interface RunRequestFields {
  input: string;
  model: string;
  mode: RunMode;
  allow_bash: boolean;
  allow_web_search: boolean;
  use_web: boolean;
  /** The tools the run was limited to; null: no such limit. */
  tools: string[] | null;
}

/** A run's columns and its pending approvals as run-queries.ts reads them, to render a Run (API.md `Run`). */
export interface RunViewRow extends RunRequestFields {
  id: string;
  chat_id: string;
  status: RunStatus;
  rounds: number;
  tool_calls: number;
  output: string | null;
  error_code: string | null;
  error_message: string | null;
  created_at: Date;
  updated_at: Date;
  /**
   * `expires_at` as Postgres's JSON text of the timestamp (normalized to ISO-8601 UTC by toRunView);
   * `email`: the whole mail a send_email call would send (toRunView shows its preview).
   */
  pending_approvals: (Omit<PendingApprovalView, "email"> & { email: EmailContent | null })[];
}

/** A pending approval of a Run: the call, its effects, its expiry, and why it paused (`tainted_by`). */
export interface PendingApprovalView {
  id: string;
  tool: string;
  tool_call_id: string;
  arguments: unknown;
  effects: string[];
  expires_at: string;
  tainted_by: TaintSource[] | null;
  /** `tainted`, or `approval_always`: the admin setting names the tool (every call pauses). */
  reason: "tainted" | "approval_always";
  /** A send_email call: the mail it would send (recipients, subject, the start of the body); absent for other calls. */
  email?: EmailApprovalPreview;
}

export interface RunView extends RunRequestFields {
  id: string;
  chat_id: string;
  status: RunStatus;
  rounds: number;
  tool_calls: number;
  output: string | null;
  error: { code: string; message: string } | null;
  pending_approvals: PendingApprovalView[];
  created_at: string;
  updated_at: string;
}

export function toRunView(row: RunViewRow): RunView {
  return {
    id: row.id,
    chat_id: row.chat_id,
    input: row.input,
    model: row.model,
    mode: row.mode,
    allow_bash: row.allow_bash,
    allow_web_search: row.allow_web_search,
    use_web: row.use_web,
    tools: row.tools,
    status: row.status,
    rounds: row.rounds,
    tool_calls: row.tool_calls,
    output: row.output,
    error: row.error_code ? { code: row.error_code, message: row.error_message ?? "" } : null,
    pending_approvals: row.pending_approvals.map(({ email, ...approval }) => ({
      ...approval,
      expires_at: new Date(approval.expires_at).toISOString(),
      ...(email ? { email: emailApprovalPreview(email) } : {}),
    })),
    created_at: row.created_at.toISOString(),
    updated_at: row.updated_at.toISOString(),
  };
}

/** A run as its creation committed it (queued, nothing done yet): what POST /api/chats/:id/runs answers, without reading it back. */
export function queuedRunView(run: RunRequest & { id: string; chatId: string; createdAt: Date }): RunView {
  const createdAt = run.createdAt.toISOString();
  return {
    id: run.id,
    chat_id: run.chatId,
    input: run.input,
    model: run.model,
    mode: run.mode,
    allow_bash: run.allowBash,
    allow_web_search: run.allowWebSearch,
    use_web: run.useWeb,
    tools: run.tools.length > 0 ? [...run.tools] : null,
    status: RunStatus.queued,
    rounds: 0,
    tool_calls: 0,
    output: null,
    error: null,
    pending_approvals: [],
    created_at: createdAt,
    updated_at: createdAt,
  };
}
