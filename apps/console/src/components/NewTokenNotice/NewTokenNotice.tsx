import { type ReactNode, useId } from "react";
import { Alert } from "../Alert/Alert.tsx";
import { Button } from "../Button/Button.tsx";
import { CopyButton } from "../CopyButton/CopyButton.tsx";
import styles from "./NewTokenNotice.module.css";

export interface NewTokenNoticeProps {
  /** The region's heading, which also names it ("alice (user) was created", "New token for alice"). */
  title: string;
  /** Who gets it and what else changed, in the warning that the token is shown once. */
  warning: ReactNode;
  token: string;
  onDone: () => void;
  /** What the secret is called on the buttons ("token", "signing secret"). Default "token". */
  secretName?: string;
}

/** A token (or another secret) just issued, shown once with a copy button: it cannot be read again. */
export function NewTokenNotice({ title, warning, token, onDone, secretName = "token" }: NewTokenNoticeProps) {
  const titleId = useId();
  return (
    <section className={styles.notice} aria-labelledby={titleId}>
      <h3 id={titleId} className={styles.title}>
        {title}
      </h3>
      <Alert tone="warning">{warning}</Alert>
      <div className={styles.tokenRow}>
        <code className={styles.token}>{token}</code>
        <CopyButton text={token} label={`Copy ${secretName}`} />
      </div>
      <Button size="small" variant="ghost" onClick={onDone}>
        Done, hide the {secretName}
      </Button>
    </section>
  );
}
