import { z } from "zod";
import type { NewRunEvent, RunEventRecord } from "../events/run-event.ts";
import type { StoredToolCall } from "../runs/chat-messages.ts";
import type { SealedApprovalFields } from "../policy/approval-seal.ts";
import type { TaintSource } from "../policy/taint-sources.ts";
import { RunStatus } from "./generated/enums.ts";
import { type PreparedSql, preparedSql, queryParsed, type SqlRunner } from "./sql-pool.ts";
import type { AuditEntryInsert } from "./statements/audit-statements.ts";
import { nothingAheadInChat } from "./statements/run-lease-statements.ts";
import { webhookDeliveryInsert } from "./statements/webhook-statements.ts";

/** The run row as a commit left it. */
export interface CommittedRun {
  id: string;
  status: RunStatus;
  cancelRequested: boolean;
  lastEventSeq: number;
  leaseVersion: number;
}

/** A message appended to the run's chat (ids are given, positions assigned in the statement). */
export type StatementMessage =
  | { id: string; role: "user"; content: string }
  | { id: string; role: "assistant"; content: string | null; toolCalls?: StoredToolCall[] }
  | { id: string; role: "tool"; toolCallId: string; content: string };

export interface StatementToolCallInsert {
  id: string;
  callId: string;
  round: number;
  position: number;
  tool: string;
  arguments: Record<string, unknown>;
  status: "pending" | "started" | "awaiting_approval" | "completed";
  effects: string[];
  /** The call is recorded as started in the same commit as its row (started_at, one attempt). */
  started?: boolean;
  /** A call answered in the same commit as its row (refused before it ran). */
  ok?: boolean;
  result?: string;
  completed?: boolean;
}

export interface StatementToolCallUpdate {
  id: string;
  status?: "pending" | "started" | "awaiting_approval" | "completed";
  ok?: boolean;
  result?: string;
  /** Sets started_at to the commit time and counts an attempt. */
  started?: boolean;
  /** Sets completed_at to the commit time. */
  completed?: boolean;
  effects?: string[];
}

/** A file revision the run has read (or written), for the revision rule of later edits (the file-read ledger). */
export interface StatementFileRead {
  workspaceId: string;
  path: string;
  revision: string;
}

/** A sealed approval record written with the park (see policy/approval-seal.ts for what the seal binds). */
export interface StatementApprovalInsert extends SealedApprovalFields {
  toolCallRowId: string;
  arguments: unknown;
  seal: string;
  /** Why the call paused: the calls that had tainted the run when its round began (not sealed: it decides nothing). */
  taintedBy: readonly TaintSource[];
  /** `tainted` or `approval_always` (not sealed either). */
  pauseReason: "tainted" | "approval_always";
}

/** A human's decision on a pending approval; applied only to an approval still pending. */
export interface StatementApprovalDecision {
  id: string;
  status: "allowed" | "denied";
  decision: "allow_task" | "allow_chat" | "deny";
  decidedBy: string;
  /** With an allow: the arguments the user edited, replacing the recorded ones. */
  editedArguments?: Record<string, unknown>;
}

/** A grant of the run's chat (scope `chat`) or of the run itself (`task`): the statement takes both from the run's row. */
export interface StatementGrantInsert {
  id: string;
  userId: string;
  scope: "task" | "chat";
  tool: string;
  effects: readonly string[];
  approvalId: string;
}

/**
 * A change to a run, in data rather than code, so it can be committed as ONE SQL statement
 * (one round trip, atomic): the hot path of the loop. Anything here is applied only if the fence
 * (lease version) still matches.
 */
