import { z } from "zod";
import { ApprovalStatus, RunStatus } from "../generated/enums.ts";
import { preparedSql, queryParsed, type SqlRunner } from "../sql-pool.ts";

// A human's decision on an approval (runs/decide-approval.ts): the run locked first, then the
// approval read in a statement of its own. On the resume path users wait on: prepared.

/**
 * The run of the caller's approval, locked (no row: not the caller's approval, or none at all),
 * with the file the call is bound to: its revision is computed while the approval is read. The
 * approval is found by its key alone (the CTE): a plan made while the table was nearly empty
 * otherwise chose the (user_id, status, created_at) index and read every approval of the user.
 * `offer_worker`: a worker seen alive within $3 seconds, picked at random weighted by its free slots as
 * of its last beat (plus one: a full worker may have freed some since, and one that has none enqueues
 * the run): the run is offered to it if the decision resumes it (queue resume-offer.ts).
 */
const LOCK_SQL = preparedSql(
  "approval_lock_run",
  `WITH a AS MATERIALIZED (SELECT run_id, user_id, target_path, target_document_id, target_email_id FROM approvals WHERE id = $1)
SELECT r.id, a.target_path, w.root_path, a.target_document_id, d.revision AS document_revision,
  a.target_email_id, CASE WHEN e.id IS NULL THEN NULL ELSE json_build_object('to', e.to_addresses, 'cc', e.cc_addresses, 'subject', e.subject, 'body', e.body) END AS email,
  (SELECT k.id FROM workers AS k WHERE k.last_seen_at > now() - make_interval(secs => $3)
    ORDER BY random() * (GREATEST(k.concurrency - k.active_runs, 0) + 1) DESC LIMIT 1) AS offer_worker
FROM a
JOIN runs AS r ON r.id = a.run_id
JOIN chats AS c ON c.id = r.chat_id
LEFT JOIN workspaces AS w ON w.id = c.workspace_id
LEFT JOIN documents AS d ON d.id = a.target_document_id AND d.user_id = a.user_id
LEFT JOIN emails AS e ON e.id = a.target_email_id AND e.user_id = a.user_id
WHERE a.user_id = $2
FOR UPDATE OF r`,
);

const lockedApprovalRunRow = z.object({
  id: z.string(),
  target_path: z.string().nullable(),
  root_path: z.string().nullable(),
  /** The document the call changes, and its revision now (null: deleted since). */
  target_document_id: z.string().nullable(),
  document_revision: z.number().int().nullable(),
  /** The email a send_email call sends, and its content now (null: deleted since). */
  target_email_id: z.string().nullable(),
  email: z.object({ to: z.array(z.string()), cc: z.array(z.string()), subject: z.string(), body: z.string() }).nullable(),
  offer_worker: z.string().nullable(),
});

/**
 * Locks the run of `userId`'s approval and names the file the call is bound to, and a live worker to
 * offer the run to (seen within `workerSeenSeconds`); no row: not theirs, or none.
 */
export async function lockRunOfApproval(
  runner: SqlRunner,
  input: { approvalId: string; userId: string; workerSeenSeconds: number },
): Promise<z.output<typeof lockedApprovalRunRow> | undefined> {
  const [row] = await queryParsed(runner, LOCK_SQL, [input.approvalId, input.userId, input.workerSeenSeconds], lockedApprovalRunRow);
  return row;
}

/**
 * Read after the run's lock is taken, in a statement of its own: a statement that waited for the
 * lock still reads the approval as of its start, which may be before another decision committed.
 */
const READ_SQL = preparedSql(
  "approval_read",
  `
SELECT a.id, a.run_id AS "runId", a.chat_id AS "chatId", a.user_id AS "userId", a.tool_call_id AS "toolCallId", a.tool,
  a.arguments, a.arguments_hash AS "argumentsHash", a.workspace_id AS "workspaceId", COALESCE(a.effects, '{}') AS effects,
  a.target_path AS "targetPath", a.target_revision AS "targetRevision", a.target_document_id AS "targetDocumentId", a.target_email_id AS "targetEmailId", a.policy_version AS "policyVersion",
  a.expires_at AS "expiresAt", a.seal, a.status::text AS status, a.edited_arguments AS "editedArguments",
  r.status::text AS "runStatus", r.lease_version AS "leaseVersion",
  (SELECT count(*) FROM approvals AS p WHERE p.run_id = r.id AND p.status = 'pending')::int AS "pendingCount",
  (SELECT COALESCE(json_agg(json_build_object('id', o.id, 'toolCallId', o.tool_call_id, 'effects', COALESCE(o.effects, '{}')) ORDER BY o.created_at, o.id), '[]'::json)
    FROM approvals AS o WHERE o.run_id = r.id AND o.status = 'pending' AND o.tool = a.tool AND o.id <> a.id) AS "sameToolPending"
FROM runs AS r
JOIN approvals AS a ON a.run_id = r.id
WHERE r.id = $1 AND a.id = $2`,
);

/** The columns of a stored approval record (what its seal binds, its status and the user's edit), less its expiry. */
export const storedApprovalColumns = {
  id: z.string(),
  runId: z.string(),
  chatId: z.string(),
  userId: z.string(),
  toolCallId: z.string(),
  tool: z.string(),
  arguments: z.unknown(),
  argumentsHash: z.string(),
  workspaceId: z.string().nullable(),
  effects: z.array(z.string()),
  targetPath: z.string().nullable(),
  targetRevision: z.string().nullable(),
  targetDocumentId: z.string().nullable().optional(),
  targetEmailId: z.string().nullable().optional(),
  policyVersion: z.string(),
  seal: z.string(),
  status: z.enum(ApprovalStatus),
  editedArguments: z.unknown(),
};

const approvalForDecisionRow = z.object({
  ...storedApprovalColumns,
  expiresAt: z.date(),
  runStatus: z.enum(RunStatus),
  leaseVersion: z.number(),
  /** The run's pending approvals, this one included. */
  pendingCount: z.number(),
  /** The run's other pending approvals of the same tool: a grant from this decision may cover them. */
  sameToolPending: z.array(z.object({ id: z.string(), toolCallId: z.string(), effects: z.array(z.string()) })),
});

export type ApprovalForDecision = z.output<typeof approvalForDecisionRow>;

/** The approval with what a decision needs of its run (call it with the run locked); no row: none. */
export async function selectApprovalForDecision(runner: SqlRunner, input: { runId: string; approvalId: string }): Promise<ApprovalForDecision | undefined> {
  const [row] = await queryParsed(runner, READ_SQL, [input.runId, input.approvalId], approvalForDecisionRow);
  return row;
}
