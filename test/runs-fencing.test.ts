// Fencing of writes that no lease holder makes (invariant 2, store/run-statement.ts): a run failed by
// status after its last attempt must stay failed, whatever a worker that took it meanwhile commits.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { acquireRun, failRunWithoutLease, generateId, releaseLease, RunStatus, systemClock } from "@agentq/core";
import { sqlPoolOf } from "../packages/core/src/store/create-prisma-client.ts";
import { commitRunStatement, emptyStatementChange } from "../packages/core/src/store/run-statement.ts";
import { startTestStack, type TestStack } from "./support/test-stack.ts";

describe("a run failed without a lease", () => {
  let stack: TestStack;
  /** The database is the stack's; publishing and scheduling after the commit go nowhere here. */
  const failDependencies = (): Parameters<typeof failRunWithoutLease>[0] => ({
    prisma: stack.prisma,
    clock: systemClock,
    generateId,
    publisher: { publishEvents: async () => undefined, publishDelta: async () => undefined },
    scheduler: { schedule: async () => undefined, admitFor: async () => undefined },
    logger: { info: () => undefined, warn: () => undefined, error: () => undefined },
  });
  beforeAll(async () => {
    // No worker: the test plays both workers itself, in the order that used to lose the failure.
    stack = await startTestStack({ workers: 0 });
  });
  afterAll(async () => {
    await stack?.close();
  });

  it("is not overwritten by a worker that took the run between the release and the failure", async () => {
    const chatId = await stack.createChat();
    const runId = await stack.run(chatId, { input: "hello" });
    const first = await acquireRun(stack.prisma, { runId, owner: "worker-a", leaseMs: 60_000 });
    if (first.kind !== "acquired") throw new Error(`worker a could not take the run: ${first.kind}`);
    // Worker a's execution threw on its last attempt: it releases the run...
    await releaseLease(stack.prisma, first.lease);
    // ...worker b takes it at once (a retry, the reconciler)...
    const second = await acquireRun(stack.prisma, { runId, owner: "worker-b", leaseMs: 60_000 });
    if (second.kind !== "acquired") throw new Error(`worker b could not take the run: ${second.kind}`);
    // ...and worker a fails it by status.
    const failedEvents = await failRunWithoutLease(failDependencies(), first.context.run, {
      code: "internal_error",
      message: "boom",
    });
    expect(failedEvents.map((event) => event.type)).toEqual(["run.failed"]);

    // Worker b's next step, fenced by the version it took, must now be refused.
    const step = emptyStatementChange(runId, second.lease.leaseVersion);
    step.status = RunStatus.completed;
    step.finish = { output: "overwritten", errorCode: null, errorMessage: null };
    step.events.push({ type: "run.completed", data: { output: "overwritten" } });
    expect(await commitRunStatement(sqlPoolOf(stack.prisma), step, new Date())).toBeNull();

    const run = await stack.getRun(runId);
    expect(run).toMatchObject({ status: "failed", error: { code: "internal_error" } });
    expect((await stack.events(runId)).map((event) => event.type).at(-1)).toBe("run.failed");
  });

  it("a worker that still holds the run fails it under its own fence", async () => {
    const chatId = await stack.createChat();
    const runId = await stack.run(chatId, { input: "hello" });
    const held = await acquireRun(stack.prisma, { runId, owner: "worker-a", leaseMs: 60_000 });
    if (held.kind !== "acquired") throw new Error(`could not take the run: ${held.kind}`);
    const events = await failRunWithoutLease(failDependencies(), held.context.run, { code: "internal_error", message: "boom" }, { lease: held.lease });
    expect(events.map((event) => event.type)).toEqual(["run.failed"]);
    // Nobody can take a failed run again.
    expect((await acquireRun(stack.prisma, { runId, owner: "worker-b", leaseMs: 60_000 })).kind).toBe("not_executable");
    expect((await stack.getRun(runId)).status).toBe("failed");
  });
});
