import { NotFoundError } from "../errors/agentq-error.ts";
import type { RunEventRecord } from "../events/run-event.ts";
import { sqlPoolOf, type PrismaClient } from "../store/create-prisma-client.ts";
import { selectOwnRun, selectRunEventsAfter, selectRunView } from "../store/statements/run-read-statements.ts";
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
  if (!first) return { run: null, events: [] };
  const events: RunEventRecord[] = [];
  for (const row of rows) {
    // The event's columns are null together (the LEFT JOIN found no event after `after`).
    if (row.seq !== null && row.type !== null && row.created_at !== null && row.data !== null) {
      events.push({ seq: row.seq, type: row.type, at: row.created_at.toISOString(), data: row.data });
    }
  }
  return { run: { status: first.run_status, lastEventSeq: first.last_event_seq }, events };
}
