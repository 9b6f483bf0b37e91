import { prettyJson } from "../../lib/format.ts";
import styles from "./JsonView.module.css";

export interface JsonViewProps {
  value: unknown;
  /** With a summary, the JSON is collapsible (closed unless `open`). */
  summary?: string;
  open?: boolean;
}

/** Pretty JSON as text (never markup), optionally behind a disclosure. */
export function JsonView({ value, summary, open = false }: JsonViewProps) {
  const text = <pre className={styles.json}>{prettyJson(value)}</pre>;
  if (summary === undefined) return text;
  return (
    <details className={styles.details} open={open}>
      <summary className={styles.summary}>{summary}</summary>
      {text}
    </details>
  );
}
