import { errorMessage } from "../../api/api-error.ts";
import { useJobOutput } from "../../api/use-jobs.ts";
import { Alert } from "../Alert/Alert.tsx";
import { Loading } from "../Loading/Loading.tsx";
import styles from "./JobOutput.module.css";

/** A job's output as text, refreshed while it runs. */
export function JobOutput({ jobId, running }: { jobId: string; running: boolean }) {
  const output = useJobOutput(jobId, running);
  if (output.isPending) return <Loading inline label="Loading output…" />;
  if (output.isError) return <Alert>{errorMessage(output.error)}</Alert>;
  const { output: text, complete, next_offset: nextOffset } = output.data;
  return (
    <div className={styles.wrapper}>
      <pre className={styles.output}>{text || (running ? "No output yet." : "The job wrote no output.")}</pre>
      {!complete && !running && <p className={styles.note}>Only the first {nextOffset.toLocaleString()} bytes are shown.</p>}
    </div>
  );
}