export interface RunStatementChange {
  runId: string;
  leaseVersion: number;
  events: NewRunEvent[];
  messages: StatementMessage[];
  toolCallInserts: StatementToolCallInsert[];
  toolCallUpdates: StatementToolCallUpdate[];
  approvals: StatementApprovalInsert[];
  approvalDecisions: StatementApprovalDecision[];
  grants: StatementGrantInsert[];
  /** Upserted into the run's file-read ledger; at most one per workspace and path (see stageFileRead). */
  fileReads: StatementFileRead[];
  increments: { rounds: number; toolCalls: number; inputTokens: number; outputTokens: number };
  tainted: boolean;
  /** Replaces the run's taint sources (the whole list, earliest first, at most five); unset: unchanged. */
  taintedBy?: readonly TaintSource[];
  loopState: unknown;
  status?: RunStatus;
  /** Clears the lease (a park: the run waits with no worker); a finish clears it too. */
  releaseLease?: boolean;
  /**
   * Gives the run's lease to a worker: the owner, an expiry this many seconds from the database's now,
   * and the version bumped, as a worker's own take would (run-lease-statements.ts). A decision that
   * resumes the run gives it to the worker it offers the run to (runs/resume-handover.ts), leaving the
   * status to the change (its `queued`): the worker's first commit makes the run `running`
   * (runs/loop/execute-run.ts). A new run's first commit gives it to the worker that commits it
   * (runs/new-run-start.ts). A finish or a released lease leaves the run with no lease all the same.
   */
  handTo?: { owner: string; leaseSeconds: number };
  /** Terminal fields (set together with a terminal status). */
  finish?: { output: string | null; errorCode: string | null; errorMessage: string | null };
  /** Sets `cancel_requested`: the worker that holds the run stops at its next step. */
  requestCancel?: boolean;
  /** Withdraws the run's pending approvals (`cancelled`): a run that ends leaves none decidable. */
  withdrawPendingApprovals?: boolean;
  /**
   * The writer holds no lease (a cancel from the API, a failure after the last attempt): the change
   * applies only while the run is in one of these statuses, and it bumps the lease version, so no
   * worker's fence survives it. Unset: fenced by `leaseVersion`.
   */
  expectedStatuses?: readonly RunStatus[];
  /**
   * Also fenced by the run's last event seq: the change applies only if nothing has been committed to
   * the run since it was read at this seq (an approval decision, which reads without a lock: whatever
   * changes a run's approvals appends an event to it). Re-checked on the row as it is when the
   * statement gets its lock, so of two concurrent writers read at one seq, only the first applies.
   */
  expectedLastEventSeq?: number;
  /**
   * An audit entry of the change (an approval decision), written by the same statement and so only
   * when the fence lets the change through. A caller that refuses the outcome afterwards (a decision
   * that found its approval decided meanwhile) rolls its transaction back, the entry with the rest.
   */
  auditEntry?: AuditEntryInsert;
}

/** Every field of `T`, the optional ones included (present, possibly undefined). */
type EveryField<T> = { [Key in keyof Required<T>]: T[Key] | undefined };

export function emptyStatementChange(runId: string, leaseVersion: number): RunStatementChange {
  // Every optional field is present from the start, unset, so that every change has the same shape
  // whichever of them its writer sets: with fields added as needed, the functions that read changes
  // (statementPayload, commitPartsOf) met a new hidden class for each combination, and V8 threw their
  // optimized code away and compiled them again ("wrong map" deopts) through a bench's first minutes.
  // `satisfies EveryField` makes a field added to RunStatementChange but not here a type error.
  return {
    runId,
    leaseVersion,
    events: [],
    messages: [],
    toolCallInserts: [],
    toolCallUpdates: [],
    approvals: [],
    approvalDecisions: [],
    grants: [],
    fileReads: [],
    increments: { rounds: 0, toolCalls: 0, inputTokens: 0, outputTokens: 0 },
    tainted: false,
    taintedBy: undefined,
    loopState: undefined,
    status: undefined,
    releaseLease: undefined,
    handTo: undefined,
    finish: undefined,
    requestCancel: undefined,
    withdrawPendingApprovals: undefined,
    expectedStatuses: undefined,
    expectedLastEventSeq: undefined,
    auditEntry: undefined,
  } satisfies EveryField<RunStatementChange>;
}

/**
 * Data-modifying CTEs all see the same snapshot: each run row is updated first (fence check, seq
 * allocation) and every other write joins on its RETURNING row, so a stale worker's change writes
 * nothing at all. Rows inserted here are not visible to updates in the same statement; the caller
 * merges an update of a row it inserts into the insert itself.
 *
 * $1 is an array of changes of distinct runs (a group commit: RunCommitBatcher), each applied as if
 * alone; every CTE joins its change to its run row by id. Two changes of runs of the same chat must
 * not share a statement (the chat's message count is updated once per statement): the batcher never
 * puts two of one chat's runs together, and a batch that fails is retried change by change.
 *
 * Only the parts that a change of the batch needs are in the text (CommitParts): the run row and the
 * result always, the rest by what the changes carry.
 */
