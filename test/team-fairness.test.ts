import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { generateId } from "@agentq/core";
import { scenarioInput } from "@agentq/core/testing";
import { sleep, startTestStack, type TestStack } from "./support/test-stack.ts";

// Fair dispatch (docs/design.md "Fair dispatch"): one user's backlog does not hold another user's
// new run back; users with runnable runs are served in turn.

async function userWith(stack: TestStack, name: string, limits: Record<string, number>): Promise<{ id: string; token: string }> {
  const user = await stack.createUser(`${name}-${generateId("n").slice(-6)}`);
  if (Object.keys(limits).length > 0) {
    const patched = await stack.request("PATCH", `/api/users/${user.id}`, { body: limits });
    expect(patched.status).toBe(200);
  }
  return user;
}

async function createRuns(stack: TestStack, token: string, count: number, input: string): Promise<string[]> {
  const chats = await Promise.all(Array.from({ length: count }, () => stack.createChat({ token })));
  const ids: string[] = [];
  // A few at a time, like a script queueing a batch.
  for (let index = 0; index < chats.length; index += 20) {
    const batch = await Promise.all(chats.slice(index, index + 20).map((chatId) => stack.run(chatId, { input }, token)));
    ids.push(...batch);
  }
  return ids;
}

describe("fair dispatch across users", () => {
  let stack: TestStack;
  beforeAll(async () => {
    stack = await startTestStack({ worker: { concurrency: 10 } });
  });
  afterAll(async () => {
    await stack?.close();
  });

  it("another user's run starts within 5 s behind a backlog of 80 runs that takes far longer to drain", async () => {
    // max_active_runs above the backlog: what keeps B's run from waiting is the bound on each user's
    // runs in the queue, not the concurrency limit.
    const alice = await userWith(stack, "alice", { max_active_runs: 1000 });
    const bob = await userWith(stack, "bob", {});
    // 80 runs of 1.5 s on 10 slots: 12 s of work queued, first in first out (bob's run would wait about 9 s).
    const backlog = await createRuns(stack, alice.token, 80, scenarioInput([{ text: "a", delayMs: 1500 }]));
    await sleep(1000);
    const bobChat = await stack.createChat({ token: bob.token });
    const bobRun = await stack.run(bobChat, { input: scenarioInput([{ text: "b" }]) }, bob.token);
    const finished = await stack.waitForRun(bobRun, undefined, 20_000, bob.token);
    expect(finished.status).toBe("completed");
    const row = await stack.prisma.run.findUniqueOrThrow({ where: { id: bobRun } });
    const waitMs = row.startedAt!.getTime() - row.createdAt.getTime();
    console.info(`bob's run waited ${waitMs} ms`);
    expect(waitMs).toBeLessThan(5000);
    // The backlog was real when bob's run started: at least 30 of alice's runs (4.5 s of work on 10
    // slots) had not started, which first in first out would have run before it.
    const aliceStartedBefore = await stack.prisma.run.count({ where: { userId: alice.id, startedAt: { lte: row.startedAt! } } });
    expect(80 - aliceStartedBefore).toBeGreaterThanOrEqual(30);
    // Alice's runs all complete: none lost, none finished twice.
    for (const id of backlog) expect((await stack.waitForRun(id, undefined, 90_000, alice.token)).status).toBe("completed");
    const completions = await stack.prisma.runEvent.count({ where: { runId: { in: backlog }, type: "run.completed" } });
    expect(completions).toBe(80);
  }, 120_000);

  it("three users' runs interleave: every user gets slots while the others have backlogs", async () => {
    const users = await Promise.all(["ann", "ben", "cid"].map((name) => userWith(stack, name, { max_active_runs: 2 })));
    const input = scenarioInput([{ text: "x", delayMs: 300 }]);
    // Created one user after the other while no worker takes runs, then a worker starts: first in
    // first out would run all of ann's first.
    await stack.workers[0]!.pause();
    const runsByUser: string[][] = [];
    for (const user of users) runsByUser.push(await createRuns(stack, user.token, 15, input));
    await stack.startWorker({ concurrency: 3 });
    for (const [index, user] of users.entries()) {
      for (const id of runsByUser[index]!) expect((await stack.waitForRun(id, undefined, 60_000, user.token)).status).toBe("completed");
    }
    const rows = await stack.prisma.run.findMany({
      where: { userId: { in: users.map((user) => user.id) } },
      select: { userId: true, startedAt: true },
      orderBy: { startedAt: "asc" },
    });
    const order = rows.map((row) => users.findIndex((user) => user.id === row.userId));
    // Among the first 15 starts every user has had at least 3 (FIFO: 15 of ann's, 0 of the others).
    const firstFifteen = order.slice(0, 15);
    for (const index of [0, 1, 2]) expect(firstFifteen.filter((candidate) => candidate === index).length, JSON.stringify(order)).toBeGreaterThanOrEqual(3);
    expect(order).toHaveLength(45);
  }, 120_000);
});
