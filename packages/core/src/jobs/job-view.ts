import type { JobStatus } from "./job-status.ts";

/** A job as the database holds it (the columns the API and the tools show). */
export interface JobRecord {
  id: string;
  userId: string;
  workspaceId: string;
  runId: string | null;
  name: string;
  command: string;
  status: JobStatus;
  exitCode: number | null;
  ownerWorker: string;
  outputPath: string;
  startedAt: Date;
  endedAt: Date | null;
}

/** API.md's `Job`. */
export interface JobView {
  id: string;
  name: string;
  command: string;
  workspace_id: string;
  run_id: string | null;
  status: JobStatus;
  exit_code: number | null;
  started_at: string;
  ended_at: string | null;
}

export function toJobView(job: JobRecord): JobView {
  return {
    id: job.id,
    name: job.name,
    command: job.command,
    workspace_id: job.workspaceId,
    run_id: job.runId,
    status: job.status,
    exit_code: job.exitCode,
    started_at: job.startedAt.toISOString(),
    ended_at: job.endedAt?.toISOString() ?? null,
  };
}
