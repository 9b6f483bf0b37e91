// A real agentq on this machine for the benchmark and the demo: a fresh database, the API and one
// worker (or `workers` of them) as separate processes (as users run them), and the fake provider
// server in this process.
// Everything on 127.0.0.1; everything it creates (database, Redis keys, workspaces) is removed by close().
import { spawn, type ChildProcess } from "node:child_process";
import { randomBytes } from "node:crypto";
import { readdirSync, readFileSync } from "node:fs";
import { mkdtemp, rm } from "node:fs/promises";
import { createServer } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import pg from "pg";
import { type FakeProviderServer, scenarioResponder, startFakeProviderServer } from "@agentq/core/testing";
import { isClusterRedisUrl } from "@agentq/core";
import { createRedis, deleteKeysWithPrefix, type RedisClient } from "@agentq/queue";
import { runMigrations } from "./migrate.ts";
import { SERVICE_NODE_FLAGS } from "./service-node-flags.ts";
import { ensureServerBuilt, type SERVER_ENTRIES } from "./server-bundle.mjs";

const ROOT = fileURLToPath(new URL("..", import.meta.url));

export interface LocalStack {
  url: string;
  token: string;
  databaseName: string;
  databaseUrl: string;
  /** The server's maintenance database, for statistics. */
  adminUrl: string;
  queuePrefix: string;
  provider: FakeProviderServer;
  api: ChildProcess;
  /** The first worker process. */
  worker: ChildProcess;
  /** Every worker process (`workers` of them). */
  workers: ChildProcess[];
  redis: RedisClient;
  close(): Promise<void>;
}

async function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.once("error", reject);
    server.listen(0, "127.0.0.1", () => {
      const address = server.address();
      server.close(() => resolve(typeof address === "object" && address ? address.port : 0));
    });
  });
}

export interface LocalStackOptions {
  /** Names the database (`agentq_<name>_<random>`) and the queue prefix. */
  name: string;
  /** Slots of each worker process. */
  workerConcurrency: number;
  /** Worker processes. Default 1. */
  workers?: number;
  /** Server of the throwaway database; its `postgres` database is used to create and drop it. Default the local one. */
  postgresUrl?: string;
  /** Default REDIS_URL of this environment, else the local server. A cluster gets a braced queue prefix. */
  redisUrl?: string;
  logLevel?: string;
}

