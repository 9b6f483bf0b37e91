// A worker frozen (SIGSTOP) past its lease while it drives a run: another worker takes the run over
// (the fencing version goes up); when the frozen one wakes, every write it tries is refused, so it
// cannot corrupt the run (docs/design.md invariant 2, run-lease.ts, store/run-statement.ts).
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { scenarioInput } from "@agentq/core/testing";
import { expectContiguous, startTestStack, type TestStack } from "./support/test-stack.ts";
import {
  aliveWorkers,
  createGate,
  GATED,
  expectWellFormedTranscript,
  holderOf,
  leaseOf,
  pidOfWorkerId,
  spawnReadyWorkers,
  startedCallIds,
  waitForStoredEvent,
  waitUntil,
} from "./faults-helpers.ts";

describe("a stale worker", () => {
  let stack: TestStack;

  beforeAll(async () => {
    stack = await startTestStack({ workers: 0, worker: { leaseMs: 3000 } });
    await spawnReadyWorkers(stack, 2);
  }, 240_000);
  afterAll(async () => {
    for (const child of stack?.processes ?? []) if (child.exitCode === null && child.signalCode === null) child.kill("SIGCONT");
    await stack?.close();
  });

  it("frozen past its lease: the run is taken over and completes, and the woken worker writes nothing", async () => {
    const workspaceId = await stack.createWorkspace();
    const chatId = await stack.createChat({ workspaceId });
    const runId = await stack.run(chatId, {
      input: scenarioInput([
        // A stream of several seconds: the frozen worker wakes with a whole answer to commit.
        { text: "Let me look at the files. ".repeat(20), chunkDelayMs: 50, tool: "list_files", args: {} },
        { text: "nothing there" },
      ]),
    });
    await waitForStoredEvent(stack, runId, "round.started");
    const stale = await holderOf(stack, runId, aliveWorkers(stack));
    const taken = await leaseOf(stack, runId);
    stale.kill("SIGSTOP");
    let staleEvents: number;
    try {
      // The premise: frozen mid-stream, before round 1's answer was committed (nobody else can
      // answer it before the frozen worker's 3 s lease runs out).
      expect((await stack.events(runId)).some((event) => event.type === "message.completed")).toBe(false);
      // The lease (3 s) runs out; the reconciler of the other worker re-enqueues the run, which it takes.
      const takeover = await waitUntil(
        "the run taken over by the other worker",
        async () => {
          const lease = await leaseOf(stack, runId);
          return lease.leaseVersion > taken.leaseVersion && lease.leaseOwner !== null ? lease : undefined;
        },
        60_000,
      );
      expect(pidOfWorkerId(takeover.leaseOwner!)).not.toBe(stale.pid);
      staleEvents = (await stack.events(runId)).length;
    } finally {
      stale.kill("SIGCONT");
    }

    const run = await stack.waitForRun(runId, undefined, 90_000);
    expect(run).toMatchObject({ status: "completed", output: "nothing there", rounds: 3, tool_calls: 1, error: null });
    // The woken worker noticed it lost the lease and dropped the run; it did not crash.
    expect(stale.exitCode).toBeNull();
    const events = await stack.events(runId);
    expectContiguous(events);
    expect(events.length).toBeGreaterThan(staleEvents);
    const types = events.map((event) => event.type);
    // Round 1 was answered once: by the worker that took over, not also by the woken one.
    expect(types.filter((type) => type === "message.completed")).toHaveLength(2);
    expect(types.filter((type) => type === "run.resumed")).toHaveLength(1);
    expect(types.filter((type) => type === "run.completed")).toHaveLength(1);
    const started = startedCallIds(events);
    expect(started).toHaveLength(1);
    const { callIds, messages } = await expectWellFormedTranscript(stack, chatId);
    expect(callIds).toEqual(started);
    expect(messages.map((message) => message.role)).toEqual(["user", "assistant", "tool", "assistant"]);
    const final = await leaseOf(stack, runId);
    expect(final.leaseVersion).toBeGreaterThan(taken.leaseVersion);
    expect(await stack.prisma.toolCall.count({ where: { runId } })).toBe(1);

    // The woken worker still works: a new run completes (on either worker).
    const nextChat = await stack.createChat();
    const nextRun = await stack.run(nextChat, { input: scenarioInput([{ text: "still fine" }]) });
    expect(await stack.waitForRun(nextRun, undefined, 60_000)).toMatchObject({ status: "completed", output: "still fine" });
  }, 180_000);

  it("frozen while its side-effecting command runs: the call is answered 'outcome unknown' once, and the woken worker stops its command", async () => {
    const workspaceId = await stack.createWorkspace();
    const { rootPath } = await stack.prisma.workspace.findUniqueOrThrow({ where: { id: workspaceId } });
    const gate = createGate(rootPath);
    const chatId = await stack.createChat({ workspaceId });
    try {
      const runId = await stack.run(chatId, {
        allow_bash: true,
        input: scenarioInput([{ tool: "run_command", args: { command: `${GATED} echo x >> count.txt` } }, { text: "over" }]),
      });
      await waitUntil("the command waiting on its gate", () => (gate.readers() > 0 ? true : undefined));
      const stale = await holderOf(stack, runId, aliveWorkers(stack));
      const taken = await leaseOf(stack, runId);
      stale.kill("SIGSTOP");
      try {
        const run = await stack.waitForRun(runId, undefined, 90_000);
        expect(run).toMatchObject({ status: "completed", output: "over", tool_calls: 1 });
      } finally {
        stale.kill("SIGCONT");
      }
      expect((await leaseOf(stack, runId)).leaseVersion).toBeGreaterThan(taken.leaseVersion);
      // Woken, it finds its lease gone and stops the command it started, with its whole group.
      await waitUntil("the stale worker's command stopped", () => (gate.readers() === 0 ? true : undefined));
      expect(stale.exitCode).toBeNull();
      expect((await stack.request("GET", `/api/workspaces/${workspaceId}/files/count.txt`)).status).toBe(404);

      const events = await stack.events(runId);
      expectContiguous(events);
      expect(events.at(-1)!.type).toBe("run.completed");
      const completed = events.filter((event) => event.type === "tool.completed");
      expect(completed).toHaveLength(1);
      expect(completed[0]!.data.error).toMatch(/outcome unknown/);
      expect(startedCallIds(events)).toHaveLength(1);
      await expectWellFormedTranscript(stack, chatId);
      // Nothing the woken worker tried afterwards reached Postgres.
      const lastSeq = events.at(-1)!.seq;
      const nextChat = await stack.createChat();
      const nextRun = await stack.run(nextChat, { input: scenarioInput([{ text: "still fine" }]) });
      expect(await stack.waitForRun(nextRun, undefined, 60_000)).toMatchObject({ status: "completed" });
      expect((await stack.prisma.run.findUniqueOrThrow({ where: { id: runId } })).lastEventSeq).toBe(lastSeq);
    } finally {
      gate.release(0);
    }
  }, 180_000);
});
