import { JobStatus } from "../store/generated/enums.ts";

export { JobStatus };

/** A job in any other status has ended and never runs again. */
export function isJobRunning(status: JobStatus): boolean {
  return status === JobStatus.running;
}
