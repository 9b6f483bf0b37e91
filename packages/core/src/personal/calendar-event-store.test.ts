import { describe, expect, it } from "vitest";
import { AgentqError } from "../errors/agentq-error.ts";
import { resolveEventTimes, windowBound } from "./calendar-event-store.ts";

const iso = (times: { start: Date; end: Date }) => [times.start.toISOString(), times.end.toISOString()];

describe("resolveEventTimes", () => {
  it("stores a timed event's offsets as UTC, an hour long by default", () => {
    expect(iso(resolveEventTimes({ starts_at: "2026-12-14T10:00:00+02:00", ends_at: "2026-12-14T10:45:00+02:00", all_day: false }))).toEqual([
      "2026-12-14T08:00:00.000Z",
      "2026-12-14T08:45:00.000Z",
    ]);
    expect(iso(resolveEventTimes({ starts_at: "2026-12-14T23:30:00-05:00", ends_at: undefined, all_day: false }))).toEqual([
      "2026-12-15T04:30:00.000Z",
      "2026-12-15T05:30:00.000Z",
    ]);
  });

  it("keeps a given length when only the start is given (a moved event)", () => {
    expect(iso(resolveEventTimes({ starts_at: "2026-12-14T10:00:00Z", ends_at: undefined, all_day: false, lengthMs: 90 * 60_000 }))[1]).toBe(
      "2026-12-14T11:30:00.000Z",
    );
  });

  it("runs an all-day event from midnight UTC of its date to midnight after its last day; an end not after the start is one day", () => {
    expect(iso(resolveEventTimes({ starts_at: "2026-12-24", ends_at: "2026-12-27", all_day: true }))).toEqual([
      "2026-12-24T00:00:00.000Z",
      "2026-12-27T00:00:00.000Z",
    ]);
    expect(iso(resolveEventTimes({ starts_at: "2026-12-24", ends_at: "2026-12-24", all_day: true }))[1]).toBe("2026-12-25T00:00:00.000Z");
    // A time given for an all-day event names its date as written, whatever the offset.
    expect(iso(resolveEventTimes({ starts_at: "2026-12-24T23:00:00-08:00", ends_at: undefined, all_day: true }))[0]).toBe("2026-12-24T00:00:00.000Z");
  });

  it("refuses an end before the start and a date alone for a timed event, naming the field", () => {
    const fieldOf = (run: () => unknown) => {
      try {
        run();
      } catch (error) {
        return error instanceof AgentqError ? error.details?.field : "not an AgentqError";
      }
      return "no error";
    };
    expect(fieldOf(() => resolveEventTimes({ starts_at: "2026-12-14T10:00:00Z", ends_at: "2026-12-14T09:59:59Z", all_day: false }))).toBe("ends_at");
    expect(fieldOf(() => resolveEventTimes({ starts_at: "2026-12-14", ends_at: undefined, all_day: false }))).toBe("starts_at");
    expect(fieldOf(() => resolveEventTimes({ starts_at: "2026-12-14T10:00:00Z", ends_at: "2026-12-15", all_day: false }))).toBe("ends_at");
  });

  it("reads a window bound given as a date as its midnight UTC", () => {
    expect(windowBound("2026-12-14").toISOString()).toBe("2026-12-14T00:00:00.000Z");
    expect(windowBound("2026-12-14T01:00:00+02:00").toISOString()).toBe("2026-12-13T23:00:00.000Z");
  });
});
