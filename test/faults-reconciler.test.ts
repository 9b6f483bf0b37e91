// The reconciler (docs/design.md invariant 1) and the worker's refusal to execute a run that is not
// executable now: a job of a parked or finished run, or of a run queued behind an earlier one.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { scenarioInput } from "@agentq/core/testing";
import { RunQueue, runGeneration, runJobId } from "@agentq/queue";
import { reconcileRuns } from "../apps/worker/src/reconcile-runs.ts";
import { createTestRedis, deleteKeysWithPrefix } from "./support/redis.ts";
import { startTestStack, type TestStack } from "./support/test-stack.ts";
import { queueEvents, waitUntil } from "./faults-helpers.ts";

describe("the reconciler and non-executable jobs", () => {
  let stack: TestStack;
  let redis: ReturnType<typeof createTestRedis>;
  let queues: RunQueue[];

  beforeAll(async () => {
    stack = await startTestStack({ workers: 0, worker: { reconcileIntervalMs: 60_000 } });
    redis = createTestRedis();
    queues = [
      new RunQueue({ connection: redis, prefix: stack.workerConfig.queuePrefix }),
      new RunQueue({ connection: redis, prefix: stack.workerConfig.queuePrefix }),
    ];
  });
  afterAll(async () => {
    for (const queue of queues ?? []) await queue.close().catch(() => undefined);
    await stack?.close();
    redis?.disconnect();
  });

  const jobIds = async (): Promise<string[]> => (await queues[0]!.queue.getJobs(["waiting", "delayed", "active", "prioritized"])).map((job) => job.id!).sort();

  /** Waits for the worker to finish the job (BullMQ's own `completed` event) and returns its return value. */
  const jobResult = (jobId: string) =>
    waitUntil(`job ${jobId} completed`, async () => {
      const entry = (await queueEvents(stack.workerConfig.redisUrl, stack.workerConfig.queuePrefix)).find(
        (candidate) => candidate.event === "completed" && candidate.jobId === jobId,
      );
      return entry ? JSON.parse(entry.returnvalue ?? "null") : undefined;
    });

  it("re-enqueues a queued run whose job Redis lost, once even when two reconcilers race, and leaves live and young runs alone", async () => {
    const chatId = await stack.createChat();
    const runId = await stack.run(chatId, { input: scenarioInput([{ text: "recovered" }]) });
    const jobId = runJobId(runId, runGeneration(1, 0));
    expect(await jobIds()).toEqual([jobId]);
    // The job the API added is live: nothing to do.
    expect((await reconcileRuns({ prisma: stack.prisma, runQueue: queues[0]!, graceMs: 0 })).scheduled).toEqual([]);

    // Redis loses everything of this deployment.
    await deleteKeysWithPrefix(redis, stack.workerConfig.queuePrefix);
    expect(await jobIds()).toEqual([]);
    // A run younger than the grace period may still have its enqueue on the way: left alone.
    expect((await reconcileRuns({ prisma: stack.prisma, runQueue: queues[0]!, graceMs: 600_000 })).scheduled).toEqual([]);
    expect(await jobIds()).toEqual([]);

    const [first, second] = await Promise.all(queues.map((runQueue) => reconcileRuns({ prisma: stack.prisma, runQueue, graceMs: 0 })));
    expect([...first!.scheduled, ...second!.scheduled]).toContain(runId);
    expect(await jobIds()).toEqual([jobId]);

    // The job is a real one: a worker executes the run from it.
    const worker = await stack.startWorker();
    try {
      expect(await stack.waitForRun(runId, undefined, 30_000)).toMatchObject({ status: "completed", output: "recovered" });
    } finally {
      await worker.close();
    }
  }, 60_000);

  it("a job of a finished or parked run does nothing; a run queued behind an active one is not started", async () => {
    const worker = await stack.startWorker();
    try {
      const finishedChat = await stack.createChat();
      const finishedRun = await stack.run(finishedChat, { input: scenarioInput([{ text: "finished" }]) });
      await stack.waitForRun(finishedRun, undefined, 30_000);

      const workspaceId = await stack.createWorkspace();
      await stack.putFile(workspaceId, "a.txt", "alpha\n");
      const chatId = await stack.createChat({ workspaceId });
      // Reading a file taints the run, so the write after it waits for a human.
      const parkedRun = await stack.run(chatId, {
        input: scenarioInput([
          { tool: "read_file", args: { path: "a.txt" } },
          { tool: "write_file", args: { path: "a.txt", content: "beta\n" } },
          { text: "wrote it" },
        ]),
      });
      const parked = await stack.waitForRun(parkedRun, (run) => run.status === "awaiting_approval", 30_000);
      const blockedRun = await stack.run(chatId, { multitask: "enqueue", input: scenarioInput([{ text: "second" }]) });

      const before = await stack.prisma.run.findMany({ where: { id: { in: [finishedRun, parkedRun, blockedRun] } }, orderBy: { id: "asc" } });
      // Jobs that a retry, a stale reconciler or an operator could leave behind.
      for (const runId of [finishedRun, parkedRun, blockedRun]) await queues[0]!.schedule(runId, { lastEventSeq: 900, leaseVersion: 900 });
      for (const runId of [finishedRun, parkedRun, blockedRun]) expect(await jobResult(runJobId(runId, runGeneration(900, 900)))).toBe("skipped");

      const after = await stack.prisma.run.findMany({ where: { id: { in: [finishedRun, parkedRun, blockedRun] } }, orderBy: { id: "asc" } });
      expect(after.map((run) => [run.id, run.status, run.lastEventSeq, run.leaseVersion])).toEqual(
        before.map((run) => [run.id, run.status, run.lastEventSeq, run.leaseVersion]),
      );
      expect((await stack.getRun(blockedRun)).status).toBe("queued");
      expect((await stack.events(blockedRun)).map((event) => event.type)).toEqual(["run.queued"]);
      // Nor does the reconciler start the blocked run (or the others).
      expect((await reconcileRuns({ prisma: stack.prisma, runQueue: queues[0]!, graceMs: 0 })).scheduled).toEqual([]);

      // Once the earlier run ends, the queued one starts on its own.
      const decision = await stack.request("POST", "/api/approvals", {
        body: { tool_approval_id: parked.pending_approvals[0].id, tool_approval_decision: "deny" },
      });
      expect(decision.status).toBe(202);
      expect(await stack.waitForRun(parkedRun, undefined, 30_000)).toMatchObject({ status: "completed" });
      expect(await stack.waitForRun(blockedRun, undefined, 30_000)).toMatchObject({ status: "completed", output: "second" });
    } finally {
      await worker.close();
    }
  }, 90_000);
});
