import { useState } from "react";
import { errorMessage } from "../../api/api-error.ts";
import type { Job, JobStatus } from "../../api/types.ts";
import { useJobs, useStopJob } from "../../api/use-jobs.ts";
import { Alert } from "../../components/Alert/Alert.tsx";
import { Badge, type BadgeTone } from "../../components/Badge/Badge.tsx";
import { Button } from "../../components/Button/Button.tsx";
import { EmptyState } from "../../components/EmptyState/EmptyState.tsx";
import { JobOutput } from "../../components/JobOutput/JobOutput.tsx";
import { Loading } from "../../components/Loading/Loading.tsx";
import { PageHeader } from "../../components/PageHeader/PageHeader.tsx";
import { formatDateTime } from "../../lib/format.ts";
import styles from "./JobsPage.module.css";

const STATUS_TONES: Record<JobStatus, BadgeTone> = {
  running: "accent",
  exited: "success",
  stopped: "neutral",
  timed_out: "warning",
  lost: "danger",
};

/** Background jobs that runs started (start_job): status, output, Stop. */
export function JobsPage() {
  const jobs = useJobs();
  const stop = useStopJob();
  const [openJob, setOpenJob] = useState<string | null>(null);

  return (
    <div className={styles.page}>
      <PageHeader title="Jobs" description="Commands your runs started in the background, in their workspace's sandbox." />
      {jobs.isPending && <Loading label="Loading jobs…" />}
      {jobs.isError && <Alert>{errorMessage(jobs.error)}</Alert>}
      {stop.isError && <Alert>{errorMessage(stop.error)}</Alert>}
      {jobs.isSuccess && jobs.data.length === 0 && (
        <EmptyState title="No jobs yet">When a run starts a background command (start_job, with Allow bash on), it is listed here.</EmptyState>
      )}
      {jobs.isSuccess && jobs.data.length > 0 && (
        <ul className={styles.list} aria-label="Jobs">
          {jobs.data.map((job: Job) => (
            <li key={job.id} className={styles.job}>
              <div className={styles.row}>
                <div className={styles.titles}>
                  <span className={styles.name}>{job.name || job.id}</span>
                  <code className={styles.command}>{job.command}</code>
                </div>
                <Badge tone={STATUS_TONES[job.status] ?? "neutral"}>
                  {job.status.replace("_", " ")}
                  {job.exit_code !== null ? ` · exit ${job.exit_code}` : ""}
                </Badge>
              </div>
              <p className={styles.meta}>
                Started {formatDateTime(job.started_at)}
                {job.ended_at ? ` · ended ${formatDateTime(job.ended_at)}` : ""}
              </p>
              <div className={styles.actions}>
                <Button size="small" aria-expanded={openJob === job.id} onClick={() => setOpenJob(openJob === job.id ? null : job.id)}>
                  {openJob === job.id ? "Hide output" : "Show output"}
                </Button>
                {job.status === "running" && (
                  <Button size="small" variant="danger" busy={stop.isPending && stop.variables === job.id} onClick={() => stop.mutate(job.id)}>
                    Stop
                  </Button>
                )}
              </div>
              {openJob === job.id && <JobOutput jobId={job.id} running={job.status === "running"} />}
            </li>
          ))}
        </ul>
      )}
    </div>
  );
}
