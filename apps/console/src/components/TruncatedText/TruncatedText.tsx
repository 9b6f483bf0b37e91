import { useState } from "react";
import { classNames } from "../../lib/class-names.ts";
import styles from "./TruncatedText.module.css";

export interface TruncatedTextProps {
  text: string;
  /** Characters shown before "Show all". Default 1,500: a screenful of tool output. */
  limit?: number;
  /** Lines shown before "Show all". Default 20. */
  lineLimit?: number;
  className?: string;
}

function cut(text: string, limit: number, lineLimit: number): string | undefined {
  let end = Math.min(text.length, limit);
  let lines = 0;
  for (let index = 0; index < end; index++) {
    if (text.charCodeAt(index) === 10 && ++lines >= lineLimit) {
      end = index;
      break;
    }
  }
  return end < text.length ? text.slice(0, end) : undefined;
}

/** Long text (tool output) shown as text, cut with a "Show all" button. */
export function TruncatedText({ text, limit = 1500, lineLimit = 20, className }: TruncatedTextProps) {
  const [expanded, setExpanded] = useState(false);
  const shortened = cut(text, limit, lineLimit);
  return (
    <div className={classNames(styles.wrapper, className)}>
      <pre className={styles.text}>
        {expanded || shortened === undefined ? text : shortened}
        {!expanded && shortened !== undefined && <span className={styles.ellipsis}>…</span>}
      </pre>
      {shortened !== undefined && (
        <button type="button" className={styles.toggle} aria-expanded={expanded} onClick={() => setExpanded(!expanded)}>
          {expanded ? "Show less" : `Show all (${text.length.toLocaleString()} characters)`}
        </button>
      )}
    </div>
  );
}