const commitSql = (parts: CommitParts) => {
  const writes = [
    parts.events && EVENTS_SQL,
    parts.messages && MESSAGES_SQL,
    parts.toolCallInserts && TOOL_CALL_INSERTS_SQL,
    parts.toolCallUpdates && TOOL_CALL_UPDATES_SQL,
    parts.approvals && APPROVALS_SQL,
  ].filter((part) => part !== false);
  return `${RUN_SQL}${writes.map((part) => `,\n${part}`).join("")}
SELECT change.id, change.last_event_seq, change.status::text AS status, change.cancel_requested, change.lease_version,
  ${parts.approvals ? "(SELECT count(*) FROM apr_decided WHERE apr_decided.run_id = change.id)::int" : "0"} AS approvals_decided,
  -- A finish hands the chat on: its oldest queued run that nothing blocks once this one has ended
  -- (this statement still sees the finishing run as active, so it is left out of the check).
  CASE WHEN change.c ? 'finish' THEN (
    SELECT json_build_object('id', n.id, 'last_event_seq', n.last_event_seq, 'lease_version', n.lease_version)
    FROM runs AS n
    WHERE n.chat_id = change.chat_id AND n.status = 'queued' AND n.id <> change.id AND ${nothingAheadInChat("n", "change.id")}
    ORDER BY n.created_at, n.id LIMIT 1) END AS next_run
FROM change`;
};

/**
 * `change`: the fenced run update (seq allocation, counters, status), returning each change beside the
 * row it updated (RETURNING reads the joined input row: no second join of the changes with the runs).
 */
const RUN_SQL = `
WITH input AS (SELECT i.value AS c, $2::timestamptz AS now FROM jsonb_array_elements($1::jsonb) AS i(value)),
change AS (
  UPDATE runs AS r SET
    last_event_seq = r.last_event_seq + jsonb_array_length(input.c->'events'),
    updated_at = input.now,
    rounds = r.rounds + (input.c->>'rounds')::int,
    tool_calls = r.tool_calls + (input.c->>'tool_calls')::int,
    input_tokens = r.input_tokens + (input.c->>'input_tokens')::int,
    output_tokens = r.output_tokens + (input.c->>'output_tokens')::int,
    tainted = r.tainted OR (input.c->>'tainted')::boolean,
    tainted_by = CASE WHEN input.c ? 'tainted_by' THEN input.c->'tainted_by' ELSE r.tainted_by END,
    loop_state = CASE WHEN input.c ? 'loop_state' THEN input.c->'loop_state' ELSE r.loop_state END,
    status = COALESCE((input.c->>'status')::"RunStatus", r.status),
    output = CASE WHEN input.c ? 'finish' THEN input.c->'finish'->>'output' ELSE r.output END,
    error_code = CASE WHEN input.c ? 'finish' THEN input.c->'finish'->>'error_code' ELSE r.error_code END,
    error_message = CASE WHEN input.c ? 'finish' THEN input.c->'finish'->>'error_message' ELSE r.error_message END,
    finished_at = CASE WHEN input.c ? 'finish' THEN input.now ELSE r.finished_at END,
    -- A run's first start: a take sets it, and so does the first commit of a run that no take started
    -- (runs/new-run-start.ts), which takes the lease (hand_to) whatever it commits (a run that fails
    -- at once too). A decision's hand_to finds it set: the run started before it parked.
    started_at = CASE WHEN input.c->>'status' = 'running' OR input.c ? 'hand_to' THEN COALESCE(r.started_at, input.now) ELSE r.started_at END,
    lease_expires_at = CASE WHEN input.c ? 'finish' OR input.c ? 'release_lease' THEN NULL
      WHEN input.c ? 'hand_to' THEN now() + make_interval(secs => (input.c->'hand_to'->>'lease_seconds')::float8)
      ELSE r.lease_expires_at END,
    lease_owner = CASE WHEN input.c ? 'finish' OR input.c ? 'release_lease' THEN NULL
      WHEN input.c ? 'hand_to' THEN input.c->'hand_to'->>'owner' ELSE r.lease_owner END,
    lease_version = r.lease_version + CASE WHEN input.c ? 'status_in' OR input.c ? 'hand_to' THEN 1 ELSE 0 END,
    cancel_requested = r.cancel_requested OR input.c ? 'request_cancel'
  FROM input
  WHERE r.id = input.c->>'run_id'
    -- Said twice on purpose: the planner takes jsonb_array_elements for 100 rows and would hash-join
    -- them with a scan of every run; as an array it looks the few runs up by their key.
    AND r.id = ANY (ARRAY(SELECT c->>'run_id' FROM input))
    AND CASE WHEN input.c ? 'status_in'
      THEN r.status::text IN (SELECT jsonb_array_elements_text(input.c->'status_in'))
      ELSE r.lease_version = (input.c->>'lease_version')::int END
    AND (NOT input.c ? 'last_event_seq_is' OR r.last_event_seq = (input.c->>'last_event_seq_is')::int)
  RETURNING r.id, r.chat_id, r.user_id, r.last_event_seq, r.status, r.cancel_requested, r.lease_version, input.c, input.now
)`;

