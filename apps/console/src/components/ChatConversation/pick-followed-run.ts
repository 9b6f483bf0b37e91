import { isTerminalStatus } from "../../api/derive-run-status.ts";
import type { Run } from "../../api/types.ts";

/**
 * The run the chat view follows live: the oldest one still queued, running or waiting (a queued
 * successor waits behind it), else the newest. `runs` is newest first, as the API lists them.
 */
export function pickFollowedRun(runs: readonly Run[] | undefined): Run | undefined {
  if (!runs || runs.length === 0) return undefined;
  const active = runs.filter((run) => !isTerminalStatus(run.status));
  return active.at(-1) ?? runs[0];
}
