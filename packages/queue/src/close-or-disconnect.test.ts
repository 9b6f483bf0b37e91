import { describe, expect, it } from "vitest";
import { closeOrDisconnect } from "./close-or-disconnect.ts";

/** A logger that keeps what it was given. */
function recordingLogger() {
  const lines: { level: "debug" | "warn"; fields: Record<string, unknown>; message: string }[] = [];
  return {
    lines,
    debug: (fields: Record<string, unknown>, message: string) => void lines.push({ level: "debug", fields, message }),
    warn: (fields: Record<string, unknown>, message: string) => void lines.push({ level: "warn", fields, message }),
  };
}

describe("closeOrDisconnect", () => {
  it("a close that finishes in time is not disconnected, and its time is logged at debug", async () => {
    const logger = recordingLogger();
    let disconnected = false;
    await closeOrDisconnect({ name: "agentq-api-queue", close: async () => "OK", disconnect: () => (disconnected = true) }, { logger, timeoutMs: 1000 });
    expect(disconnected).toBe(false);
    expect(logger.lines).toEqual([
      { level: "debug", fields: { step: "agentq-api-queue", elapsed_ms: expect.any(Number) }, message: "closed agentq-api-queue" },
    ]);
  });

  it("a close that never finishes is disconnected once the timeout passes, with a warning naming the step", async () => {
    const logger = recordingLogger();
    let disconnected = false;
    const startedAt = Date.now();
    await closeOrDisconnect(
      { name: "run jobs (BullMQ worker)", close: () => new Promise(() => undefined), disconnect: () => (disconnected = true) },
      { logger, timeoutMs: 20 },
    );
    expect(Date.now() - startedAt).toBeLessThan(1000);
    expect(disconnected).toBe(true);
    expect(logger.lines).toEqual([
      {
        level: "warn",
        fields: { step: "run jobs (BullMQ worker)", timeout_ms: 20 },
        message: "run jobs (BullMQ worker) did not close within 20 ms; disconnecting it",
      },
    ]);
  });

  it("a close that fails is disconnected and never rejects; a step without a disconnect is given up on", async () => {
    const logger = recordingLogger();
    let disconnected = false;
    const refused = new Error("Connection is closed.");
    await closeOrDisconnect({ name: "agentq-worker-control", close: () => Promise.reject(refused), disconnect: () => (disconnected = true) }, { logger });
    expect(disconnected).toBe(true);
    expect(logger.lines[0]).toMatchObject({ level: "warn", fields: { step: "agentq-worker-control", err: refused } });
    await closeOrDisconnect({ name: "run queue", close: () => new Promise(() => undefined) }, { logger, timeoutMs: 5 });
    expect(logger.lines[1]?.message).toBe("run queue did not close within 5 ms; going on without it");
  });
});
