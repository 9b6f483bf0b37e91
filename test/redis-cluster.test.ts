// agentq on a Redis Cluster (issue 19): a private 3-master/3-replica cluster this file starts
// (support/redis-cluster.ts), the API and a worker on it with a braced QUEUE_PREFIX; the engine,
// approvals, WebSocket replay and cancel as on one server; every key in the queue's slot and users'
// run channels on sharded pub/sub; then the master of the queue's slot is killed mid-flight.
import { spawn } from "node:child_process";
import { randomBytes } from "node:crypto";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { pino } from "pino";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { scenarioInput } from "@agentq/core/testing";
import { createRedis, type RedisClient, userRunsChannel } from "@agentq/queue";
import { decide, injectedChat, readThen, waitForParked } from "./support/approval-test-helpers.ts";
import { connectToNode, startTestRedisCluster, type TestRedisCluster } from "./support/redis-cluster.ts";
import { expectContiguous, sleep, startTestStack, type TestStack } from "./support/test-stack.ts";
import { serviceArguments } from "./support/service-process.ts";
import { waitUntil } from "./support/wait-until.ts";

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "..");
/** Requests the failover test sends while the queue's slot has no master, before letting a replica take over. */
const REQUESTS_WITHOUT_MASTER = 10;
/**
 * How long a run's creation may take while the slot has no master. The API's deadlines bound it at two
 * enqueue timeouts of 2 s (its admission round's and the round's before it: core/runs/admission-rounds.ts)
 * plus its statements; the rest is room for a 2-core machine running the whole suite (5.6 s was seen on a
 * slow one, against 5 s allowed before).
 */
const ANSWER_WITHOUT_MASTER_MS = 8000;

/** Starts the API process with `environment` and collects what it prints until it exits. */
function bootApi(environment: Record<string, string>): Promise<{ code: number | null; output: string }> {
  const child = spawn(process.execPath, serviceArguments("api"), {
    cwd: ROOT,
    env: { PATH: process.env.PATH ?? "", HOME: process.env.HOME ?? "/root", ...environment },
    stdio: ["ignore", "pipe", "pipe"],
  });
  let output = "";
  child.stdout.on("data", (chunk) => (output += chunk));
  child.stderr.on("data", (chunk) => (output += chunk));
  return new Promise((resolve) => child.once("exit", (code) => resolve({ code, output })));
}

