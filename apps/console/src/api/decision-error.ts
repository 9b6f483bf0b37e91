import { ApiError, errorMessage } from "./api-error.ts";

/** A refused approval decision, in words a person can act on (API.md "Approvals"). */
export function describeDecisionError(error: unknown): string {
  if (!(error instanceof ApiError)) return errorMessage(error);
  switch (error.code) {
    case "approval_stale":
      return "The file changed since this call was proposed, so it cannot be allowed as it stands: it was not run. Deny it (the model is told and can look at the file again), or cancel the run.";
    case "approval_expired":
      return "This approval expired before it was decided. The call was not run.";
    case "approval_already_decided":
      return "This approval was already decided (perhaps in another tab, or by an earlier allow that covered it).";
    case "run_finished":
      return "The run has already finished or was cancelled, so this call can no longer be decided.";
    case "not_found":
      return "This approval no longer exists, or it is not yours.";
    default:
      return error.message;
  }
}

/** Starting a run refused: a run in progress is said in words, with what to do about it. */
export function describeRunStartError(error: unknown): string {
  if (error instanceof ApiError && error.code === "run_in_progress") {
    return "A run is already in progress in this chat. Wait for it to finish, cancel it, or choose to queue the message or interrupt the run.";
  }
  if (error instanceof ApiError && error.code === "quota_exceeded") return `You have reached a usage limit: ${error.message}`;
  return errorMessage(error);
}
