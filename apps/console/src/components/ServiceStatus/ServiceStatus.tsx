import { errorMessage } from "../../api/api-error.ts";
import { useOpenQueueBoard, useServices } from "../../api/use-administration.ts";
import { Button } from "../Button/Button.tsx";
import { formatDateTime, formatRelative } from "../../lib/format.ts";
import { Alert } from "../Alert/Alert.tsx";
import { Loading } from "../Loading/Loading.tsx";
import { DataTable } from "../DataTable/DataTable.tsx";
import styles from "./ServiceStatus.module.css";

const count = (value: number | null) => (value === null ? "—" : String(value));

/** What the deployment is doing now: runs and the queue by state, the workers, the sandbox. */
export function ServiceStatus() {
  const services = useServices();
  const openBoard = useOpenQueueBoard();
  if (services.isPending) return <Loading label="Loading services…" />;
  if (services.isError) return <Alert>{errorMessage(services.error)}</Alert>;
  const { workers, queue, runs, jobs, sandbox } = services.data;
  const figures = [
    { label: "Runs queued", value: runs.queued },
    { label: "Runs running", value: runs.running },
    { label: "Awaiting approval", value: runs.awaiting_approval },
    { label: "Jobs running", value: jobs.running },
    { label: "Queue waiting", value: queue.waiting },
    { label: "Queue active", value: queue.active },
    { label: "Queue delayed", value: queue.delayed },
    { label: "Queue failed", value: queue.failed },
  ];
  return (
    <div className={styles.wrapper}>
      <dl className={styles.figures} aria-label="Service figures">
        {figures.map((figure) => (
          <div key={figure.label} className={styles.figure}>
            <dt>{figure.label}</dt>
            <dd>{count(figure.value)}</dd>
          </div>
        ))}
      </dl>
      {queue.error && <Alert>{queue.error}</Alert>}
      {openBoard.isError && <Alert>{errorMessage(openBoard.error)}</Alert>}
      <div>
        <Button onClick={() => openBoard.mutate()} disabled={openBoard.isPending}>
          Open the queue board
        </Button>
      </div>
      <p className={styles.sandbox}>
        {sandbox.available ? "Process sandbox: available on the API's host." : `Process sandbox: not available (${sandbox.reason ?? "no reason given"}).`}
      </p>
      <DataTable caption="Workers" columns={["Worker", "Host", "Runs", "Started", "Last seen"]}>
        {workers.length === 0 && (
          <tr>
            <td colSpan={5}>No worker has reported in the last 30 seconds: runs wait in the queue until one starts.</td>
          </tr>
        )}
        {workers.map((worker) => (
          <tr key={worker.id}>
            <td className={styles.mono}>{worker.id}</td>
            <td>{worker.host}</td>
            <td>
              {worker.active_runs} / {worker.concurrency}
            </td>
            <td>{formatDateTime(worker.started_at)}</td>
            <td>{formatRelative(worker.last_seen_at)}</td>
          </tr>
        ))}
      </DataTable>
    </div>
  );
}