/**
 * `ev` appends the events with their seqs; `hook` creates their webhook deliveries (webhooks/*.ts):
 * with the events, in the same transaction, so a delivery exists exactly when its event does.
 */
const EVENTS_SQL = `ev AS (
  INSERT INTO run_events (run_id, seq, type, data, created_at)
  SELECT change.id, change.last_event_seq - jsonb_array_length(change.c->'events') + e.ord::int, e.value->>'type', e.value->'data', change.now
  FROM change, jsonb_array_elements(change.c->'events') WITH ORDINALITY AS e(value, ord)
),
hook AS (
  ${webhookDeliveryInsert(`(SELECT change.id AS run_id, change.user_id, change.last_event_seq - jsonb_array_length(change.c->'events') + 1 AS first_seq,
    change.c->'events' AS events, change.now FROM change WHERE jsonb_array_length(change.c->'events') > 0)`)}
)`;

/** The messages, at positions after the chat's count, which `chat` raises. */
const MESSAGES_SQL = `chat AS (
  UPDATE chats SET message_count = chats.message_count + jsonb_array_length(change.c->'messages'), updated_at = change.now
  FROM change
  WHERE chats.id = change.chat_id AND chats.id = ANY (ARRAY(SELECT chat_id FROM change)) AND jsonb_array_length(change.c->'messages') > 0
  RETURNING chats.id, chats.message_count
),
msg AS (
  INSERT INTO messages (id, chat_id, run_id, position, role, content, tool_calls, tool_call_id, created_at)
  SELECT m.value->>'id', change.chat_id, change.id, chat.message_count - jsonb_array_length(change.c->'messages') + m.ord::int,
    (m.value->>'role')::"MessageRole", m.value->>'content', NULLIF(m.value->'tool_calls', 'null'::jsonb), m.value->>'tool_call_id', change.now
  FROM change JOIN chat ON chat.id = change.chat_id, jsonb_array_elements(change.c->'messages') WITH ORDINALITY AS m(value, ord)
)`;

/** The tool-call rows inserted (a round's calls, recorded before they run). */
const TOOL_CALL_INSERTS_SQL = `tc_new AS (
  INSERT INTO tool_calls (id, run_id, call_id, round, position, tool, arguments, effects, status, attempts, started_at, ok, result, completed_at, created_at)
  SELECT t->>'id', change.id, t->>'call_id', (t->>'round')::int, (t->>'position')::int, t->>'tool', t->'arguments',
    ARRAY(SELECT jsonb_array_elements_text(t->'effects')), (t->>'status')::"ToolCallStatus",
    CASE WHEN (t->>'started')::boolean THEN 1 ELSE 0 END,
    CASE WHEN (t->>'started')::boolean THEN change.now END,
    (t->>'ok')::boolean, t->>'result',
    CASE WHEN (t->>'completed')::boolean THEN change.now END, change.now
  FROM change, jsonb_array_elements(change.c->'tool_inserts') AS t
)`;

