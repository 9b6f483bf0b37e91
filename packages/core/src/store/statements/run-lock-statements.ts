import { z } from "zod";
import { RunStatus } from "../generated/enums.ts";
import { preparedSql, queryParsed, type SqlRunner } from "../sql-pool.ts";

// A run's row locked (FOR UPDATE) by a writer that holds no lease: a cancel, a failure after the
// last attempt. Until its transaction ends, no decision, cancel or worker commit changes the run, so
// the lease version read here is the one its commit is fenced by.

/** The run, locked: a decision on one of its approvals or a worker's commit waits for the cancel. */
const LOCK_FOR_CANCEL_SQL = preparedSql("run_cancel_lock", "SELECT status::text AS status, chat_id, lease_version FROM runs WHERE id = $1 FOR UPDATE");

const cancelLockRow = z.object({ status: z.enum(RunStatus), chat_id: z.string(), lease_version: z.number() });

/** Locks the run and reads what a cancel decides on; no row: no such run. */
export async function lockRunForCancel(runner: SqlRunner, runId: string): Promise<z.output<typeof cancelLockRow> | undefined> {
  const [row] = await queryParsed(runner, LOCK_FOR_CANCEL_SQL, [runId], cancelLockRow);
  return row;
}

const leaseVersionRow = z.object({ lease_version: z.number() });

/** Locks the run and reads its lease version (a failure or finish fenced by it); no row: no such run. */
export async function lockRunLeaseVersion(runner: SqlRunner, runId: string): Promise<z.output<typeof leaseVersionRow> | undefined> {
  const [row] = await queryParsed(runner, "SELECT lease_version FROM runs WHERE id = $1 FOR UPDATE", [runId], leaseVersionRow);
  return row;
}
