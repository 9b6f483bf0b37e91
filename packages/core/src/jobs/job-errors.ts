import { ConflictError } from "../errors/agentq-error.ts";

/** A stop asked of a job that has already ended (API.md: `409 job_finished`). */
export class JobFinishedError extends ConflictError {
  constructor(jobId: string, status: string) {
    super("job_finished", `the job has already ended (${status}); there is nothing to stop`, { job_id: jobId, status });
  }
}
