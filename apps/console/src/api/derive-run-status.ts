import type { RunEvent, RunStatus } from "./types.ts";

const TERMINAL_STATUSES: ReadonlySet<RunStatus> = new Set(["completed", "failed", "cancelled"]);

export function isTerminalStatus(status: RunStatus | undefined): boolean {
  return status !== undefined && TERMINAL_STATUSES.has(status);
}

export function isTerminalEvent(event: RunEvent): boolean {
  return event.type === "run.completed" || event.type === "run.failed" || event.type === "run.cancelled";
}

/**
 * The run's status after these events (in seq order), or undefined before the first one. A pause
 * ends when its last approval is decided: the run is queued again until a worker resumes it.
 */
export function deriveRunStatus(events: readonly RunEvent[]): RunStatus | undefined {
  let status: RunStatus | undefined;
  const pendingApprovals = new Set<string>();
  for (const event of events) {
    switch (event.type) {
      case "run.queued":
        status = "queued";
        break;
      case "run.started":
      case "run.resumed":
        status = "running";
        break;
      case "approval.required":
        pendingApprovals.add(String(event.data.approval_id));
        status = "awaiting_approval";
        break;
      case "approval.decided":
        pendingApprovals.delete(String(event.data.approval_id));
        if (status === "awaiting_approval" && pendingApprovals.size === 0) status = "queued";
        break;
      case "run.completed":
        status = "completed";
        break;
      case "run.failed":
        status = "failed";
        break;
      case "run.cancelled":
        status = "cancelled";
        break;
      default:
        break;
    }
  }
  return status;
}

const STATUS_LABELS: Record<RunStatus, string> = {
  queued: "queued",
  running: "running",
  awaiting_approval: "awaiting approval",
  completed: "completed",
  failed: "failed",
  cancelled: "cancelled",
};

/** The status as words ("awaiting approval"), for the "Status: …" text. */
export function statusLabel(status: RunStatus): string {
  return STATUS_LABELS[status] ?? status;
}
