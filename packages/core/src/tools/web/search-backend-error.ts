import { AgentqError } from "../../errors/agentq-error.ts";

/** The search engine could not answer (unreachable, slow, bad response); web_search reports it to the model. */
export class SearchBackendError extends AgentqError {
  constructor(message: string, details?: Record<string, unknown>, options?: ErrorOptions) {
    super("search_backend_failed", message, details, options);
  }
}
