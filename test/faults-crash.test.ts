// A worker process killed (SIGKILL) at the worst instants: mid-stream, mid side-effecting tool,
// mid read-only tool. Another worker continues from what Postgres says (docs/design.md invariants 2, 3).
import pg from "pg";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { scenarioInput } from "@agentq/core/testing";
import { expectContiguous, startTestStack, type TestStack } from "./support/test-stack.ts";
import {
  aliveWorkers,
  crash,
  createGate,
  GATED,
  expectWellFormedTranscript,
  holderOf,
  leaseOf,
  spawnReadyWorkers,
  startedCallIds,
  waitForStoredEvent,
  waitUntil,
} from "./faults-helpers.ts";

describe("a worker killed mid-run", () => {
  let stack: TestStack;

  beforeAll(async () => {
    stack = await startTestStack({ workers: 0 });
    // Started once for the file (a tsx worker takes long to boot on a loaded machine): each test
    // kills one, and at least two stay for the next.
    await spawnReadyWorkers(stack, 4);
  }, 240_000);
  afterAll(async () => {
    await stack?.close();
  });

  it("killed while the model streams: another worker redoes the round and the run completes", async () => {
    const workspaceId = await stack.createWorkspace();
    const chatId = await stack.createChat({ workspaceId });
    const runId = await stack.run(chatId, {
      input: scenarioInput([
        // The stream stops after a few events until the test lets it go on: the worker dies in the
        // middle of it, whatever the machine's load, and the round redone after it streams at once.
        { text: "I will list the files now. ".repeat(30), stallAfterEvents: 5, stallUntil: "mid-stream-crash", tool: "list_files", args: {} },
        { text: "the workspace is empty" },
      ]),
    });
    await waitForStoredEvent(stack, runId, "round.started");
    const holder = await holderOf(stack, runId, aliveWorkers(stack));
    const takenAt = await leaseOf(stack, runId);
    await crash(holder);
    // The crash came before the round's answer was committed.
    expect((await stack.events(runId)).some((event) => event.type === "message.completed")).toBe(false);
    stack.provider.release("mid-stream-crash");

    const run = await stack.waitForRun(runId, undefined, 90_000);
    expect(run).toMatchObject({ status: "completed", output: "the workspace is empty", tool_calls: 1, error: null });
    expect((await leaseOf(stack, runId)).leaseVersion).toBeGreaterThan(takenAt.leaseVersion);

    const events = await stack.events(runId);
    expectContiguous(events);
    const types = events.map((event) => event.type);
    expect(types.filter((type) => type === "run.started")).toHaveLength(1);
    expect(types.filter((type) => type === "run.resumed")).toHaveLength(1);
    expect(types.filter((type) => type === "message.completed")).toHaveLength(2);
    expect(types.at(-1)).toBe("run.completed");
    const { callIds } = await expectWellFormedTranscript(stack, chatId);
    expect(callIds).toHaveLength(1);
    expect(startedCallIds(events)).toEqual(callIds);
  }, 180_000);

  it("killed while a side-effecting command runs: the call is answered 'outcome unknown' and never run again", async () => {
    const workspaceId = await stack.createWorkspace();
    const { rootPath } = await stack.prisma.workspace.findUniqueOrThrow({ where: { id: workspaceId } });
    // The command waits on a FIFO the test opens when it chooses: the kill lands inside the
    // command whatever the machine's load, and the test decides when the orphan may finish.
    const gate = createGate(rootPath);
    const chatId = await stack.createChat({ workspaceId });
    try {
      const runId = await stack.run(chatId, {
        allow_bash: true,
        input: scenarioInput([{ tool: "run_command", args: { command: `${GATED} echo x >> count.txt` } }, { text: "appended" }]),
      });
      const started = await waitForStoredEvent(stack, runId, "tool.started");
      const holder = await holderOf(stack, runId, aliveWorkers(stack));
      // Kill once the command is really running (blocked on the gate), not merely recorded as started.
      await waitUntil("the command waiting on its gate", () => (gate.readers() > 0 ? true : undefined));
      await crash(holder);
      expect((await stack.events(runId)).some((event) => event.type === "tool.completed")).toBe(false);

      const run = await stack.waitForRun(runId, undefined, 90_000);
      expect(run).toMatchObject({ status: "completed", output: "appended", tool_calls: 1 });
      const events = await stack.events(runId);
      expectContiguous(events);
      const callId = started.data.tool_call_id as string;
      expect(startedCallIds(events)).toEqual([callId]);
      const completed = events.filter((event) => event.type === "tool.completed");
      expect(completed).toHaveLength(1);
      expect(completed[0]!.data).toMatchObject({ tool_call_id: callId, tool: "run_command", ok: false });
      expect(completed[0]!.data.error).toMatch(/outcome unknown/);
      const row = await stack.prisma.toolCall.findFirstOrThrow({ where: { runId, callId } });
      expect(row).toMatchObject({ status: "completed", attempts: 1, ok: false });
      await expectWellFormedTranscript(stack, chatId);

      // The killed worker's command died with it (the sandbox dies with its parent, docs/design.md
      // invariant 10), blocked before its effect: the effect happened no time at all, and the
      // call was never run a second time.
      await waitUntil("the killed worker's command gone", () => (gate.readers() === 0 ? true : undefined));
      expect((await stack.request("GET", `/api/workspaces/${workspaceId}/files/count.txt`)).status).toBe(404);
    } finally {
      gate.release(0);
    }
  }, 180_000);

  it("killed while a read-only tool runs: the call is run again and answered normally", async () => {
    const workspaceId = await stack.createWorkspace();
    await stack.putFile(workspaceId, "a.txt", "alpha beta\n");
    const chatId = await stack.createChat({ workspaceId });
    // read_file's record of the read commits with its result, the first commit of the run that writes
    // run_file_reads: a lock on that table holds the worker between the tool.started and the
    // tool.completed commits for as long as the test needs, so the kill lands exactly there.
    const locker = new pg.Client({ connectionString: stack.api.database.url });
    await locker.connect();
    try {
      await locker.query("BEGIN");
      await locker.query("LOCK TABLE run_file_reads IN EXCLUSIVE MODE");
      const runId = await stack.run(chatId, { input: scenarioInput([{ tool: "read_file", args: { path: "a.txt" } }, { text: "read it" }]) });
      const started = await waitForStoredEvent(stack, runId, "tool.started");
      const holder = await holderOf(stack, runId, aliveWorkers(stack));
      await crash(holder);
      // The dead worker's result commit is still waiting in Postgres for the lock: a host that died
      // takes its connections with it, so end that session too rather than let it commit later.
      await locker.query(
        "SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE datname = current_database() AND wait_event_type = 'Lock' AND pid <> pg_backend_pid()",
      );
      await locker.query("ROLLBACK");
      expect((await stack.events(runId)).some((event) => event.type === "tool.completed")).toBe(false);

      const run = await stack.waitForRun(runId, undefined, 90_000);
      expect(run).toMatchObject({ status: "completed", output: "read it", tool_calls: 1 });
      const events = await stack.events(runId);
      expectContiguous(events);
      const callId = started.data.tool_call_id as string;
      // Started by the killed worker, started again (read-only) by the survivor.
      expect(startedCallIds(events)).toEqual([callId, callId]);
      const completed = events.filter((event) => event.type === "tool.completed");
      expect(completed).toHaveLength(1);
      expect(completed[0]!.data).toMatchObject({ tool_call_id: callId, tool: "read_file", ok: true });
      expect(completed[0]!.data.result).toContain("alpha beta");
      const row = await stack.prisma.toolCall.findFirstOrThrow({ where: { runId, callId } });
      expect(row).toMatchObject({ status: "completed", attempts: 2, ok: true });
      await expectWellFormedTranscript(stack, chatId);
    } finally {
      await locker.end();
    }
  }, 180_000);
});
