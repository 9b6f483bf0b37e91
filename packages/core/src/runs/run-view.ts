import type { Prisma } from "../store/create-prisma-client.ts";

/** Columns needed to render a Run (API.md `Run`). */
export const runViewSelect = {
  id: true,
  chatId: true,
  status: true,
  rounds: true,
  toolCalls: true,
  output: true,
  errorCode: true,
  errorMessage: true,
  createdAt: true,
  updatedAt: true,
  approvals: {
    where: { status: "pending" },
    orderBy: { createdAt: "asc" },
    select: { id: true, tool: true, toolCallId: true, arguments: true, effects: true, expiresAt: true },
  },
} as const satisfies Prisma.RunSelect;

export type RunViewRow = Prisma.RunGetPayload<{ select: typeof runViewSelect }>;

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
    chat_id: row.chatId,
    status: row.status,
    rounds: row.rounds,
    tool_calls: row.toolCalls,
    output: row.output,
    error: row.errorCode ? { code: row.errorCode, message: row.errorMessage ?? "" } : null,
    pending_approvals: row.approvals.map((approval) => ({
      id: approval.id,
      tool: approval.tool,
      tool_call_id: approval.toolCallId,
      arguments: approval.arguments,
      effects: approval.effects,
      expires_at: approval.expiresAt.toISOString(),
    })),
    created_at: row.createdAt.toISOString(),
    updated_at: row.updatedAt.toISOString(),
  };
}
