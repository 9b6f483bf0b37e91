import { useId, useState } from "react";
import type { ToolCall } from "../../api/types.ts";
import { classNames } from "../../lib/class-names.ts";
import { callDetail } from "../../lib/format.ts";
import { Icon } from "../Icon/Icon.tsx";
import { JsonView } from "../JsonView/JsonView.tsx";
import { TruncatedText } from "../TruncatedText/TruncatedText.tsx";
import styles from "./ToolCallView.module.css";

export interface ToolCallViewProps {
  call: ToolCall;
  /** The tool message's content; undefined while the call has no answer yet. */
  result: string | null | undefined;
  defaultOpen?: boolean;
}

/** One tool call: its name and subject, and (collapsible) its arguments and result, as text. */
export function ToolCallView({ call, result, defaultOpen = true }: ToolCallViewProps) {
  const [open, setOpen] = useState(defaultOpen);
  const bodyId = useId();
  const detail = callDetail(call.arguments);
  return (
    <div className={styles.call}>
      <button type="button" className={styles.toggle} aria-expanded={open} aria-controls={bodyId} onClick={() => setOpen(!open)}>
        <Icon name="chevron" size={14} className={classNames(styles.chevron, open && styles.chevronOpen)} />
        <span className={styles.name}>{call.name}</span>
        {detail && <span className={styles.detail}>{detail}</span>}
        {result === undefined && <span className={styles.pending}>waiting</span>}
      </button>
      {open && (
        <div id={bodyId} className={styles.body}>
          <div className={styles.section}>
            <p className={styles.label}>Arguments</p>
            <JsonView value={call.arguments} />
          </div>
          {result !== undefined && (
            <div className={styles.section}>
              <p className={styles.label}>Result</p>
              <TruncatedText text={result ?? ""} />
            </div>
          )}
        </div>
      )}
    </div>
  );
}
