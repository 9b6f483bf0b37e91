import { NotFoundError } from "../errors/agentq-error.ts";
import type { RunEventRecord, RunEventType } from "../events/run-event.ts";
import { sqlPoolOf, type PrismaClient } from "../store/create-prisma-client.ts";
import { preparedSql, queryRows } from "../store/sql-pool.ts";
import type { RunStatus } from "./run-status.ts";
import { toRunView, type RunView, type RunViewRow } from "./run-view.ts";

// The reads behind every run a client creates, polls and follows (the answer to POST a run, GET a
// run, its events, WebSocket and SSE replay): one prepared statement each on the Prisma client's
// pool (store/sql-pool.ts), because they run for every run and every subscriber.

/**
 * The run and its pending approvals. Approvals of one round share their creation time: they come in
 * the order of their calls.
 */
const RUN_VIEW_SQL = preparedSql(
  "run_view",
  `
SELECT r.id, r.chat_id, r.status::text AS status, r.rounds, r.tool_calls, r.output, r.error_code, r.error_message, r.created_at, r.updated_at,
  (SELECT COALESCE(json_agg(json_build_object(
      'id', a.id, 'tool', a.tool, 'tool_call_id', a.tool_call_id, 'arguments', a.arguments,
      'effects', COALESCE(a.effects, '{}'), 'expires_at', a.expires_at) ORDER BY a.created_at, tc.round, tc.position), '[]'::json)
    FROM approvals AS a JOIN tool_calls AS tc ON tc.id = a.tool_call_row_id
    WHERE a.run_id = r.id AND a.status = 'pending') AS pending_approvals
FROM runs AS r
WHERE r.id = $1 AND r.user_id = $2`,
);

const OWN_RUN_SQL = preparedSql("run_own", `SELECT id, status::text AS status, chat_id AS "chatId" FROM runs WHERE id = $1 AND user_id = $2`);

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

/** The run, if the user owns it; `404` otherwise (invariant 7). */
export async function getRunView(prisma: PrismaClient, userId: string, runId: string): Promise<RunView> {
  const [row] = await queryRows<RunViewRow>(sqlPoolOf(prisma), RUN_VIEW_SQL, [runId, userId]);
  if (!row) throw new NotFoundError("run", { run_id: runId });
  return toRunView(row);
}

export async function requireOwnRun(prisma: PrismaClient, userId: string, runId: string): Promise<{ id: string; status: RunStatus; chatId: string }> {
  const [run] = await queryRows<{ id: string; status: RunStatus; chatId: string }>(sqlPoolOf(prisma), OWN_RUN_SQL, [runId, userId]);
  if (!run) throw new NotFoundError("run", { run_id: runId });
  return run;
}

export interface RunEventsPage {
  /** The run as of the same snapshot as the events; null when there is no such run. */
  run: { status: RunStatus; lastEventSeq: number } | null;
  /** Durable events with `seq > after`, in order (at most the limit asked for). */
  events: RunEventRecord[];
}

/** Durable events with `seq > after`, in order (at most `limit`), and where the run stands. */
export async function readRunEvents(prisma: PrismaClient, runId: string, after: number, limit = 1000): Promise<RunEventsPage> {
  const rows = await queryRows<{
    run_status: RunStatus;
    last_event_seq: number;
    seq: number | null;
    type: RunEventType;
    created_at: Date;
    data: Record<string, unknown>;
  }>(sqlPoolOf(prisma), EVENTS_SQL, [runId, after, limit]);
  const [first] = rows;
  if (!first) return { run: null, events: [] };
  const events: RunEventRecord[] = [];
  for (const row of rows) if (row.seq !== null) events.push({ seq: row.seq, type: row.type, at: row.created_at.toISOString(), data: row.data });
  return { run: { status: first.run_status, lastEventSeq: first.last_event_seq }, events };
}
