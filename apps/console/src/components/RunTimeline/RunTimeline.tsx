import type { RunEvent } from "../../api/types.ts";
import { classNames } from "../../lib/class-names.ts";
import { formatTime } from "../../lib/format.ts";
import { describeEvent } from "./describe-event.ts";
import styles from "./RunTimeline.module.css";

/** The run's durable events, one item each (rounds, tool calls, guards, approvals), oldest first. */
export function RunTimeline({ events }: { events: readonly RunEvent[] }) {
  if (events.length === 0) return <p className={styles.empty}>No events yet.</p>;
  return (
    <ol className={styles.timeline} aria-label="Run events">
      {events.map((event) => {
        const description = describeEvent(event);
        return (
          <li key={event.seq} className={styles.item} data-seq={event.seq} data-type={event.type}>
            <span className={classNames(styles.marker, styles[description.tone])} aria-hidden="true" />
            <span className={styles.text}>{description.text}</span>
            <time className={styles.time} dateTime={event.at}>
              {formatTime(event.at)}
            </time>
          </li>
        );
      })}
    </ol>
  );
}
