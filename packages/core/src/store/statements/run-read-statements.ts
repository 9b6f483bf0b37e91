import { z } from "zod";
import { RUN_EVENT_TYPES } from "../../events/run-event.ts";
import { taintSourcesSchema } from "../../policy/taint-sources.ts";
import { RunMode, RunStatus } from "../generated/enums.ts";
import { preparedSql, queryParsed, type SqlRunner } from "../sql-pool.ts";
import { TOKENS_OF_ENABLED_USERS } from "./user-statements.ts";

// The reads behind every run a client creates, polls and follows (runs/run-queries.ts): prepared,
// because they run for every run and every subscriber.

/**
 * The run whose id is `id` (a parameter), found by its key alone, as a table to select from: a
 * statement that also names the owner (`r.user_id = ...`) tests it on that one row. Written so
 * because a generic plan made while the tables were nearly empty estimates every lookup at one row,
 * and then preferred the (user_id, created_at) index to the key: it read every run of the user.
 */
function runById(id: string): string {
  return `(SELECT * FROM runs WHERE id = ${id} OFFSET 0)`;
}

/**
 * The run, what it was asked, and its pending approvals. Approvals of one round share their creation
 * time: they come in the order of their calls.
 */
const RUN_VIEW_SQL = preparedSql(
  "run_view",
  `
SELECT r.id, r.chat_id, r.status::text AS status, r.input, r.model, r.mode::text AS mode, r.allow_bash, r.allow_web_search, r.use_web, NULLIF(r.tools, '{}') AS tools, r.rounds, r.tool_calls, r.output, r.error_code, r.error_message, r.created_at, r.updated_at,
  (SELECT COALESCE(json_agg(json_build_object(
      'id', a.id, 'tool', a.tool, 'tool_call_id', a.tool_call_id, 'arguments', a.arguments,
      'effects', COALESCE(a.effects, '{}'), 'expires_at', a.expires_at, 'tainted_by', a.tainted_by, 'reason', a.pause_reason,
      'email', CASE WHEN e.id IS NULL THEN NULL ELSE json_build_object('to', e.to_addresses, 'cc', e.cc_addresses, 'subject', e.subject, 'body', e.body) END
    ) ORDER BY a.created_at, tc.round, tc.position), '[]'::json)
    FROM approvals AS a JOIN tool_calls AS tc ON tc.id = a.tool_call_row_id
    LEFT JOIN emails AS e ON e.id = a.target_email_id AND e.user_id = a.user_id
    WHERE a.run_id = r.id AND a.status = 'pending') AS pending_approvals
FROM ${runById("$1")} AS r
WHERE r.user_id = $2`,
);

const runViewRow = z.object({
  id: z.string(),
  chat_id: z.string(),
  status: z.enum(RunStatus),
  input: z.string(),
  model: z.string(),
  mode: z.enum(RunMode),
  allow_bash: z.boolean(),
  allow_web_search: z.boolean(),
  use_web: z.boolean(),
  tools: z.array(z.string()).nullable(),
  rounds: z.number(),
  tool_calls: z.number(),
  output: z.string().nullable(),
  error_code: z.string().nullable(),
  error_message: z.string().nullable(),
  created_at: z.date(),
  updated_at: z.date(),
  /** Built as JSON in the statement: `expires_at` is Postgres's JSON text of the timestamp. */
  pending_approvals: z.array(
    z.object({
      id: z.string(),
      tool: z.string(),
      tool_call_id: z.string(),
      arguments: z.unknown(),
      effects: z.array(z.string()),
      expires_at: z.string(),
      /** Null in approvals recorded before taint sources were. */
      tainted_by: taintSourcesSchema.nullable(),
      reason: z.enum(["tainted", "approval_always"]),
      /** The email a send_email call would send, as it is now (null for other calls). */
      email: z.object({ to: z.array(z.string()), cc: z.array(z.string()), subject: z.string(), body: z.string() }).nullable(),
    }),
  ),
});

