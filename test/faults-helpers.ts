// Helpers of the fault tests (test/faults-*.test.ts): child-process workers that are known to be
// ready, who holds a run, waiting with deadlines, and the checks every recovered run must pass.
import { execFileSync, type ChildProcess } from "node:child_process";
import { closeSync, constants, openSync, readdirSync, readFileSync, readlinkSync, writeSync } from "node:fs";
import { join } from "node:path";
import { Redis } from "ioredis";
import { controlChannel } from "@agentq/queue";
import type { RunEvent, TestStack } from "./support/test-stack.ts";
import { waitUntil } from "./support/wait-until.ts";

export { waitUntil };

/**
 * Spawns child-process workers and waits until each has subscribed to the control channel, the
 * last step of its start (its BullMQ worker is pulling jobs by then).
 */
export async function spawnReadyWorkers(
  stack: TestStack,
  count: number,
  environment: Record<string, string> = {},
  timeoutMs = 150_000,
): Promise<ChildProcess[]> {
  const redis = new Redis(stack.workerConfig.redisUrl, { maxRetriesPerRequest: 3 });
  try {
    const channel = controlChannel(stack.workerConfig.queuePrefix);
    const before = await subscriberCount(redis, channel);
    const children = Array.from({ length: count }, () => stack.spawnWorker(environment));
    await waitUntil(
      `${count} spawned workers ready`,
      async () => {
        const exited = children.find((child) => child.exitCode !== null || child.signalCode !== null);
        if (exited) throw new Error(`a spawned worker exited during start (code ${exited.exitCode}, signal ${exited.signalCode})`);
        return (await subscriberCount(redis, channel)) >= before + count ? true : undefined;
      },
      timeoutMs,
    );
    return children;
  } finally {
    redis.disconnect();
  }
}

async function subscriberCount(redis: Redis, channel: string): Promise<number> {
  const reply = (await redis.pubsub("NUMSUB", channel)) as [string, number];
  return Number(reply[1]);
}

/** The run's lease columns as Postgres has them. */
export async function leaseOf(stack: TestStack, runId: string): Promise<{ leaseOwner: string | null; leaseVersion: number; status: string }> {
  const run = await stack.prisma.run.findUniqueOrThrow({ where: { id: runId }, select: { leaseOwner: true, leaseVersion: true, status: true } });
  return { leaseOwner: run.leaseOwner, leaseVersion: run.leaseVersion, status: run.status };
}

/** The process id in a worker id (`<host>-<pid>-<random>`). */
export function pidOfWorkerId(workerId: string): number {
  const match = /-(\d+)-[0-9a-f]+$/.exec(workerId);
  if (!match) throw new Error(`not a worker id: ${workerId}`);
  return Number(match[1]);
}

/** Waits until one of `children` holds the run's lease, and returns it. */
export async function holderOf(stack: TestStack, runId: string, children: readonly ChildProcess[], timeoutMs = 30_000): Promise<ChildProcess> {
  return waitUntil(
    `a worker holding run ${runId}`,
    async () => {
      const { leaseOwner } = await leaseOf(stack, runId);
      if (leaseOwner === null) return undefined;
      return children.find((child) => child.pid === pidOfWorkerId(leaseOwner));
    },
    timeoutMs,
  );
}

/** Waits until Postgres holds a durable event of the run matching `type` (polls the database, not the API: faster). */
export async function waitForStoredEvent(stack: TestStack, runId: string, type: string, timeoutMs = 60_000): Promise<RunEvent> {
  return waitUntil(
    `run ${runId}: event ${type}`,
    async () => {
      const row = await stack.prisma.runEvent.findFirst({ where: { runId, type }, orderBy: { seq: "asc" } });
      return row ? { seq: row.seq, type: row.type, at: row.createdAt.toISOString(), data: row.data as Record<string, any> } : undefined;
    },
    timeoutMs,
  );
}

/** The spawned workers that are still alive. */
export function aliveWorkers(stack: TestStack): ChildProcess[] {
  return stack.processes.filter((child) => child.exitCode === null && child.signalCode === null);
}

/** Resolves with the exit code and signal once the child has exited. */
export function exited(child: ChildProcess, timeoutMs = 30_000): Promise<{ code: number | null; signal: NodeJS.Signals | null }> {
  if (child.exitCode !== null || child.signalCode !== null) return Promise.resolve({ code: child.exitCode, signal: child.signalCode });
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`worker ${child.pid} did not exit in ${timeoutMs} ms`)), timeoutMs);
    child.once("exit", (code, signal) => {
      clearTimeout(timer);
      resolve({ code, signal });
    });
  });
}

/** Kills the child with SIGKILL and waits until it is gone (a crash at this instant). */
export async function crash(child: ChildProcess): Promise<void> {
  child.kill("SIGKILL");
  await exited(child);
}