/** The tool-call rows updated (a call answered, or started again), and the file reads that a tool's result reports. */
const TOOL_CALL_UPDATES_SQL = `tc_upd AS (
  UPDATE tool_calls AS tc SET
    status = COALESCE((u->>'status')::"ToolCallStatus", tc.status),
    ok = CASE WHEN u ? 'ok' THEN (u->>'ok')::boolean ELSE tc.ok END,
    result = CASE WHEN u ? 'result' THEN u->>'result' ELSE tc.result END,
    started_at = CASE WHEN (u->>'started')::boolean THEN change.now ELSE tc.started_at END,
    attempts = tc.attempts + CASE WHEN (u->>'started')::boolean THEN 1 ELSE 0 END,
    completed_at = CASE WHEN (u->>'completed')::boolean THEN change.now ELSE tc.completed_at END,
    effects = CASE WHEN u ? 'effects' THEN ARRAY(SELECT jsonb_array_elements_text(u->'effects')) ELSE tc.effects END
  FROM change, jsonb_array_elements(change.c->'tool_updates') AS u
  WHERE tc.id = u->>'id' AND tc.run_id = change.id
),
file_read AS (
  INSERT INTO run_file_reads (run_id, workspace_id, path, revision, read_at)
  SELECT change.id, f->>'workspace_id', f->>'path', f->>'revision', change.now
  FROM change, jsonb_array_elements(change.c->'file_reads') AS f
  ON CONFLICT (run_id, workspace_id, path) DO UPDATE SET revision = EXCLUDED.revision, read_at = EXCLUDED.read_at
)`;

/** A park's sealed approvals, a decision (its grant, its audit entry), and the withdrawal of a run's pending approvals. */
const APPROVALS_SQL = `apr AS (
  INSERT INTO approvals (id, run_id, chat_id, user_id, tool_call_row_id, tool_call_id, tool, arguments, arguments_hash, workspace_id,
    effects, target_path, target_revision, target_document_id, target_email_id, policy_version, expires_at, seal, tainted_by, pause_reason, created_at)
  SELECT a->>'id', change.id, a->>'chat_id', a->>'user_id', a->>'tool_call_row_id', a->>'tool_call_id', a->>'tool', a->'arguments',
    a->>'arguments_hash', a->>'workspace_id', ARRAY(SELECT jsonb_array_elements_text(a->'effects')), a->>'target_path',
    a->>'target_revision', a->>'target_document_id', a->>'target_email_id', a->>'policy_version', (a->>'expires_at')::timestamptz, a->>'seal', a->'tainted_by', a->>'pause_reason', change.now
  FROM change, jsonb_array_elements(change.c->'approvals') AS a
  WHERE a->>'run_id' = change.id
),
apr_decided AS (
  UPDATE approvals AS ap SET status = (d->>'status')::"ApprovalStatus", decision = (d->>'decision')::"ApprovalDecision",
    decided_by = d->>'decided_by', decided_at = change.now,
    edited_arguments = CASE WHEN d ? 'edited_arguments' THEN d->'edited_arguments' ELSE ap.edited_arguments END
  FROM change, jsonb_array_elements(change.c->'approval_decisions') AS d
  WHERE ap.id = d->>'id' AND ap.run_id = change.id AND ap.status = 'pending'
  RETURNING ap.id, ap.run_id
),
apr_withdrawn AS (
  -- Only the runs whose change asks (a hashed subplan, evaluated once): a step commit probes nothing here.
  UPDATE approvals AS ap SET status = 'cancelled'
  WHERE ap.run_id IN (SELECT change.id FROM change WHERE change.c ? 'withdraw_approvals') AND ap.status = 'pending'
),
grant_new AS (
  INSERT INTO grants (id, user_id, chat_id, run_id, scope, tool, effects, approval_id, created_at)
  -- The run's chat, and the run itself for a task grant: from the run row, not the change (migration approval_rows_without_foreign_keys).
  SELECT g->>'id', g->>'user_id', change.chat_id, CASE WHEN g->>'scope' = 'task' THEN change.id END, (g->>'scope')::"GrantScope", g->>'tool',
    ARRAY(SELECT jsonb_array_elements_text(g->'effects')), g->>'approval_id', change.now
  FROM change, jsonb_array_elements(change.c->'grants') AS g
),
audit AS (
  -- at: the column's default, the transaction's start, as for every other entry (audit-statements.ts).
  INSERT INTO audit_entries (id, actor_id, action, target, details)
  SELECT change.c->'audit'->>'id', change.c->'audit'->>'actor_id', change.c->'audit'->>'action', change.c->'audit'->>'target', change.c->'audit'->'details'
  FROM change
  WHERE change.c ? 'audit'
)`;

