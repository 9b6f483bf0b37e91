import { z } from "zod";
import { RunStatus } from "../generated/enums.ts";
import type { AuthenticatedUser, RequestCaller } from "../../users/user.ts";
import { preparedSql, queryParsed, type SqlRunner, SqlRowError } from "../sql-pool.ts";
import { runContextJson } from "./run-context-statements.ts";
import { storedApprovalColumns } from "./stored-approval-columns.ts";
import { authenticatedUserRow, callerJsonSql, callerParameters, requestCallerSql } from "./user-statements.ts";

// A human's decision on an approval (runs/decide-approval.ts): everything it needs read in one
// statement, then committed by the run's commit statement fenced by the run's last event seq. On the
// resume path users wait on: prepared.

/**
 * The caller and their approval with what a decision needs, all as of one snapshot: its run's status,
 * lease version and last event seq (the commit's fence: whatever changes an approval appends an event
 * to its run), the run's pending approvals, the file, document or email the call is bound to as they
 * are now, and a worker to offer the run to. The approval is found by its key alone (the CTE): a plan
 * made while the table was nearly empty otherwise chose the (user_id, status, created_at) index and
 * read every approval of the user. `offerWorker`: a worker of more than one slot (one of a single slot
 * takes no offer: services/list-live-workers.ts) seen alive within $3 seconds, picked at
 * random weighted by its free slots as of its last beat (plus one: a full worker may have freed some
 * since, and one that has none enqueues the run): the run is offered to it if the decision resumes it
 * (queue run-offer.ts). `runContext`, when there is such a worker, of a release that takes
 * handovers (its presence row has its lease length), and the run is parked with no call of another
 * tool pending (a decision can then resume it: its grant may cover the rest): the run's context
 * (run-context-statements.ts) as JSON text, as of this snapshot, for the commit to hand the run to that
 * worker with, on a lease of that worker's length (runs/resume-handover.ts): the worker then starts
 * without reading it again.
 *
 * The caller is the user $2 (authenticated already), or the enabled user of the API token whose hash
 * is $4: then this statement is the request's authentication (POST /api/approvals), one round trip
 * on the resume path instead of two, and a token that stopped working finds no caller here as it
 * would in the middleware (users/user-store.ts). No row: no such caller. A row whose approval
 * columns are null: not the caller's approval, or none.
 */
const READ_SQL = preparedSql(
  "approval_decision_read",
  `
WITH caller AS MATERIALIZED (
  ${requestCallerSql("$2", "$4")}
),
a AS MATERIALIZED (SELECT * FROM approvals WHERE id = $1 AND user_id = (SELECT id FROM caller)),
offer AS MATERIALIZED (
  SELECT k.id, k.lease_ms FROM workers AS k
  WHERE k.last_seen_at > now() - make_interval(secs => $3) AND k.concurrency > 1 AND EXISTS (SELECT 1 FROM a)
  ORDER BY random() * (GREATEST(k.concurrency - k.active_runs, 0) + 1) DESC LIMIT 1
)
SELECT ${callerJsonSql("caller")} AS caller, found.*
FROM caller LEFT JOIN LATERAL (
SELECT a.id, a.run_id AS "runId", a.chat_id AS "chatId", a.user_id AS "userId", a.tool_call_id AS "toolCallId", a.tool,
  a.arguments, a.arguments_hash AS "argumentsHash", a.workspace_id AS "workspaceId", COALESCE(a.effects, '{}') AS effects,
  a.target_path AS "targetPath", a.target_revision AS "targetRevision", a.target_document_id AS "targetDocumentId", a.target_email_id AS "targetEmailId", a.policy_version AS "policyVersion",
  a.expires_at AS "expiresAt", a.seal, a.status::text AS status, a.edited_arguments AS "editedArguments",
  r.status::text AS "runStatus", r.lease_version AS "leaseVersion", r.last_event_seq AS "lastEventSeq",
  (SELECT count(*) FROM approvals AS p WHERE p.run_id = r.id AND p.status = 'pending')::int AS "pendingCount",
  (SELECT COALESCE(json_agg(json_build_object('id', o.id, 'toolCallId', o.tool_call_id, 'effects', COALESCE(o.effects, '{}')) ORDER BY o.created_at, o.id), '[]'::json)
    FROM approvals AS o WHERE o.run_id = r.id AND o.status = 'pending' AND o.tool = a.tool AND o.id <> a.id) AS "sameToolPending",
  w.root_path AS "rootPath", d.revision AS "documentRevision",
  CASE WHEN e.id IS NULL THEN NULL ELSE json_build_object('to', e.to_addresses, 'cc', e.cc_addresses, 'subject', e.subject, 'body', e.body) END AS email,
  (SELECT id FROM offer) AS "offerWorker", (SELECT lease_ms FROM offer) AS "offerLeaseMs",
  CASE WHEN r.status = 'awaiting_approval' AND EXISTS (SELECT 1 FROM offer WHERE offer.lease_ms IS NOT NULL)
    -- Only a decision that may resume the run needs it: one that leaves a call of another tool pending cannot.
    AND NOT EXISTS (SELECT 1 FROM approvals AS p WHERE p.run_id = r.id AND p.status = 'pending' AND p.tool <> a.tool)
    THEN ${runContextJson("a.run_id")} END AS "runContext"
FROM a
JOIN runs AS r ON r.id = a.run_id
JOIN chats AS c ON c.id = r.chat_id
LEFT JOIN workspaces AS w ON w.id = c.workspace_id
LEFT JOIN documents AS d ON d.id = a.target_document_id AND d.user_id = a.user_id
LEFT JOIN emails AS e ON e.id = a.target_email_id AND e.user_id = a.user_id
) AS found ON true`,
);

