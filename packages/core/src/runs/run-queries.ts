import { NotFoundError } from "../errors/agentq-error.ts";
import type { RunEventRecord, RunEventType } from "../events/run-event.ts";
import type { Db } from "../store/create-prisma-client.ts";
import { runViewSelect, toRunView, type RunView } from "./run-view.ts";

/** The run, if the user owns it; `404` otherwise (invariant 7). */
export async function getRunView(db: Db, userId: string, runId: string): Promise<RunView> {
  const row = await db.run.findFirst({ where: { id: runId, userId }, select: runViewSelect });
  if (!row) throw new NotFoundError("run", { run_id: runId });
  return toRunView(row);
}

export async function requireOwnRun(db: Db, userId: string, runId: string): Promise<{ id: string; status: string; chatId: string }> {
  const run = await db.run.findFirst({ where: { id: runId, userId }, select: { id: true, status: true, chatId: true } });
  if (!run) throw new NotFoundError("run", { run_id: runId });
  return run;
}

/** Durable events with `seq > after`, in order (at most `limit`). */
export async function listRunEvents(db: Db, runId: string, after: number, limit = 1000): Promise<RunEventRecord[]> {
  const rows = await db.runEvent.findMany({ where: { runId, seq: { gt: after } }, orderBy: { seq: "asc" }, take: limit });
  return rows.map((row) => ({ seq: row.seq, type: row.type as RunEventType, at: row.createdAt.toISOString(), data: row.data as Record<string, unknown> }));
}