export async function startLocalStack(options: LocalStackOptions): Promise<LocalStack> {
  const suffix = randomBytes(4).toString("hex");
  const server = new URL(options.postgresUrl ?? "postgresql://postgres@127.0.0.1:5432/postgres");
  const databaseName = `agentq_${options.name}_${suffix}`;
  const adminUrl = new URL(server);
  adminUrl.pathname = "/postgres";
  const databaseUrl = new URL(server);
  databaseUrl.pathname = `/${databaseName}`;
  const REDIS_URL = options.redisUrl ?? process.env.REDIS_URL ?? "redis://127.0.0.1:6379";
  await runMigrations({ DATABASE_URL: databaseUrl.toString() });
  const provider = await startFakeProviderServer({ respond: scenarioResponder, recordLimit: 10 });
  const workspacesRoot = await mkdtemp(join(tmpdir(), "agentq-bench-"));
  const port = await freePort();
  const token = `aq_bench_${randomBytes(16).toString("hex")}`;
  const queuePrefix = isClusterRedisUrl(REDIS_URL) ? `{agentq-${options.name}-${suffix}}` : `agentq-${options.name}-${suffix}`;
  const environment = {
    PATH: process.env.PATH ?? "",
    HOME: process.env.HOME ?? "/root",
    DATABASE_URL: databaseUrl.toString(),
    REDIS_URL,
    QUEUE_PREFIX: queuePrefix,
    OPENAI_BASE_URL: provider.openaiBaseURL,
    // The fake model is unknown to the context-window table: give it a current model's window.
    MODEL_CONTEXT_WINDOW: "128000",
    DEFAULT_MODEL: "fake-model",
    WORKSPACES_ROOT: workspacesRoot,
    ADMIN_TOKEN: token,
    LOG_LEVEL: options.logLevel ?? process.env.AGENTQ_STACK_LOG_LEVEL ?? "warn",
    PORT: String(port),
    WORKER_CONCURRENCY: String(options.workerConcurrency),
  };
  // AGENTQ_PROFILE_DIR: write a CPU profile of each process there (node --cpu-prof), to see where time goes.
  const profile = process.env.AGENTQ_PROFILE_DIR ? ["--cpu-prof", `--cpu-prof-dir=${process.env.AGENTQ_PROFILE_DIR}`] : [];
  // AGENTQ_STACK_NODE_FLAGS: more node flags for both processes (say "--trace-gc", to see GC pauses).
  const nodeFlags = (process.env.AGENTQ_STACK_NODE_FLAGS ?? "").split(" ").filter(Boolean);
  // Built once here, not by each process at once (they would find it current anyway).
  await ensureServerBuilt();
  const start = (service: keyof typeof SERVER_ENTRIES) =>
    spawn(process.execPath, [...SERVICE_NODE_FLAGS, ...profile, ...nodeFlags, "scripts/run-server.mjs", service], {
      cwd: ROOT,
      env: environment,
      // AGENTQ_STACK_LOGS=1: the processes' own log lines go to this process's stderr.
      stdio: ["ignore", process.env.AGENTQ_STACK_LOGS === "1" ? "inherit" : "ignore", "inherit"],
    });
  const api = start("api");
  const workers = Array.from({ length: Math.max(1, options.workers ?? 1) }, () => start("worker"));
  // A caller that dies without close() (an uncaught error: a bench request reset under heavy load) must
  // not leave the processes behind: orphaned, they kept their pools' Postgres connections open and later
  // runs, tests too, were refused with "too many clients". 'exit' is emitted on that path as well.
  // close() takes the listener away again: a caller starting one stack after another (the bench, a stack
  // for each workload) would otherwise keep one for every stack it ever started.
  const killOnExit = () => {
    for (const child of [api, ...workers]) if (child.exitCode === null && child.signalCode === null) child.kill("SIGKILL");
  };
  process.once("exit", killOnExit);
  const worker = workers[0]!;
  const url = `http://127.0.0.1:${port}`;
  const deadline = Date.now() + 60_000;
  for (;;) {
    try {
      const response = await fetch(`${url}/readyz`);
      if (response.ok) break;
    } catch {
      // not listening yet
    }
    if (Date.now() > deadline) throw new Error("the API did not become ready in 60 s");
    await new Promise((resolve) => setTimeout(resolve, 200));
  }
  // The API is ready; the worker may still be connecting to Postgres and its queue: give it a moment so
  // the first runs do not measure its start.
  await new Promise((resolve) => setTimeout(resolve, 3000));
  const redis = createRedis({ url: REDIS_URL, maxRetriesPerRequest: null });
  return {
    url,
    token,
    databaseName,
    databaseUrl: databaseUrl.toString(),
    adminUrl: adminUrl.toString(),
    queuePrefix,
    provider,
    api,
    worker,
    workers,
    redis,
    async close() {
      process.off("exit", killOnExit);
      for (const child of [api, ...workers]) child.kill("SIGTERM");
      await Promise.all([api, ...workers].map((child) => new Promise((resolve) => (child.exitCode !== null ? resolve(null) : child.once("exit", resolve)))));
      await provider.close();
      await deleteKeysWithPrefix(redis, queuePrefix);
      await redis.quit();
      const admin = new pg.Client({ connectionString: adminUrl.toString() });
      await admin.connect();
      await admin.query(`DROP DATABASE IF EXISTS "${databaseName}" WITH (FORCE)`);
      await admin.end();
      await rm(workspacesRoot, { recursive: true, force: true });
    },
  };
}

/** Peak resident memory of a process (VmHWM), in MiB. */
export function peakRssMb(child: ChildProcess): number | null {
  try {
    const status = readFileSync(`/proc/${child.pid}/status`, "utf8");
    const match = /VmHWM:\s+(\d+) kB/.exec(status);
    return match ? Math.round(Number(match[1]) / 1024) : null;
  } catch {
    return null;
  }
}

