import { AgentqError } from "../../errors/agentq-error.ts";

/** A fetch that failed for a reason other than the SSRF guard (network, timeout, redirects, encoding). */
export class FetchFailedError extends AgentqError {
  constructor(message: string, details?: Record<string, unknown>, options?: ErrorOptions) {
    super("fetch_failed", message, details, options);
  }
}
