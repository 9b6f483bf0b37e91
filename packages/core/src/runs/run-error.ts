import { AgentqError } from "../errors/agentq-error.ts";

/** Why a run failed (`run.error.code`, `run.failed` data): the loop's own reasons and the provider's. */
export type RunErrorCode =
  | "round_budget"
  | "token_budget"
  | "quota_exceeded"
  | "stream_timeout"
  | "model_unavailable"
  | "model_error"
  | "model_provider_error"
  | "model_provider_unreachable"
  | "model_provider_not_configured"
  | "internal_error";

export interface RunError {
  code: RunErrorCode;
  message: string;
}

/**
 * The run error for a failure of the model request: a provider's own code when it has one, the
 * given fallback otherwise. The one mapping from a thrown error to a run's error.
 */
export function runErrorOf(error: unknown, fallback: "model_unavailable" | "model_error"): RunError {
  const message = error instanceof Error ? error.message : String(error);
  if (error instanceof AgentqError) {
    switch (error.code) {
      case "stream_timeout":
      case "model_provider_error":
      case "model_provider_unreachable":
      case "model_provider_not_configured":
        return { code: error.code, message };
      default:
        return { code: fallback, message };
    }
  }
  return { code: fallback, message };
}
