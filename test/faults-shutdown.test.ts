// Graceful shutdown (SIGTERM): a worker stops taking runs, brings each run it drives to its next
// committed point, hands it back, and exits 0; another worker continues without repeating anything.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { scenarioInput } from "@agentq/core/testing";
import { expectContiguous, startTestStack, type TestStack } from "./support/test-stack.ts";
import {
  aliveWorkers,
  createGate,
  exited,
  GATED,
  expectWellFormedTranscript,
  holderOf,
  queueEvents,
  spawnReadyWorkers,
  startedCallIds,
  waitForStoredEvent,
  waitUntil,
} from "./faults-helpers.ts";

/** Generous: a hand-back waits for the round in flight, and the machine may be loaded. */
const SHUTDOWN_GRACE_MS = 20_000;

describe("graceful shutdown of a worker", () => {
  let stack: TestStack;

  beforeAll(async () => {
    stack = await startTestStack({ workers: 0, worker: { shutdownGraceMs: SHUTDOWN_GRACE_MS } });
    await spawnReadyWorkers(stack, 2);
  }, 240_000);
  afterAll(async () => {
    await stack?.close();
  });

  it("SIGTERM mid-run: the worker exits 0, the run is handed back and completes elsewhere, nothing is repeated", async () => {
    const workspaceId = await stack.createWorkspace();
    const chatId = await stack.createChat({ workspaceId });
    // Five rounds streamed in about half a second each, and the model holds round 2's answer until
    // the signal is sent (once round 1's tool has completed): it lands mid-run whatever the timing.
    const slow = { text: "Listing the workspace again.", chunkDelayMs: 60 };
    const runId = await stack.run(chatId, {
      input: scenarioInput([
        { ...slow, tool: "list_files", args: { path: "." } },
        { ...slow, tool: "list_files", args: {}, holdUntil: "shutdown-mid-run" },
        { ...slow, tool: "search_files", args: { query: "nothing" } },
        { ...slow, tool: "search_files", args: { query: "still nothing" } },
        { text: "all listed" },
      ]),
    });
    await waitForStoredEvent(stack, runId, "tool.completed");
    const holder = await holderOf(stack, runId, aliveWorkers(stack));
    const signalledAt = Date.now();
    holder.kill("SIGTERM");
    stack.provider.release("shutdown-mid-run");
    const exit = await exited(holder, SHUTDOWN_GRACE_MS + 20_000);
    expect(exit).toEqual({ code: 0, signal: null });
    expect(Date.now() - signalledAt).toBeLessThan(SHUTDOWN_GRACE_MS);

    const run = await stack.waitForRun(runId, undefined, 90_000);
    expect(run).toMatchObject({ status: "completed", output: "all listed", rounds: 5, tool_calls: 4, error: null });
    const events = await stack.events(runId);
    expectContiguous(events);
    const types = events.map((event) => event.type);
    // Handed back once, at a committed point: no model round and no tool call was done twice.
    expect(events.filter((event) => event.type === "run.resumed").map((event) => event.data.reason)).toEqual(["recovered"]);
    expect(types.filter((type) => type === "round.started")).toHaveLength(5);
    expect(types.filter((type) => type === "message.completed")).toHaveLength(5);
    const started = startedCallIds(events);
    expect(started).toHaveLength(4);
    expect(new Set(started).size).toBe(4);
    const { callIds } = await expectWellFormedTranscript(stack, chatId);
    expect([...callIds].sort()).toEqual([...started].sort());
    // The hand-back is not a failure: BullMQ recorded no failed attempt for any job.
    const queued = await queueEvents(stack.workerConfig.redisUrl, stack.workerConfig.queuePrefix);
    expect(queued.filter((entry) => entry.event === "failed" || entry.event === "retries-exhausted")).toEqual([]);
    expect(queued.some((entry) => entry.event === "completed")).toBe(true);
  }, 180_000);

  it("SIGTERM while a command runs: the worker lets it finish, records its result once, then hands the run back", async () => {
    // The survivor of the previous test is the only worker process: it takes this run.
    const [worker] = aliveWorkers(stack);
    const workspaceId = await stack.createWorkspace();
    const { rootPath } = await stack.prisma.workspace.findUniqueOrThrow({ where: { id: workspaceId } });
    const gate = createGate(rootPath);
    const chatId = await stack.createChat({ workspaceId });
    try {
      const runId = await stack.run(chatId, {
        allow_bash: true,
        input: scenarioInput([{ tool: "run_command", args: { command: `${GATED} echo x >> count.txt; echo appended` } }, { text: "done" }]),
      });
      await waitUntil("the command waiting on its gate", () => (gate.readers() > 0 ? true : undefined));
      expect((await holderOf(stack, runId, [worker!])).pid).toBe(worker!.pid);
      worker!.kill("SIGTERM");
      // The worker is stopping, not killing: the command is still there to finish.
      expect(gate.release()).toBe(true);
      expect(await exited(worker!, SHUTDOWN_GRACE_MS + 20_000)).toEqual({ code: 0, signal: null });
      const afterExit = await stack.events(runId);
      expect(afterExit.filter((event) => event.type === "tool.completed").map((event) => event.data.ok)).toEqual([true]);
      expect((await stack.getRun(runId)).status).toBe("running");

      const successor = await stack.startWorker();
      try {
        expect(await stack.waitForRun(runId, undefined, 60_000)).toMatchObject({ status: "completed", output: "done", tool_calls: 1 });
      } finally {
        await successor.close();
      }
      const events = await stack.events(runId);
      expectContiguous(events);
      expect(startedCallIds(events)).toHaveLength(1);
      const completed = events.filter((event) => event.type === "tool.completed");
      expect(completed).toHaveLength(1);
      expect(completed[0]!.data.result).toContain("appended");
      const file = await stack.request("GET", `/api/workspaces/${workspaceId}/files/count.txt`);
      expect(file.body.content).toBe("x\n");
      await expectWellFormedTranscript(stack, chatId);
    } finally {
      gate.release(0);
    }
  }, 180_000);

  it("SIGTERM past the grace period: the command is stopped, the call answered once, the run handed back", async () => {
    const graceMs = 2000;
    const [worker] = await spawnReadyWorkers(stack, 1, { SHUTDOWN_GRACE_MS: String(graceMs) });
    const workspaceId = await stack.createWorkspace();
    const { rootPath } = await stack.prisma.workspace.findUniqueOrThrow({ where: { id: workspaceId } });
    const gate = createGate(rootPath);
    const chatId = await stack.createChat({ workspaceId });
    try {
      const runId = await stack.run(chatId, {
        allow_bash: true,
        input: scenarioInput([{ tool: "run_command", args: { command: `${GATED} echo x >> count.txt` } }, { text: "done" }]),
      });
      await waitUntil("the command waiting on its gate", () => (gate.readers() > 0 ? true : undefined));
      const signalledAt = Date.now();
      worker!.kill("SIGTERM");
      expect(await exited(worker!, 60_000)).toEqual({ code: 0, signal: null });
      // It waited for the grace period, then stopped the command with everything it started.
      expect(Date.now() - signalledAt).toBeGreaterThanOrEqual(graceMs);
      expect(gate.readers()).toBe(0);
      const afterExit = await stack.events(runId);
      const completed = afterExit.filter((event) => event.type === "tool.completed");
      expect(completed).toHaveLength(1);
      expect(completed[0]!.data).toMatchObject({ tool: "run_command", ok: false });
      expect(completed[0]!.data.error).toMatch(/cancelled/);

      const successor = await stack.startWorker();
      try {
        expect(await stack.waitForRun(runId, undefined, 60_000)).toMatchObject({ status: "completed", output: "done", tool_calls: 1 });
      } finally {
        await successor.close();
      }
      const events = await stack.events(runId);
      expectContiguous(events);
      expect(startedCallIds(events)).toHaveLength(1);
      expect(events.filter((event) => event.type === "tool.completed")).toHaveLength(1);
      expect((await stack.request("GET", `/api/workspaces/${workspaceId}/files/count.txt`)).status).toBe(404);
      await expectWellFormedTranscript(stack, chatId);
    } finally {
      gate.release(0);
    }
  }, 180_000);
});
