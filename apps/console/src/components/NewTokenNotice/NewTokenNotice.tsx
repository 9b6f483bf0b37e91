import { useId } from "react";
import { Alert } from "../Alert/Alert.tsx";
import { Button } from "../Button/Button.tsx";
import { CopyButton } from "../CopyButton/CopyButton.tsx";
import styles from "./NewTokenNotice.module.css";

/** A token just issued for `name`, shown once with a copy button: only its hash is stored. */
export function NewTokenNotice({ name, token, onDone }: { name: string; token: string; onDone: () => void }) {
  const titleId = useId();
  return (
    <section className={styles.notice} aria-labelledby={titleId}>
      <h3 id={titleId} className={styles.title}>
        New token for {name}
      </h3>
      <Alert tone="warning">This token is shown only once, and {name}'s previous token no longer works. Copy it now: it cannot be shown again.</Alert>
      <div className={styles.tokenRow}>
        <code className={styles.token}>{token}</code>
        <CopyButton text={token} label="Copy token" />
      </div>
      <Button size="small" variant="ghost" onClick={onDone}>
        Done, hide the token
      </Button>
    </section>
  );
}
