import { useId, useState } from "react";
import { errorMessage } from "../../api/api-error.ts";
import { isTerminalStatus } from "../../api/derive-run-status.ts";
import type { ConnectionState } from "../../api/run-event-stream.ts";
import type { Run, RunEvent, RunStatus } from "../../api/types.ts";
import { useCancelRun } from "../../api/use-runs.ts";
import { classNames } from "../../lib/class-names.ts";
import { formatDateTime } from "../../lib/format.ts";
import { Alert } from "../Alert/Alert.tsx";
import { Button } from "../Button/Button.tsx";
import { Icon } from "../Icon/Icon.tsx";
import { RunTimeline } from "../RunTimeline/RunTimeline.tsx";
import { StatusBadge } from "../StatusBadge/StatusBadge.tsx";
import styles from "./RunPanel.module.css";

export interface RunPanelProps {
  run: Run;
  status: RunStatus;
  events: readonly RunEvent[];
  connection: ConnectionState;
  streamError: string | null;
  /** On narrow screens the timeline starts folded. */
  timelineInitiallyOpen: boolean;
}

const CONNECTION_TEXT: Record<ConnectionState, string> = {
  connecting: "Connecting…",
  live: "Live",
  reconnecting: "Reconnecting…",
  closed: "",
};

function onOff(value: boolean | undefined): string | undefined {
  return value === undefined ? undefined : value ? "on" : "off";
}

/** The followed run: its status as text, what it was asked to do, Cancel, and the event timeline. */
export function RunPanel({ run, status, events, connection, streamError, timelineInitiallyOpen }: RunPanelProps) {
  const cancel = useCancelRun();
  const [timelineOpen, setTimelineOpen] = useState(timelineInitiallyOpen);
  const timelineId = useId();
  const active = !isTerminalStatus(status);
  const settings: [string, string | undefined][] = [
    ["Model", run.model],
    ["Mode", run.mode],
    ["Allow bash", onOff(run.allow_bash)],
    ["Use web", onOff(run.use_web)],
    ["Allow web search", onOff(run.allow_web_search)],
    ["Tools", run.tools ? run.tools.join(", ") : "all its switches allow"],
    ["Rounds", String(run.rounds)],
    ["Tool calls", String(run.tool_calls)],
    ["Started", formatDateTime(run.created_at)],
  ];

  return (
    <section className={classNames(styles.panel, timelineOpen && styles.expanded)} aria-labelledby={`${timelineId}-title`}>
      <div className={styles.header}>
        <h2 id={`${timelineId}-title`} className={styles.title}>
          Run <span className={styles.runId}>{run.id}</span>
        </h2>
        {active && (
          <Button size="small" variant="danger" busy={cancel.isPending} onClick={() => cancel.mutate(run.id)}>
            Cancel run
          </Button>
        )}
      </div>
      <div className={styles.statusRow}>
        <p role="status" className={styles.status}>
          <StatusBadge status={status} prefix="Status: " className={styles.badge} />
        </p>
        {active && connection !== "closed" && (
          <span className={classNames(styles.connection, connection === "live" && styles.connectionLive)}>{CONNECTION_TEXT[connection]}</span>
        )}
      </div>
      {cancel.isError && <Alert>{errorMessage(cancel.error)}</Alert>}
      {streamError && <Alert tone="warning">{streamError}</Alert>}
      {run.error && status === "failed" && <Alert title={run.error.code}>{run.error.message}</Alert>}
      {run.input !== undefined && (
        <p className={styles.input}>
          <span className={styles.inputLabel}>Asked: </span>
          {run.input.length > 200 ? `${run.input.slice(0, 200)}…` : run.input}
        </p>
      )}
      <dl className={styles.settings}>
        {settings
          .filter(([, value]) => value !== undefined && value !== "")
          .map(([name, value]) => (
            <div key={name} className={styles.setting}>
              <dt>{name}</dt>
              <dd>{value}</dd>
            </div>
          ))}
      </dl>
      <div className={styles.timelineHeader}>
        <button
          type="button"
          className={styles.timelineToggle}
          aria-expanded={timelineOpen}
          aria-controls={timelineId}
          onClick={() => setTimelineOpen(!timelineOpen)}
        >
          <Icon name="chevron" size={14} className={classNames(styles.chevron, timelineOpen && styles.chevronOpen)} />
          <span className={styles.toggleWide}>Timeline</span>
          <span className={styles.toggleNarrow}>Details and timeline</span>
          <span className={styles.eventCount}>{events.length}</span>
        </button>
      </div>
      <div id={timelineId} hidden={!timelineOpen}>
        <RunTimeline events={events} />
      </div>
    </section>
  );
}
