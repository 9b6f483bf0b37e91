import { Component, type ErrorInfo, type ReactNode } from "react";
import { errorMessage } from "../../api/api-error.ts";
import { Button } from "../Button/Button.tsx";
import styles from "./ErrorBoundary.module.css";

/** What a page shows instead of itself when it fails: the reason in a sentence, never a stack trace. */
export function PageError({ error, onRetry }: { error: unknown; onRetry?: () => void }) {
  return (
    <div role="alert" className={styles.error}>
      <h1 className={styles.title}>This page ran into a problem</h1>
      <p className={styles.message}>{errorMessage(error)}</p>
      <div className={styles.actions}>
        {onRetry && (
          <Button variant="primary" onClick={onRetry}>
            Try again
          </Button>
        )}
        <Button onClick={() => window.location.reload()}>Reload the page</Button>
      </div>
    </div>
  );
}

interface ErrorBoundaryState {
  error: unknown;
}

/** Catches a page's rendering errors so the rest of the console (navigation, header) stays usable. */
export class ErrorBoundary extends Component<{ children: ReactNode }, ErrorBoundaryState> {
  override state: ErrorBoundaryState = { error: undefined };

  static getDerivedStateFromError(error: unknown): ErrorBoundaryState {
    return { error: error ?? new Error("Unknown error") };
  }

  override componentDidCatch(error: unknown, info: ErrorInfo): void {
    // For the developer console only; the person sees PageError.
    console.error("page error", error, info.componentStack);
  }

  override render(): ReactNode {
    if (this.state.error !== undefined) return <PageError error={this.state.error} onRetry={() => this.setState({ error: undefined })} />;
    return this.props.children;
  }
}