const approvalForDecisionRow = z.object({
  ...storedApprovalColumns,
  expiresAt: z.date(),
  runStatus: z.enum(RunStatus),
  leaseVersion: z.number(),
  lastEventSeq: z.number(),
  /** The run's pending approvals, this one included. */
  pendingCount: z.number(),
  /** The run's other pending approvals of the same tool: a grant from this decision may cover them. */
  sameToolPending: z.array(z.object({ id: z.string(), toolCallId: z.string(), effects: z.array(z.string()) })),
  /** The run's workspace directory (null: none). */
  rootPath: z.string().nullable(),
  /** The bound document's revision now (null: none, or deleted since). */
  documentRevision: z.number().int().nullable(),
  /** The bound email's recipients, subject and body now (null: none, or deleted since). */
  email: z.object({ to: z.array(z.string()), cc: z.array(z.string()), subject: z.string(), body: z.string() }).nullable(),
  offerWorker: z.string().nullable(),
  /** That worker's lease length (its RUN_LEASE_MS); null: a worker of an earlier release, which takes no handover. */
  offerLeaseMs: z.number().nullable(),
  /** The run's context as JSON text (RUN_CONTEXT_COLUMNS), when there is a worker to offer the parked run to. */
  runContext: z.string().nullable(),
});

export type ApprovalForDecision = z.output<typeof approvalForDecisionRow>;

/** The caller, and the approval's id (null: not theirs, or none); the approval's other columns are parsed when it is there. */
const callerRow = z.looseObject({ caller: authenticatedUserRow, id: z.string().nullable() });

/**
 * The caller and, if it is theirs, the approval with what a decision needs (see READ_SQL); undefined:
 * no such caller (a token that does not work, or a user that is gone).
 */
export async function readApprovalForDecision(
  runner: SqlRunner,
  input: { approvalId: string; caller: RequestCaller; workerSeenSeconds: number },
): Promise<{ caller: AuthenticatedUser; approval: ApprovalForDecision | undefined } | undefined> {
  const { userId, tokenHash } = callerParameters(input.caller);
  const [row] = await queryParsed(runner, READ_SQL, [input.approvalId, userId, input.workerSeenSeconds, tokenHash], callerRow);
  if (!row) return undefined;
  const { caller } = row;
  if (row.id === null) return { caller, approval: undefined };
  const approval = approvalForDecisionRow.safeParse(row);
  if (!approval.success) throw new SqlRowError(READ_SQL, approval.error);
  return { caller, approval: approval.data };
}

const DECIDED_RUN_STATUS_SQL = `SELECT r.status::text AS status FROM runs AS r
WHERE r.id = $2 AND EXISTS (SELECT 1 FROM audit_entries AS a WHERE a.id = ANY($1::text[]))`;

/**
 * The run's status if one of these decisions committed (each decision's commit writes its audit entry,
 * whose id the decision chose: runs/approval-decision-record.ts); null if none did. For a decision left
 * to a worker whose answer did not come back.
 */
export async function decidedRunStatus(runner: SqlRunner, auditEntryIds: readonly string[], runId: string): Promise<RunStatus | null> {
  const [row] = await queryParsed(runner, DECIDED_RUN_STATUS_SQL, [auditEntryIds, runId], z.object({ status: z.enum(RunStatus) }));
  return row?.status ?? null;
}