/**
 * The optional parts of the commit statement: a part is in its text only when a change of the batch
 * needs it. An empty part is not free: its tables and all their indexes are locked and opened, and its
 * joins run, at every execution (the step commit, the common case, needs two or three of the five).
 * Each combination is its own prepared statement, named after its parts, and each costs every
 * connection that runs it a plan (0.4-1.1 MB): parts are few and coarse, so that a worker's commits
 * take three or four shapes (at most 32), each lighter than the one statement that had every part.
 */
export interface CommitParts {
  /** `ev` and `hook` (code `ev`): the events, and their webhook deliveries. */
  events: boolean;
  /** `chat` and `msg` (code `msg`): the messages, and the chat's count. */
  messages: boolean;
  /** `tc_new` (code `tci`): tool-call rows inserted. */
  toolCallInserts: boolean;
  /** `tc_upd` and `file_read` (code `tcu`): tool-call rows updated, and the file reads (which come with a tool's result). */
  toolCallUpdates: boolean;
  /**
   * `apr`, `apr_decided`, `apr_withdrawn`, `grant_new` and `audit` (code `apr`): approvals written,
   * decided or withdrawn, grants, and a decision's audit entry.
   */
  approvals: boolean;
}

/** The parts that the changes of one statement need. */
export function commitPartsOf(changes: readonly RunStatementChange[]): CommitParts {
  const parts: CommitParts = { events: false, messages: false, toolCallInserts: false, toolCallUpdates: false, approvals: false };
  for (const change of changes) {
    parts.events ||= change.events.length > 0;
    parts.messages ||= change.messages.length > 0;
    parts.toolCallInserts ||= change.toolCallInserts.length > 0;
    parts.toolCallUpdates ||= change.toolCallUpdates.length > 0 || change.fileReads.length > 0;
    parts.approvals ||=
      change.approvals.length > 0 ||
      change.approvalDecisions.length > 0 ||
      change.grants.length > 0 ||
      change.withdrawPendingApprovals === true ||
      change.auditEntry !== undefined;
  }
  return parts;
}

const PART_CODES: Record<keyof CommitParts, string> = { events: "ev", messages: "msg", toolCallInserts: "tci", toolCallUpdates: "tcu", approvals: "apr" };

const commitStatements = new Map<string, PreparedSql>();

/** The prepared statement of these parts, `run_commit` followed by the codes of the parts it has, in a fixed order. */
export function commitStatement(parts: CommitParts): PreparedSql {
  const codes = (Object.keys(PART_CODES) as (keyof CommitParts)[]).filter((part) => parts[part]).map((part) => PART_CODES[part]);
  const name = ["run_commit", ...codes].join("_");
  let statement = commitStatements.get(name);
  if (!statement) {
    statement = preparedSql(name, commitSql(parts));
    commitStatements.set(name, statement);
  }
  return statement;
}

/** The run row the commit left (no row: the fence refused), and how many decisions found their approval pending. */
const committedRow = z.object({
  id: z.string(),
  last_event_seq: z.number(),
  status: z.enum(RunStatus),
  cancel_requested: z.boolean(),
  lease_version: z.number(),
  approvals_decided: z.number(),
  next_run: z.object({ id: z.string(), last_event_seq: z.number(), lease_version: z.number() }).nullable(),
});

