import { NotFoundError } from "../errors/agentq-error.ts";
import type { RunEventRecord } from "../events/run-event.ts";
import { sqlPoolOf, type PrismaClient } from "../store/create-prisma-client.ts";
import { selectOwnRun, selectRunEventsAfter, selectRunEventsForToken, selectRunView } from "../store/statements/run-read-statements.ts";
import { hashApiToken } from "../users/api-token.ts";
import { InvalidTokenError } from "../users/user-errors.ts";
import type { RunStatus } from "./run-status.ts";
import { toRunView, type RunView } from "./run-view.ts";

// The reads behind every run a client creates, polls and follows (the answer to POST a run, GET a
// run, its events, WebSocket and SSE replay): one prepared statement each on the Prisma client's
// pool (store/statements/run-read-statements.ts), because they run for every run and every subscriber.

/** The run, if the user owns it; `404` otherwise (invariant 7). */
export async function getRunView(prisma: PrismaClient, userId: string, runId: string): Promise<RunView> {
  const row = await selectRunView(sqlPoolOf(prisma), { runId, userId });
  if (!row) throw new NotFoundError("run", { run_id: runId });
  return toRunView(row);
}

export async function requireOwnRun(prisma: PrismaClient, userId: string, runId: string): Promise<{ id: string; status: RunStatus; chatId: string }> {
  const run = await selectOwnRun(sqlPoolOf(prisma), { runId, userId });
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
  const rows = await selectRunEventsAfter(sqlPoolOf(prisma), { runId, after, limit });
  const [first] = rows;
  return eventsPage(first ? { status: first.run_status, lastEventSeq: first.last_event_seq } : null, rows);
}

/**
 * readRunEvents for the holder of a bearer token, checked in the same statement: InvalidTokenError
 * when the token does not work (unknown, or its user disabled), NotFoundError when the run is not
 * its user's (invariant 7). What a WebSocket subscription reads first.
 */
export async function readRunEventsWithToken(
  prisma: PrismaClient,
  input: { token: string; runId: string; after: number; limit: number },
): Promise<RunEventsPage> {
  const rows = await selectRunEventsForToken(sqlPoolOf(prisma), {
    tokenHash: hashApiToken(input.token),
    runId: input.runId,
    after: input.after,
    limit: input.limit,
  });
  const [first] = rows;
  if (!first) throw new InvalidTokenError();
  if (!first.owns_run || first.run_status === null || first.last_event_seq === null) throw new NotFoundError("run", { run_id: input.runId });
  return eventsPage({ status: first.run_status, lastEventSeq: first.last_event_seq }, rows);
}

/** An event's columns as the statements read them: null together where the run has no event after the seq asked for. */
interface EventColumns {
  seq: number | null;
  type: RunEventRecord["type"] | null;
  created_at: Date | null;
  data: Record<string, unknown> | null;
}

function eventsPage(run: RunEventsPage["run"], rows: readonly EventColumns[]): RunEventsPage {
  if (!run) return { run: null, events: [] };
  const events: RunEventRecord[] = [];
  for (const row of rows) {
    // The event's columns are null together (the LEFT JOIN found no event after `after`).
    if (row.seq !== null && row.type !== null && row.created_at !== null && row.data !== null) {
      events.push({ seq: row.seq, type: row.type, at: row.created_at.toISOString(), data: row.data });
    }
  }
  return { run, events };
}
