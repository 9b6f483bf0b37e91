import type { RunStatus } from "./run-status.ts";

/** A run's columns and its pending approvals as run-queries.ts reads them, to render a Run (API.md `Run`). */
export interface RunViewRow {
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
  /** Built as JSON in the statement: `expires_at` is Postgres's JSON text of the timestamp. */
  pending_approvals: { id: string; tool: string; tool_call_id: string; arguments: unknown; effects: string[]; expires_at: string }[];
}

export interface RunView {
  id: string;
  chat_id: string;
  status: string;
  rounds: number;
  tool_calls: number;
  output: string | null;
  error: { code: string; message: string } | null;
  pending_approvals: { id: string; tool: string; tool_call_id: string; arguments: unknown; effects: string[]; expires_at: string }[];
  created_at: string;
  updated_at: string;
}

export function toRunView(row: RunViewRow): RunView {
  return {
    id: row.id,
    chat_id: row.chat_id,
    status: row.status,
    rounds: row.rounds,
    tool_calls: row.tool_calls,
    output: row.output,
    error: row.error_code ? { code: row.error_code, message: row.error_message ?? "" } : null,
    pending_approvals: row.pending_approvals.map((approval) => ({
      id: approval.id,
      tool: approval.tool,
      tool_call_id: approval.tool_call_id,
      arguments: approval.arguments,
      effects: approval.effects,
      expires_at: new Date(approval.expires_at).toISOString(),
    })),
    created_at: row.created_at.toISOString(),
    updated_at: row.updated_at.toISOString(),
  };
}