/** The run with its pending approvals, if `userId` owns it; no row otherwise. */
export async function selectRunView(runner: SqlRunner, input: { runId: string; userId: string }): Promise<z.output<typeof runViewRow> | undefined> {
  const [row] = await queryParsed(runner, RUN_VIEW_SQL, [input.runId, input.userId], runViewRow);
  return row;
}

const OWN_RUN_SQL = preparedSql("run_own", `SELECT id, status::text AS status, chat_id AS "chatId" FROM ${runById("$1")} AS r WHERE user_id = $2`);

const ownRunRow = z.object({ id: z.string(), status: z.enum(RunStatus), chatId: z.string() });

/** The run's status and chat, if `userId` owns it; no row otherwise. */
export async function selectOwnRun(runner: SqlRunner, input: { runId: string; userId: string }): Promise<z.output<typeof ownRunRow> | undefined> {
  const [row] = await queryParsed(runner, OWN_RUN_SQL, [input.runId, input.userId], ownRunRow);
  return row;
}

/**
 * Events after a seq, with the run's status and last seq as of the same snapshot (a follower learns
 * in the same round trip whether the run has finished). No row: no such run; one row with a null
 * seq: no event after `$2`.
 */
const EVENTS_SQL = preparedSql(
  "run_events_after",
  `
SELECT r.status::text AS run_status, r.last_event_seq, e.seq, e.type, e.created_at, e.data
FROM runs AS r
LEFT JOIN LATERAL (SELECT seq, type, created_at, data FROM run_events WHERE run_id = r.id AND seq > $2 ORDER BY seq LIMIT $3) AS e ON true
WHERE r.id = $1
ORDER BY e.seq`,
);

/** The event columns are null together: the run has no event after the seq asked for. */
const runEventRow = z.object({
  run_status: z.enum(RunStatus),
  last_event_seq: z.number(),
  seq: z.number().nullable(),
  type: z.enum(RUN_EVENT_TYPES).nullable(),
  created_at: z.date().nullable(),
  data: z.record(z.string(), z.unknown()).nullable(),
});

/** The run's events with `seq > after` (at most `limit`), each row with the run's status and last seq. */
export async function selectRunEventsAfter(runner: SqlRunner, input: { runId: string; after: number; limit: number }): Promise<z.output<typeof runEventRow>[]> {
  return queryParsed(runner, EVENTS_SQL, [input.runId, input.after, input.limit], runEventRow);
}

/**
 * selectRunEventsAfter for the holder of a token (a WebSocket subscription): the token's enabled user
 * (TOKENS_OF_ENABLED_USERS, $1 its hash), whether the run is theirs, and its events after `$3`, in one
 * statement. No row: the token does not work; `owns_run` false: no such run of theirs (one row, no event).
 */
const EVENTS_FOR_TOKEN_SQL = preparedSql(
  "run_events_for_token",
  `
SELECT r.id IS NOT NULL AS owns_run, r.status::text AS run_status, r.last_event_seq, e.seq, e.type, e.created_at, e.data
FROM ${TOKENS_OF_ENABLED_USERS}
LEFT JOIN ${runById("$2")} AS r ON r.user_id = u.id
LEFT JOIN LATERAL (SELECT seq, type, created_at, data FROM run_events WHERE run_id = r.id AND seq > $3 ORDER BY seq LIMIT $4) AS e ON true
WHERE t.token_hash = $1
ORDER BY e.seq`,
);

const tokenEventRow = runEventRow.extend({ owns_run: z.boolean(), run_status: z.enum(RunStatus).nullable(), last_event_seq: z.number().nullable() });

export async function selectRunEventsForToken(
  runner: SqlRunner,
  input: { tokenHash: string; runId: string; after: number; limit: number },
): Promise<z.output<typeof tokenEventRow>[]> {
  return queryParsed(runner, EVENTS_FOR_TOKEN_SQL, [input.tokenHash, input.runId, input.after, input.limit], tokenEventRow);
}
