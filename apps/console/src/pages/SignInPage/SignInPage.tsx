import { type FormEvent, useState } from "react";
import { errorMessage } from "../../api/api-error.ts";
import { whoIs } from "../../api/client.ts";
import { sessionEndedBy } from "../../api/token-store.ts";
import { useSignIn } from "../../api/use-session.ts";
import { Alert } from "../../components/Alert/Alert.tsx";
import { Button } from "../../components/Button/Button.tsx";
import { TextField } from "../../components/Form/TextField.tsx";
import styles from "./SignInPage.module.css";

export function SignInPage() {
  const signIn = useSignIn();
  const [token, setToken] = useState("");
  const [error, setError] = useState<string | null>(null);
  const [checking, setChecking] = useState(false);

  async function submit(event: FormEvent<HTMLFormElement>) {
    event.preventDefault();
    const candidate = token.trim();
    if (!candidate) {
      setError("Paste your API token first.");
      return;
    }
    setChecking(true);
    setError(null);
    try {
      const me = await whoIs(candidate);
      if (me === null) setError("That token was not accepted. Check that you copied all of it, or ask an admin for a new one.");
      else signIn(candidate);
    } catch (failure) {
      setError(errorMessage(failure));
    } finally {
      setChecking(false);
    }
  }

  return (
    <main className={styles.page}>
      <div className={styles.card}>
        <div className={styles.brand}>
          <span className={styles.logo} aria-hidden="true">
            a
          </span>
          agentq
        </div>
        <h1 className={styles.title}>Sign in to the console</h1>
        <p className={styles.lead}>
          Use the API token you were given. The admin token is printed by <code>npm start</code> the first time it runs.
        </p>
        {sessionEndedBy() === "refused" && (
          <Alert tone="info" className={styles.notice}>
            Your session ended: the API no longer accepts that token. Sign in again with a current one.
          </Alert>
        )}
        <form className={styles.form} onSubmit={submit} noValidate>
          <TextField
            label="API token"
            type="password"
            autoComplete="current-password"
            spellCheck={false}
            value={token}
            onChange={(event) => setToken(event.target.value)}
            error={error}
            hint="Kept in this tab only, until you sign out or close it."
            autoFocus
          />
          <Button type="submit" variant="primary" busy={checking} className={styles.submit}>
            Sign in
          </Button>
        </form>
      </div>
    </main>
  );
}