describe("agentq on a Redis Cluster", () => {
  let cluster: TestRedisCluster;
  let stack: TestStack;
  let redis: RedisClient;
  const prefix = `{agentq-cluster-${randomBytes(4).toString("hex")}}`;
  // Checked when the environment is read, before any connection: no node needs to answer, and the
  // process starts while the cluster does.
  let boot: Promise<{ code: number | null; output: string }>;
  // The worker's log lines (the API keeps its own, stack.api.logs), for the close steps below.
  const workerLogs: string[] = [];

  beforeAll(async () => {
    boot = bootApi({ REDIS_URL: "redis+cluster://127.0.0.1:1,127.0.0.1:2", QUEUE_PREFIX: "agentq-prod" });
    cluster = await startTestRedisCluster();
    // A rate limit, so that the limiter's keys are among those audited.
    stack = await startTestStack({ workers: 0, api: { redisUrl: cluster.url, queuePrefix: prefix }, rateLimitPerMinute: 100_000 });
    await stack.startWorker({}, { logger: pino({ level: "debug" }, { write: (line: string) => void workerLogs.push(line) }) });
    redis = createRedis({ url: cluster.url, maxRetriesPerRequest: null });
  });
  // Every step of closing is bounded (queue close-or-disconnect.ts), about a minute at worst: a BullMQ
  // worker's close that comes a second or two after the kill (the failover test failed early) would
  // wait forever on its blocking connection, and is given up on after the shutdown grace period. A
  // step that ran out of time is named here, so that a slow teardown says where it waited.
  afterAll(async () => {
    redis?.disconnect();
    await stack?.close();
    const timedOut = [...workerLogs, ...(stack?.api.logs ?? [])].filter((line) => line.includes('"step"') && line.includes('"level":40'));
    if (timedOut.length > 0) console.warn(`close steps that ran out of time:\n${timedOut.join("")}`);
    await cluster?.stop();
  }, 90_000);

  it("a process given a cluster and an unbraced QUEUE_PREFIX stops at boot, naming the variable and the fix", async () => {
    const { code, output } = await boot;
    expect(code).toBe(1);
    expect(output).toContain("QUEUE_PREFIX");
    expect(output).toContain("QUEUE_PREFIX={agentq-prod}");
  });

  it("a run with tool calls completes, its events contiguous, and it was followed on its user's sharded channel, in the user's slot", async () => {
    const workspaceId = await stack.createWorkspace();
    const chatId = await stack.createChat({ workspaceId });
    const runId = await stack.run(chatId, {
      input: scenarioInput([
        { tool: "write_file", args: { path: "a.txt", content: "alpha" }, holdUntil: "engine" },
        { tool: "read_file", args: { path: "a.txt" } },
        { text: "the file says alpha" },
      ]),
    });
    const socket = await stack.connectWebSocket();
    socket.send({ type: "subscribe", run_id: runId, after: 0 });
    // The API follows the run on its user's sharded channel, whose hash tag is the user id, not the queue's.
    const userId = (await stack.request("GET", "/api/me")).body.id as string;
    const channel = userRunsChannel(prefix, userId, true);
    expect(channel).toBe(`${prefix.slice(1, -1)}:user:{${userId}}`);
    // Sharded subscriptions live on the master that owns the channel's slot.
    const owner = connectToNode((await cluster.masterOf(channel)).port);
    try {
      await waitUntil("the API's sharded subscription", async () => {
        const [, count] = (await owner.call("PUBSUB", "SHARDNUMSUB", channel)) as [string, number];
        return count === 1 ? true : undefined;
      });
    } finally {
      owner.disconnect();
    }
    stack.provider.release("engine");
    await socket.waitFor((messages) => messages.some((message) => message.type === "event" && message.event.type === "run.completed"));
    const run = await stack.waitForRun(runId);
    expect(run).toMatchObject({ status: "completed", output: "the file says alpha" });
    const events = await stack.events(runId);
    expectContiguous(events);
    expect(socket.events(runId)).toEqual(events);
    socket.close();
  });

  it("an approval pauses the run and the decision resumes it", async () => {
    const { chatId } = await injectedChat(stack);
    const runId = await stack.run(chatId, { input: readThen({ tool: "write_file", args: { path: "out.txt", content: "x" } }, { text: "written" }) });
    const parked = await waitForParked(stack, runId);
    expect(parked.status).toBe("awaiting_approval");
    const decision = await decide(stack, parked.pending_approvals[0].id, "allow_task");
    expect(decision.status).toBe(202);
    expect(await stack.waitForRun(runId)).toMatchObject({ status: "completed", output: "written" });
  });

  it("a WebSocket client that resubscribes after its last seq gets the rest exactly once", async () => {
    const chatId = await stack.createChat();
    const runId = await stack.run(chatId, { input: scenarioInput([{ tool: "list_files", args: {}, holdUntil: "replay" }, { text: "listed" }]) });
    const first = await stack.connectWebSocket();
    first.send({ type: "subscribe", run_id: runId, after: 0 });
    await first.waitFor((messages) => messages.some((message) => message.type === "event" && message.event.type === "round.started"));
    const seen = first.events(runId);
    first.close();
    stack.provider.release("replay");
    await stack.waitForRun(runId);
    const second = await stack.connectWebSocket();
    second.send({ type: "subscribe", run_id: runId, after: seen.at(-1)!.seq });
    await second.waitFor((messages) => messages.some((message) => message.type === "event" && message.event.type === "run.completed"));
    const all = await stack.events(runId);
    expectContiguous([...seen, ...second.events(runId)]);
    expect([...seen, ...second.events(runId)]).toEqual(all);
    second.close();
  });

  it("a cancel reaches the worker through the control channel while the model streams", async () => {
    const chatId = await stack.createChat();
    const runId = await stack.run(chatId, { input: scenarioInput([{ text: "long answer ".repeat(200), chunkDelayMs: 200 }]) });
    await stack.waitForRun(runId, (run) => run.status === "running");
    await stack.waitForEvent(runId, (event) => event.type === "round.started");
    const cancelledAt = Date.now();
    expect((await stack.request("POST", `/api/runs/${runId}/cancel`)).status).toBe(202);
    expect((await stack.waitForRun(runId)).status).toBe("cancelled");
    // The stream would take ~60 s; the lease renewal would notice in a few: the message did it.
    expect(Date.now() - cancelledAt).toBeLessThan(2500);
  });

  it("every key agentq created is under the prefix and in the queue's one slot", async () => {
    const slotOf = async (key: string) => Number(await redis.call("CLUSTER", "KEYSLOT", key));
    const queueSlot = await slotOf(prefix);
    const keys: string[] = [];
    for (const node of (redis as import("ioredis").Cluster).nodes("master")) {
      let cursor = "0";
      do {
        const [next, batch] = await node.scan(cursor, "COUNT", 1000);
        cursor = next;
        keys.push(...batch);
      } while (cursor !== "0");
    }
    expect(keys.some((key) => key.includes(":ratelimit:"))).toBe(true);
    expect(keys.some((key) => key.includes(":runs:"))).toBe(true);
    for (const key of keys) {
      expect(key.startsWith(`${prefix}:`)).toBe(true);
      expect(await slotOf(key)).toBe(queueSlot);
    }
  });

  it("readiness, the services page, the queue-depth metric and the queue board read the cluster", async () => {
    const ready = await stack.request("GET", "/readyz");
    expect(ready.status).toBe(200);
    expect(ready.body.checks.redis_eviction_policy).toMatchObject({ status: "ok", policy: "noeviction" });
    const services = await stack.request("GET", "/api/services");
    expect(services.status).toBe(200);
    expect(services.body.queue).toMatchObject({ waiting: expect.any(Number), active: expect.any(Number), failed: 0 });
    expect(await (await fetch(`${stack.url}/metrics`)).text()).toMatch(/agentq_queue_jobs\{state="failed"\} 0/);
    const session = await fetch(`${stack.url}/api/queue-board/session`, { method: "POST", headers: { authorization: `Bearer ${stack.api.adminToken}` } });
    const cookie = session.headers.get("set-cookie")?.split(";")[0] ?? "";
    const board = await fetch(`${stack.url}/admin/queues/api/queues`, { headers: { cookie } });
    expect(board.status).toBe(200);
    expect(((await board.json()) as { queues: { name: string }[] }).queues.map((queue) => queue.name)).toEqual(["runs"]);
  });

  it("when the master of the queue's slot dies, runs in flight and a decided approval complete; requests meanwhile get 202 or 503", async () => {
    // Several runs held in their first model call (active jobs on the master about to die), one parked.
    const chats = await Promise.all(Array.from({ length: 4 }, () => stack.createChat()));
    const held = await Promise.all(
      chats.map((chatId) => stack.run(chatId, { input: scenarioInput([{ tool: "list_files", args: {}, holdUntil: "failover" }, { text: "survived" }]) })),
    );
    const { chatId: approvalChat } = await injectedChat(stack);
    const parkedId = await stack.run(approvalChat, { input: readThen({ tool: "write_file", args: { path: "out.txt", content: "x" } }, { text: "written" }) });
    const parked = await waitForParked(stack, parkedId);
    for (const runId of held) await stack.waitForEvent(runId, (event) => event.type === "round.started");
    const follower = await stack.connectWebSocket();
    follower.send({ type: "subscribe", run_id: held[0], after: 0 });
    await follower.waitFor((messages) => messages.some((message) => message.type === "event" && message.event.type === "round.started"));

    // Made before the kill: awaited in the window, this request (slowed like any other then) would eat
    // into the time the loop below has to send its own.
    const spare = await stack.createChat();
    const master = await cluster.masterOf(prefix);
    // The slot stays masterless until REQUESTS_WITHOUT_MASTER requests have been sent: the election
    // comes a second or two after the kill, and a loaded machine sends far fewer than one request every
    // 100 ms (CPU starved, its event loop lags), so racing it left some runs with almost no request
    // made while the slot had no master.
    await cluster.holdFailovers();
    cluster.kill(master);
    // Requests while the slot has no master, one every 100 ms: each answers 202 (queued in Redis)
    // or 503 (saved; the reconciler enqueues it) within the API's enqueue timeout, never 500 or a hang.
    const decision = decide(stack, parked.pending_approvals[0].id, "allow_task");
    const requests: Promise<{ status: number; ms: number; runId: string | undefined }>[] = [];
    const sendRequest = () =>
      requests.push(
        (async () => {
          const chatId = await stack.createChat();
          const startedAt = Date.now();
          const response = await stack.startRun(chatId, { input: scenarioInput([{ text: "after" }]) });
          return { status: response.status, ms: Date.now() - startedAt, runId: response.body?.id ?? response.body?.error?.details?.run_id };
        })(),
      );
    while (requests.length < REQUESTS_WITHOUT_MASTER) {
      sendRequest();
      await sleep(100);
    }
    expect(await cluster.liveMasterOf(prefix)).toBeUndefined();
    // Then the replica's election, with requests still coming until it has taken over.
    await cluster.allowFailovers();
    let failedOver = false;
    const failover = cluster.waitForFailover(prefix, master).then((next) => {
      failedOver = true;
      return next;
    });
    while (!failedOver) {
      sendRequest();
      await sleep(100);
    }
    const newMaster = await failover;
    expect(newMaster.port).not.toBe(master.port);
    const answers = await Promise.all(requests);
    expect(answers.length).toBeGreaterThan(5);
    expect(answers.filter(({ status }) => status !== 202 && status !== 503)).toEqual([]);
    expect(Math.max(...answers.map(({ ms }) => ms))).toBeLessThan(ANSWER_WITHOUT_MASTER_MS);
    expect([202, 503]).toContain((await decision).status);
    const created = answers.map(({ runId }) => runId).filter((runId): runId is string => runId !== undefined);
    expect(created).toHaveLength(answers.length);
    // And one more once the replica has taken over.
    created.push(await stack.run(spare, { input: scenarioInput([{ text: "after failover" }]) }));

    stack.provider.release("failover");
    for (const runId of held) expect(await stack.waitForRun(runId, undefined, 30_000)).toMatchObject({ status: "completed", output: "survived" });
    expect(await stack.waitForRun(parkedId, undefined, 30_000)).toMatchObject({ status: "completed", output: "written" });
    for (const runId of created) expect((await stack.waitForRun(runId, undefined, 30_000)).status).toBe("completed");
    // The follower got every event of its run, in order, whatever pub/sub dropped during the failover.
    await follower.waitFor((messages) =>
      messages.some((message) => message.type === "event" && message.event.type === "run.completed" && message.run_id === held[0]),
    );
    expect(follower.events(held[0]!)).toEqual(await stack.events(held[0]!));
    follower.close();
  });
});