/** Ids of every `tool.started` event, by call id, in order (a call started twice appears twice). */
export function startedCallIds(events: readonly RunEvent[]): string[] {
  return events.filter((event) => event.type === "tool.started").map((event) => event.data.tool_call_id as string);
}

/**
 * What API.md promises of a chat's transcript: every assistant tool call is answered by exactly
 * one tool message, and no tool message answers a call that was never made. Returns the call ids.
 */
export async function expectWellFormedTranscript(stack: TestStack, chatId: string): Promise<{ callIds: string[]; messages: any[] }> {
  const chat = (await stack.request("GET", `/api/chats/${chatId}`)).body;
  const messages: any[] = chat.messages;
  const callIds: string[] = messages.flatMap((message) => (message.tool_calls ?? []).map((call: any) => call.id));
  const answered: string[] = messages.filter((message) => message.role === "tool").map((message) => message.tool_call_id);
  if (new Set(callIds).size !== callIds.length) throw new Error(`a tool call id appears twice: ${callIds.join(",")}`);
  const sortedCalls = [...callIds].sort();
  const sortedAnswers = [...answered].sort();
  if (JSON.stringify(sortedCalls) !== JSON.stringify(sortedAnswers)) {
    throw new Error(`calls and answers differ: calls ${sortedCalls.join(",")}; answers ${sortedAnswers.join(",")}`);
  }
  // Each answer comes after its call.
  messages.forEach((message, index) => {
    if (message.role !== "tool") return;
    const callIndex = messages.findIndex((candidate) => (candidate.tool_calls ?? []).some((call: any) => call.id === message.tool_call_id));
    if (callIndex < 0 || callIndex > index) throw new Error(`tool message ${index} answers ${message.tool_call_id} before it was called`);
  });
  return { callIds, messages };
}

/** The BullMQ events of the stack's run queue (XRANGE of `<prefix>:runs:events`). */
export async function queueEvents(redisUrl: string, prefix: string): Promise<{ event: string; jobId: string; returnvalue?: string }[]> {
  const redis = new Redis(redisUrl, { maxRetriesPerRequest: 3 });
  try {
    const entries = await redis.xrange(`${prefix}:runs:events`, "-", "+");
    return entries.map(([, fields]) => {
      const record: Record<string, string> = {};
      for (let index = 0; index + 1 < fields.length; index += 2) record[fields[index]!] = fields[index + 1]!;
      return { ...record, event: record.event ?? "", jobId: record.jobId ?? "" };
    });
  } finally {
    redis.disconnect();
  }
}

/** Ids of the run queue's jobs ever added for the run (a run offered to a worker instead has none). */
export async function jobsAddedFor(stack: TestStack, runId: string): Promise<string[]> {
  const events = await queueEvents(stack.workerConfig.redisUrl, stack.workerConfig.queuePrefix);
  return [...new Set(events.filter((event) => event.event === "added" && event.jobId.startsWith(`run-${runId}-`)).map((event) => event.jobId))];
}

/** A shell prefix that blocks a `run_command` until the test releases its workspace's gate. */
export const GATED = "cat gate.fifo > /dev/null;";

export interface Gate {
  /** Commands blocked on the gate now (`cat` processes working in the workspace). */
  readers(): number;
  /** Lets the blocked commands go on; false when none was waiting (after up to `waitMs`, default 2 s). */
  release(waitMs?: number): boolean;
}

/**
 * A FIFO in a workspace that a command (`${GATED} ...`) waits on until the test opens it: a
 * command that stays "running" exactly as long as the test needs, whatever the machine's load.
 */
export function createGate(workspaceRoot: string): Gate {
  const path = join(workspaceRoot, "gate.fifo");
  execFileSync("mkfifo", [path]);
  return {
    readers: () => processesIn(workspaceRoot, "cat"),
    release(waitMs = 2_000) {
      // A `cat` counted by readers() may not have opened the FIFO yet (it is exec'd, then opens):
      // ENXIO means no reader has it open, so look again for a moment before saying nobody waits.
      const deadline = Date.now() + waitMs;
      for (;;) {
        let descriptor: number;
        try {
          descriptor = openSync(path, constants.O_WRONLY | constants.O_NONBLOCK);
        } catch {
          if (Date.now() >= deadline) return false; // ENXIO: nobody is reading it
          Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0, 20);
          continue;
        }
        writeSync(descriptor, "go\n");
        closeSync(descriptor);
        return true;
      }
    },
  };
}

/** Processes named `name` whose working directory is `directory` (from /proc). */
function processesIn(directory: string, name: string): number {
  let count = 0;
  for (const entry of readdirSync("/proc")) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      const argv0 = readFileSync(`/proc/${entry}/cmdline`, "utf8").split("\0")[0] ?? "";
      if (argv0.split("/").at(-1) === name && readlinkSync(`/proc/${entry}/cwd`) === directory) count += 1;
    } catch {
      // gone meanwhile, or not ours to look at
    }
  }
  return count;
}
