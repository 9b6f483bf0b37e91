import type { RunError } from "./run-error.ts";
/** How one execution of a run by a worker ended (the worker maps it to its job). */
export type RunOutcome =
  | { kind: "completed"; output: string }
  | { kind: "failed"; error: RunError }
  | { kind: "cancelled" }
  /** Waiting for a human: the run is a row in Postgres, no worker, no job (invariant 4). */
  | { kind: "parked"; approvalIds: string[] }
  /** The worker is shutting down: the run was released at a committed point for another worker. */
  | { kind: "handed_back" }
  /** Another worker took the run over; this one wrote nothing after noticing. */
  | { kind: "lease_lost" };

/** The result of one step of the loop, handled exhaustively by the driver. */
export type StepOutcome =
  | { kind: "next_round" }
  | { kind: "finished"; output: string }
  /** Leave the loop: `cancel` is finished by the driver (answers open calls, `run.cancelled`). */
  | { kind: "stop"; outcome: RunOutcome | "cancel" };

export function assertNever(value: never): never {
  throw new Error(`unhandled variant: ${JSON.stringify(value)}`);
}
