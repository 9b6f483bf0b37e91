import { Component, type ErrorInfo, type ReactNode } from "react";
import { errorMessage } from "../../api/api-error.ts";
import { CodeLoadError } from "../../lib/load-code.ts";
import { Button } from "../Button/Button.tsx";
import styles from "./ErrorBoundary.module.css";

/**
 * What a page shows instead of itself when it fails: the reason in a sentence, never a stack trace.
 * A page whose file could not be fetched offers only the reload: trying again in the tab cannot help.
 */
export function PageError({ error, onRetry }: { error: unknown; onRetry?: () => void }) {
  const retry = error instanceof CodeLoadError ? undefined : onRetry;
  return (
    <div role="alert" className={styles.error}>
      <h1 className={styles.title}>This page ran into a problem</h1>
      <p className={styles.message}>{errorMessage(error)}</p>
      <div className={styles.actions}>
        {retry && (
          <Button variant="primary" onClick={retry}>
            Try again
          </Button>
        )}
        <Button variant={retry ? "secondary" : "primary"} onClick={() => window.location.reload()}>
          Reload the page
        </Button>
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