export interface CommittedChange {
  run: CommittedRun;
  events: RunEventRecord[];
  approvalsDecided: number;
  /** With a finish: the chat's oldest queued run that nothing blocks any more, to hand to a worker. */
  nextRunOfChat: { id: string; generation: { lastEventSeq: number; leaseVersion: number } } | null;
}

/**
 * Commits a change in one statement. Returns null when the fence no longer matches (the run was
 * taken over): nothing was written. `approvalsDecided` counts the decisions that found their
 * approval still pending (a caller in a transaction rolls back when one did not).
 */
export async function commitRunStatement(runner: SqlRunner, change: RunStatementChange, now: Date): Promise<CommittedChange | null> {
  const [committed] = await commitRunStatements(runner, [change], now);
  return committed ?? null;
}

/**
 * Commits changes of distinct runs (and chats) in one statement, one transaction: each is applied as
 * if alone, and each result is what `commitRunStatement` would have returned for it (null: its fence
 * refused). A failure fails them all: RunCommitBatcher then commits them one by one.
 */
export async function commitRunStatements(runner: SqlRunner, changes: readonly RunStatementChange[], now: Date): Promise<(CommittedChange | null)[]> {
  const statement = commitStatement(commitPartsOf(changes));
  const payload = `[${changes.map((change) => withoutNulCharacters(JSON.stringify(statementPayload(change)))).join(",")}]`;
  const rows = await queryParsed(runner, statement, [payload, now.toISOString()], committedRow);
  const byRun = new Map(rows.map((row) => [row.id, row]));
  return changes.map((change) => {
    const row = byRun.get(change.runId);
    if (!row) return null;
    const firstSeq = row.last_event_seq - change.events.length + 1;
    return {
      run: { id: row.id, status: row.status, cancelRequested: row.cancel_requested, lastEventSeq: row.last_event_seq, leaseVersion: row.lease_version },
      events: change.events.map((event, index) => ({ seq: firstSeq + index, type: event.type, at: now.toISOString(), data: event.data })),
      approvalsDecided: row.approvals_decided,
      nextRunOfChat: row.next_run
        ? { id: row.next_run.id, generation: { lastEventSeq: row.next_run.last_event_seq, leaseVersion: row.next_run.lease_version } }
        : null,
    };
  });
}

/** A change as the statement reads it (snake_case JSON). */
function statementPayload(change: RunStatementChange): Record<string, unknown> {
  const payload: Record<string, unknown> = {
    run_id: change.runId,
    lease_version: change.leaseVersion,
    events: change.events,
    messages: change.messages.map((message) => ({
      id: message.id,
      role: message.role,
      content: message.content,
      tool_calls: message.role === "assistant" && message.toolCalls?.length ? message.toolCalls : null,
      tool_call_id: message.role === "tool" ? message.toolCallId : null,
    })),
    tool_inserts: change.toolCallInserts.map((call) => ({
      id: call.id,
      call_id: call.callId,
      round: call.round,
      position: call.position,
      tool: call.tool,
      arguments: call.arguments,
      effects: call.effects,
      status: call.status,
      started: call.started === true,
      ok: call.ok ?? null,
      result: call.result ?? null,
      completed: call.completed === true,
    })),
    tool_updates: change.toolCallUpdates,
    approvals: change.approvals.map((approval) => ({
      id: approval.id,
      run_id: approval.runId,
      chat_id: approval.chatId,
      user_id: approval.userId,
      tool_call_row_id: approval.toolCallRowId,
      tool_call_id: approval.toolCallId,
      tool: approval.tool,
      arguments: approval.arguments,
      arguments_hash: approval.argumentsHash,
      workspace_id: approval.workspaceId,
      effects: approval.effects,
      target_path: approval.targetPath,
      target_revision: approval.targetRevision,
      target_document_id: approval.targetDocumentId ?? null,
      target_email_id: approval.targetEmailId ?? null,
      policy_version: approval.policyVersion,
      expires_at: approval.expiresAt.toISOString(),
      seal: approval.seal,
      tainted_by: approval.taintedBy,
      pause_reason: approval.pauseReason,
    })),
    approval_decisions: change.approvalDecisions.map((decided) => ({
      id: decided.id,
      status: decided.status,
      decision: decided.decision,
      decided_by: decided.decidedBy,
      ...(decided.editedArguments !== undefined ? { edited_arguments: decided.editedArguments } : {}),
    })),
    grants: change.grants.map((grant) => ({
      id: grant.id,
      user_id: grant.userId,
      scope: grant.scope,
      tool: grant.tool,
      effects: grant.effects,
      approval_id: grant.approvalId,
    })),
    rounds: change.increments.rounds,
    tool_calls: change.increments.toolCalls,
    input_tokens: change.increments.inputTokens,
    output_tokens: change.increments.outputTokens,
    tainted: change.tainted,
    file_reads: change.fileReads.map((read) => ({ workspace_id: read.workspaceId, path: read.path, revision: read.revision })),
  };
  if (change.loopState !== undefined) payload.loop_state = change.loopState;
  if (change.taintedBy !== undefined) payload.tainted_by = change.taintedBy;
  if (change.status !== undefined) payload.status = change.status;
  if (change.releaseLease) payload.release_lease = true;
  if (change.handTo) payload.hand_to = { owner: change.handTo.owner, lease_seconds: change.handTo.leaseSeconds };
  if (change.withdrawPendingApprovals) payload.withdraw_approvals = true;
  if (change.requestCancel) payload.request_cancel = true;
  if (change.expectedStatuses) payload.status_in = change.expectedStatuses;
  if (change.expectedLastEventSeq !== undefined) payload.last_event_seq_is = change.expectedLastEventSeq;
  if (change.finish) payload.finish = { output: change.finish.output, error_code: change.finish.errorCode, error_message: change.finish.errorMessage };
  if (change.auditEntry) {
    const entry = change.auditEntry;
    payload.audit = { id: entry.id, actor_id: entry.actorId, action: entry.action, target: entry.target, details: entry.details };
  }
  return payload;
}

