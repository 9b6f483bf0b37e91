import { describe, expect, it } from "vitest";
import { deriveRunStatus } from "./derive-run-status.ts";
import type { RunEvent } from "./types.ts";

function events(...items: [string, Record<string, unknown>?][]): RunEvent[] {
  return items.map(([type, data], index) => ({ seq: index + 1, type, at: "2026-01-01T00:00:00.000Z", data: data ?? {} }));
}

describe("deriveRunStatus", () => {
  it("is undefined before any event", () => {
    expect(deriveRunStatus([])).toBeUndefined();
  });

  it("follows a run from queued to completed", () => {
    expect(deriveRunStatus(events(["run.queued"]))).toBe("queued");
    expect(deriveRunStatus(events(["run.queued"], ["run.started"], ["round.started"]))).toBe("running");
    expect(deriveRunStatus(events(["run.queued"], ["run.started"], ["run.completed"]))).toBe("completed");
  });

  it("stays awaiting approval until the last approval of the pause is decided, then is queued until resumed", () => {
    const paused = events(
      ["run.queued"],
      ["run.started"],
      ["approval.required", { approval_id: "a1" }],
      ["approval.required", { approval_id: "a2" }],
      ["approval.decided", { approval_id: "a1" }],
    );
    expect(deriveRunStatus(paused)).toBe("awaiting_approval");
    const decided = [...paused, { seq: 6, type: "approval.decided", at: "", data: { approval_id: "a2" } }];
    expect(deriveRunStatus(decided)).toBe("queued");
    expect(deriveRunStatus([...decided, { seq: 7, type: "run.resumed", at: "", data: {} }])).toBe("running");
  });

  it("ends failed or cancelled", () => {
    expect(deriveRunStatus(events(["run.queued"], ["run.failed"]))).toBe("failed");
    expect(deriveRunStatus(events(["run.queued"], ["run.cancelled"]))).toBe("cancelled");
  });
});