/** CPU time (user + system) a process has used so far, in ms; null once it is gone. */
export function cpuMs(pid: number | undefined, options: { exitedChildren?: boolean } = {}): number | null {
  try {
    // Fields after the command name (which may contain spaces): utime and stime are the 12th and 13th,
    // cutime and cstime (the children it has waited for) the 14th and 15th.
    const stat = readFileSync(`/proc/${pid}/stat`, "utf8");
    const fields = stat.slice(stat.lastIndexOf(")") + 2).split(" ");
    const own = Number(fields[11]) + Number(fields[12]);
    const children = options.exitedChildren ? Number(fields[13]) + Number(fields[14]) : 0;
    return ((own + children) * 1000) / CLOCK_TICKS_PER_SECOND;
  } catch {
    return null;
  }
}

/** Linux's USER_HZ, the unit of /proc/<pid>/stat times, is 100 on every common architecture. */
const CLOCK_TICKS_PER_SECOND = 100;

/** CPU time used so far by every process of the machine named `command` (all Postgres servers, say) and its exited children, in ms. */
export function commandCpuMs(command: string): number {
  let total = 0;
  for (const entry of readdirSync("/proc")) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      if (readFileSync(`/proc/${entry}/comm`, "utf8").trim() !== command) continue;
    } catch {
      continue;
    }
    // With the children that exited: Postgres's backends end with their connection, and the
    // postmaster, which waits for them, then holds their CPU time.
    total += cpuMs(Number(entry), { exitedChildren: true }) ?? 0;
  }
  return total;
}

/** CPU used per run by each part of the stack over a workload: take a reading before, call it after. */
export function cpuPerRun(stack: Pick<LocalStack, "api" | "workers">): (runs: number) => Record<string, number> {
  // Every worker process together.
  const workersCpuMs = () => stack.workers.reduce((sum, child) => sum + (cpuMs(child.pid) ?? 0), 0);
  const before = {
    api: cpuMs(stack.api.pid) ?? 0,
    worker: workersCpuMs(),
    postgres: commandCpuMs("postgres"),
    redis: commandCpuMs("redis-server"),
    bench: process.cpuUsage(),
  };
  return (runs) => {
    const bench = process.cpuUsage(before.bench);
    const perRun = (used: number) => Math.round((used / runs) * 100) / 100;
    return {
      api: perRun((cpuMs(stack.api.pid) ?? 0) - before.api),
      worker: perRun(workersCpuMs() - before.worker),
      postgres: perRun(commandCpuMs("postgres") - before.postgres),
      // The local Redis server (a remote one is not seen: 0).
      redis: perRun(commandCpuMs("redis-server") - before.redis),
      // This process: the client and the fake model provider.
      bench_and_model: perRun((bench.user + bench.system) / 1000),
    };
  };
}

/**
 * Each process's CPU a run divided by the bench process's own (`bench_and_model`). The bench does the
 * same work a run whatever the code under test (the same requests, the same fake model answers), so its
 * CPU a run follows the machine's speed, which wandered by 20 % between identical runs on these shared
 * machines: the ratios compare two versions of the code across runs where raw milliseconds cannot.
 */
export function cpuRelativeToBench(perRun: Record<string, number>): Record<string, number> {
  const bench = perRun.bench_and_model ?? 0;
  if (bench <= 0) return {};
  return Object.fromEntries(
    Object.entries(perRun)
      .filter(([name]) => name !== "bench_and_model")
      .map(([name, value]) => [name, Math.round((value / bench) * 1000) / 1000]),
  );
}

/** Committed transactions of the bench database so far (pg_stat_database). */
export async function committedTransactions(stack: Pick<LocalStack, "adminUrl" | "databaseName">): Promise<number> {
  const databaseName = stack.databaseName;
  const admin = new pg.Client({ connectionString: stack.adminUrl });
  await admin.connect();
  try {
    const result = await admin.query<{ xact_commit: string }>("SELECT xact_commit FROM pg_stat_database WHERE datname = $1", [databaseName]);
    return Number(result.rows[0]?.xact_commit ?? 0);
  } finally {
    await admin.end();
  }
}

export function percentile(sorted: readonly number[], fraction: number): number {
  if (sorted.length === 0) return Number.NaN;
  const index = Math.min(sorted.length - 1, Math.max(0, Math.ceil(fraction * sorted.length) - 1));
  return sorted[index]!;
}