/** Merges a tool-call update into what is already staged: rows inserted in the same commit take it directly. */
export function stageToolCallUpdate(change: RunStatementChange, update: StatementToolCallUpdate): void {
  const insert = change.toolCallInserts.find((candidate) => candidate.id === update.id);
  if (insert) {
    if (update.status !== undefined) insert.status = update.status;
    if (update.started) insert.started = true;
    if (update.ok !== undefined) insert.ok = update.ok;
    if (update.result !== undefined) insert.result = update.result;
    if (update.completed) insert.completed = true;
    if (update.effects) insert.effects = update.effects;
    return;
  }
  const existing = change.toolCallUpdates.find((candidate) => candidate.id === update.id);
  if (existing) Object.assign(existing, update);
  else change.toolCallUpdates.push({ ...update });
}

/** Stages a file read, replacing one of the same file staged earlier (a statement upserts a row once). */
export function stageFileRead(change: RunStatementChange, read: StatementFileRead): void {
  const index = change.fileReads.findIndex((staged) => staged.workspaceId === read.workspaceId && staged.path === read.path);
  if (index >= 0) change.fileReads[index] = read;
  else change.fileReads.push(read);
}

export function isEmptyStatementChange(change: RunStatementChange): boolean {
  return (
    change.events.length === 0 &&
    change.messages.length === 0 &&
    change.toolCallInserts.length === 0 &&
    change.toolCallUpdates.length === 0 &&
    change.approvals.length === 0 &&
    change.approvalDecisions.length === 0 &&
    change.grants.length === 0 &&
    change.fileReads.length === 0 &&
    change.loopState === undefined &&
    change.taintedBy === undefined &&
    change.status === undefined &&
    change.releaseLease !== true &&
    change.handTo === undefined &&
    change.withdrawPendingApprovals !== true &&
    change.requestCancel !== true &&
    change.auditEntry === undefined &&
    !change.tainted &&
    Object.values(change.increments).every((value) => value === 0)
  );
}

/**
 * Postgres text and jsonb cannot hold U+0000, which a command's output or a model may contain: it
 * becomes U+FFFD. Only real escapes are replaced, not an escaped backslash followed by "u0000".
 */
export function withoutNulCharacters(json: string): string {
  return json.replace(/(?<!\\)((?:\\\\)*)\\u0000/g, "$1\\ufffd");
}
