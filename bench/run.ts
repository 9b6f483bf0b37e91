// `npm run bench`: end-to-end workloads against a real agentq (API and worker processes, Postgres,
// Redis, the fake provider with no latency). Prints one JSON line per workload: figures, not
// assertions. BENCH_RUNS / BENCH_CONCURRENCY / BENCH_PARKED / BENCH_SLOW_RUNS / BENCH_FAIR_BACKLOG / BENCH_FAIR_RUN_MS /
// BENCH_WORKLOADS (comma list of W1,W2,PARKED,SLOW,FAIR) / BENCH_TOOLS (see TOOLS) / BENCH_WARMUP (see WARMUP) override the defaults. BENCH_WORKERS=N starts N worker
// processes (default 1), each with BENCH_WORKER_CONCURRENCY slots (default BENCH_CONCURRENCY); REDIS_URL (a cluster too)
// replaces the local Redis.
import WebSocket from "ws";
import { liftBenchLimits, pool, requestJson } from "./bench-requests.ts";
import { scenarioInput } from "@agentq/core/testing";
import { workloadFair } from "./fair-workload.ts";
import {
  committedTransactions,
  cpuPerRun,
  cpuRelativeToBench,
  peakRssMb,
  percentile,
  startLocalStack,
  type LocalStack as BenchStack,
} from "../scripts/local-stack.ts";

const RUNS = Number(process.env.BENCH_RUNS ?? 500);
const CONCURRENCY = Number(process.env.BENCH_CONCURRENCY ?? 50);
/** Each worker's slots (WORKER_CONCURRENCY) in every workload but SLOW, which gets one a run; default BENCH_CONCURRENCY. */
const WORKER_CONCURRENCY = Number(process.env.BENCH_WORKER_CONCURRENCY ?? CONCURRENCY);
const WORKLOADS = (process.env.BENCH_WORKLOADS ?? "W1,W2,PARKED,SLOW,FAIR").split(",").map((name) => name.trim());
const SLOW_RUNS = Number(process.env.BENCH_SLOW_RUNS ?? 500);
const WORKERS = Number(process.env.BENCH_WORKERS ?? 1);
/**
 * Runs of each workload executed before it is measured, not counted (BENCH_WARMUP, default 50): the
 * peer harness does the same (`--warmup 50`), so both sides are compared warm — connections opened,
 * statements prepared, code compiled — as a deployment that has been up for a while is.
 */
const WARMUP = Number(process.env.BENCH_WARMUP ?? 50);
/**
 * The tools each run is limited to (POST .../runs `tools`): the two the workloads call, as the peers'
 * W1/W2 offer their scripted model two tools. BENCH_TOOLS=all offers every tool a member's switches
 * allow (36 for the bench's admin, about 26 KB of schemas a model request), or a comma list.
 */
const TOOLS = process.env.BENCH_TOOLS === "all" ? undefined : (process.env.BENCH_TOOLS ?? "read_file,write_file").split(",");
const runBody = (input: string) => (TOOLS ? { input, tools: TOOLS } : { input });

interface Follower {
  /**
   * The event types `onEvent` acts on. A run sends many events and text deltas that a workload never
   * looks at; a message that names none of these types is not even decoded, as the bench's CPU is
   * taken from the cores of what it measures.
   */
  eventTypes: readonly string[];
  onEvent(runId: string, event: { seq: number; type: string; at: string; data: Record<string, unknown> }): void;
}

async function connect(stack: BenchStack, follower: Follower): Promise<WebSocket> {
  const socket = new WebSocket(`${stack.url.replace("http", "ws")}/api/ws?token=${stack.token}`);
  // JSON escapes none of the characters of an event type, so a message of one of these types holds
  // its name in quotes, byte for byte; one that merely mentions it is decoded and then dropped below.
  const wanted = follower.eventTypes.map((type) => Buffer.from(JSON.stringify(type)));
  socket.on("message", (raw: Buffer) => {
    if (!wanted.some((type) => raw.includes(type))) return;
    const message = JSON.parse(raw.toString());
    if (message.type === "event" && follower.eventTypes.includes(message.event.type)) follower.onEvent(message.run_id, message.event);
  });
  await new Promise<void>((resolve, reject) => {
    socket.once("open", () => resolve());
    socket.once("error", reject);
  });
  return socket;
}

function post(stack: BenchStack, path: string, body: unknown): Promise<any> {
  return requestJson(stack, "POST", path, body);
}

/** W1: write_file b.txt → read_file b.txt → final answer; POST → run.completed on a WebSocket. */
function workloadW1(stack: BenchStack, runs = RUNS): Promise<Record<string, unknown>> {
  return threeRounds(stack, { name: "W1", runs, concurrency: CONCURRENCY, modelDelayMs: 0 });
}

/**
 * SLOW: W1 with a model that takes 2 s per round (real models are slow), SLOW_RUNS runs all in flight
 * on one worker process with that many slots: what a deployment with many waiting runs needs.
 */
function workloadSlow(stack: BenchStack): Promise<Record<string, unknown>> {
  return threeRounds(stack, { name: "SLOW", runs: SLOW_RUNS, concurrency: SLOW_RUNS, modelDelayMs: 2000 });
}

async function threeRounds(
  stack: BenchStack,
  options: { name: string; runs: number; concurrency: number; modelDelayMs: number },
): Promise<Record<string, unknown>> {
  const { runs, concurrency } = options;
  const delay = options.modelDelayMs > 0 ? { delayMs: options.modelDelayMs } : {};
  const workspace = await post(stack, "/api/workspaces", { name: "bench" });
  const chats: { id: string }[] = [];
  await pool(runs, 50, async () => {
    chats.push(await post(stack, "/api/chats", { workspace_id: workspace.id }));
  });
  const waiting = new Map<string, () => void>();
  const early = new Set<string>();
  const socket = await connect(stack, {
    eventTypes: ["run.completed", "run.failed"],
    onEvent(runId, event) {
      if (event.type === "run.failed") failedRuns.add(runId);
      const done = waiting.get(runId);
      if (done) done();
      else early.add(runId);
    },
  });
  const latencies: number[] = [];
  const failedRuns = new Set<string>();
  const runIds: string[] = [];
  const transactionsBefore = await committedTransactions(stack);
  const cpu = cpuPerRun(stack);
  const started = performance.now();
  await pool(runs, concurrency, async (index) => {
    const begin = performance.now();
    const input = scenarioInput([
      { tool: "write_file", args: { path: `b-${index}.txt`, content: `hello ${index}` }, ...delay },
      { tool: "read_file", args: { path: `b-${index}.txt` }, ...delay },
      { text: "done", ...delay },
    ]);
    const run = await post(stack, `/api/chats/${chats[index]!.id}/runs`, runBody(input));
    runIds.push(run.id);
    await new Promise<void>((resolve) => {
      if (early.delete(run.id)) return resolve();
      waiting.set(run.id, resolve);
      socket.send(JSON.stringify({ type: "subscribe", run_id: run.id, after: 0 }));
    });
    waiting.delete(run.id);
    latencies.push(performance.now() - begin);
  });
  const elapsedSeconds = (performance.now() - started) / 1000;
  const cpuMsPerRun = cpu(runs);
  const transactions = (await committedTransactions(stack)) - transactionsBefore;
  socket.close();
  // Checked after the clock stopped, as the peers verify theirs: a run counts once it completed.
  const completed = await completedRuns(stack, runIds);
  latencies.sort((a, b) => a - b);
  const p50 = percentile(latencies, 0.5);
  return {
    workload: options.name,
    worker_processes: stack.workers.length,
    runs,
    concurrency: concurrency,
    failed: Math.max(failedRuns.size, runs - completed),
    runs_per_s: round(runs / elapsedSeconds),
    wall_s: round(elapsedSeconds),
    latency_ms: { p50: round(p50), p99: round(percentile(latencies, 0.99)) },
    // The fake model answers at once, so a run's latency is orchestration: queue, leases, commits, fan-out.
    per_round_overhead_ms_p50: round(p50 / 3 - options.modelDelayMs),
    postgres_transactions_per_run: round(transactions / runs),
    api_peak_rss_mb: peakRssMb(stack.api),
    worker_peak_rss_mb: peakRssMb(stack.worker),
    // CPU per run of each process (Postgres: all its processes): less noisy than runs/s on a shared machine.
    cpu_ms_per_run: cpuMsPerRun,
    cpu_per_run_over_bench: cpuRelativeToBench(cpuMsPerRun),
    ...(process.env.BENCH_TRACE === "1" ? { timeline_ms: await runTimeline(stack, runIds) } : {}),
  };
}

/** `work` with a connection to the bench's database (the bench reads it to observe, never to change it). */
async function withBenchDatabase<T>(stack: BenchStack, work: (client: import("pg").Client) => Promise<T>): Promise<T> {
  const { default: pg } = await import("pg");
  const client = new pg.Client({ connectionString: stack.databaseUrl });
  await client.connect();
  try {
    return await work(client);
  } finally {
    await client.end();
  }
}

/** Runs of `runIds` that completed. */
async function completedRuns(stack: BenchStack, runIds: readonly string[]): Promise<number> {
  return withBenchDatabase(stack, async (client) => {
    const { rows } = await client.query<{ count: number }>("SELECT count(*)::int AS count FROM runs WHERE status = 'completed' AND id = ANY($1)", [runIds]);
    return rows[0]?.count ?? 0;
  });
}

/**
 * BENCH_TRACE=1: where the runs' time goes, from the events' commit clocks (ms after the first run's
 * run.queued): when the runs were created (first, median, last), when they started (median, last), and
 * the median and last completion.
 */
async function runTimeline(stack: BenchStack, runIds: readonly string[]): Promise<Record<string, number>> {
  return withBenchDatabase(stack, async (client) => {
    const { rows } = await client.query<{ type: string; at: number[] }>(
      `SELECT type, array_agg((extract(epoch FROM created_at) * 1000)::float8 ORDER BY created_at) AS at FROM run_events
      WHERE type IN ('run.queued', 'run.started', 'run.completed') AND run_id = ANY($1) GROUP BY type`,
      [runIds],
    );
    const times = Object.fromEntries(rows.map((row) => [row.type, row.at]));
    const origin = times["run.queued"]?.[0] ?? 0;
    const at = (type: string, fraction: number) => round(percentile(times[type] ?? [], fraction) - origin);
    return {
      queued_p50: at("run.queued", 0.5),
      queued_last: at("run.queued", 1),
      started_p50: at("run.started", 0.5),
      started_last: at("run.started", 1),
      completed_p50: at("run.completed", 0.5),
      completed_last: at("run.completed", 1),
    };
  });
}

/**
 * W2: read_file a.txt → write_file b.txt (the read tainted the run, so the write pauses) → answer.
 * A client decides allow_task as soon as approval.required arrives. Two resume latencies from sending
 * that decision: to the write executed (`resume_executed_ms`: its tool.completed's `at`, which the worker
 * stamps as it commits the result the handler returned; the peer harness's end point, "write_note
 * executed", and as this machine's clock, which the bench shares) and to that event received on the
 * WebSocket (`resume_latency_ms`: one commit and the delivery to the client more).
 */
async function workloadW2(stack: BenchStack, runs = RUNS): Promise<Record<string, unknown>> {
  const workspace = await post(stack, "/api/workspaces", { name: "bench" });
  await put(stack, `/api/workspaces/${workspace.id}/files/a.txt`, { content: "input for the benchmark\n" });
  const chats = await Promise.all(Array.from({ length: runs }, () => post(stack, "/api/chats", { workspace_id: workspace.id })));
  const finished = new Map<string, () => void>();
  const decidedAt = new Map<string, number>();
  const decidedWallClock = new Map<string, number>();
  const completedWallClock = new Map<string, number>();
  const resumeLatencies: number[] = [];
  const executedLatencies: number[] = [];
  let failed = 0;
  const socket = await connect(stack, {
    eventTypes: ["approval.required", "tool.completed", "run.completed", "run.failed"],
    onEvent(runId, event) {
      if (event.type === "approval.required") {
        decidedAt.set(runId, performance.now());
        decidedWallClock.set(runId, Date.now());
        post(stack, "/api/approvals", { tool_approval_id: event.data.approval_id, tool_approval_decision: "allow_task" }).catch((error: Error) => {
          // The run stays parked: counted as failed and let go, so that the bench reports rather than hangs.
          console.error(`decision for run ${runId} failed: ${error.message}`);
          failed += 1;
          finished.get(runId)?.();
        });
      } else if (event.type === "tool.completed" && event.data.tool === "write_file" && decidedAt.has(runId)) {
        resumeLatencies.push(performance.now() - decidedAt.get(runId)!);
        executedLatencies.push(Date.parse(event.at) - decidedWallClock.get(runId)!);
        completedWallClock.set(runId, Date.now());
      } else if (event.type === "run.completed" || event.type === "run.failed") {
        if (event.type === "run.failed") failed += 1;
        finished.get(runId)?.();
      }
    },
  });
  const cpu = cpuPerRun(stack);
  const started = performance.now();
  await pool(runs, CONCURRENCY, async (index) => {
    const input = scenarioInput([
      { tool: "read_file", args: { path: "a.txt" } },
      { tool: "write_file", args: { path: `b-${index}.txt`, content: "out" } },
      { text: "done" },
    ]);
    const run = await post(stack, `/api/chats/${chats[index].id}/runs`, runBody(input));
    await new Promise<void>((resolve) => {
      finished.set(run.id, resolve);
      socket.send(JSON.stringify({ type: "subscribe", run_id: run.id, after: 0 }));
    });
  });
  const elapsedSeconds = (performance.now() - started) / 1000;
  const cpuMsPerRun = cpu(runs);
  socket.close();
  resumeLatencies.sort((a, b) => a - b);
  executedLatencies.sort((a, b) => a - b);
  return {
    workload: "W2",
    runs,
    concurrency: CONCURRENCY,
    failed,
    runs_per_s: round(runs / elapsedSeconds),
    resume_latency_ms: { p50: round(percentile(resumeLatencies, 0.5)), p99: round(percentile(resumeLatencies, 0.99)) },
    resume_executed_ms: { p50: round(percentile(executedLatencies, 0.5)), p99: round(percentile(executedLatencies, 0.99)) },
    api_peak_rss_mb: peakRssMb(stack.api),
    worker_peak_rss_mb: peakRssMb(stack.worker),
    cpu_ms_per_run: cpuMsPerRun,
    cpu_per_run_over_bench: cpuRelativeToBench(cpuMsPerRun),
    ...(process.env.BENCH_TRACE === "1" ? { resume_stages_ms_p50: await resumeStages(stack, decidedWallClock, completedWallClock) } : {}),
  };
}

/**
 * BENCH_TRACE=1: where a resume's time goes, from the events' commit clocks (API and worker share
 * this machine's clock): decision sent → its commit → the worker's first commit of the resumed
 * execution → the write's result committed → its tool.completed received here. p50 of each. A decision
 * the worker commits (core runs/approval-decision-record.ts) is committed by that first commit:
 * `to_decision_commit` then spans the way to it, and `to_worker_first_commit` is 0.
 */
async function resumeStages(stack: BenchStack, decided: Map<string, number>, received: Map<string, number>): Promise<Record<string, number>> {
  return withBenchDatabase(stack, async (client) => {
    const { rows } = await client.query<{ run_id: string; type: string; at: string }>(
      `SELECT run_id, type, (extract(epoch FROM created_at) * 1000)::float8 AS at FROM run_events
      WHERE type IN ('approval.decided', 'run.resumed', 'tool.completed') AND run_id = ANY($1)`,
      [[...decided.keys()]],
    );
    const byRun = new Map<string, Record<string, number>>();
    for (const row of rows) {
      const times = byRun.get(row.run_id) ?? {};
      // The last tool.completed of a run is the write's (the read's comes before the pause).
      times[row.type] = Math.max(times[row.type] ?? 0, Number(row.at));
      byRun.set(row.run_id, times);
    }
    const stages: Record<string, number[]> = { to_decision_commit: [], to_worker_first_commit: [], to_result_commit: [], to_client: [] };
    for (const [runId, times] of byRun) {
      const sent = decided.get(runId)!;
      const got = received.get(runId);
      if (!got || !times["approval.decided"] || !times["run.resumed"] || !times["tool.completed"]) continue;
      stages.to_decision_commit!.push(times["approval.decided"] - sent);
      stages.to_worker_first_commit!.push(times["run.resumed"] - times["approval.decided"]);
      stages.to_result_commit!.push(times["tool.completed"] - times["run.resumed"]);
      stages.to_client!.push(got - times["tool.completed"]);
    }
    return Object.fromEntries(
      Object.entries(stages).map(([name, values]) => [
        name,
        round(
          percentile(
            values.sort((a, b) => a - b),
            0.5,
          ),
        ),
      ]),
    );
  });
}

/**
 * PARKED: BENCH_PARKED runs (default 10,000) paused for approval at once. Reports the queue jobs left
 * in Redis while they wait (invariant 4: none), the Redis memory they add, and the time to resume them all.
 */
async function workloadParked(stack: BenchStack): Promise<Record<string, unknown>> {
  const count = Number(process.env.BENCH_PARKED ?? 10_000);
  const workspace = await post(stack, "/api/workspaces", { name: "bench" });
  await put(stack, `/api/workspaces/${workspace.id}/files/a.txt`, { content: "input\n" });
  const memoryBefore = await usedMemory(stack);
  const runIds: string[] = [];
  const parkCpu = cpuPerRun(stack);
  const parkStarted = performance.now();
  await pool(count, CONCURRENCY, async (index) => {
    const chat = await post(stack, "/api/chats", { workspace_id: workspace.id });
    const input = scenarioInput([
      { tool: "read_file", args: { path: "a.txt" } },
      { tool: "write_file", args: { path: `p-${index}.txt`, content: "x" } },
      { text: "done" },
    ]);
    runIds.push((await post(stack, `/api/chats/${chat.id}/runs`, runBody(input))).id);
  });
  await waitForStatus(stack, runIds, "awaiting_approval");
  const parkSeconds = (performance.now() - parkStarted) / 1000;
  const parkCpuMsPerRun = parkCpu(count);
  const jobsWhileParked = await jobCount(stack);
  const memoryAdded = (await usedMemory(stack)) - memoryBefore;
  const approvals = await pendingApprovals(stack, runIds);
  const resumeCpu = cpuPerRun(stack);
  const resumeStarted = performance.now();
  await pool(approvals.length, CONCURRENCY, async (index) => {
    await post(stack, "/api/approvals", { tool_approval_id: approvals[index], tool_approval_decision: "allow_task" });
  });
  await waitForStatus(stack, runIds, "completed");
  return {
    workload: "PARKED",
    runs: count,
    seconds_to_park_all: round(parkSeconds),
    queue_jobs_while_parked: jobsWhileParked,
    redis_memory_added_mb: round(memoryAdded / 1024 / 1024),
    seconds_to_resume_all: round((performance.now() - resumeStarted) / 1000),
    cpu_ms_per_run: { park: parkCpuMsPerRun, resume: resumeCpu(count) },
  };
}

async function put(stack: BenchStack, path: string, body: unknown): Promise<void> {
  await requestJson(stack, "PUT", path, body);
}

/** The statuses a PARKED run passes through before reaching each awaited status. */
const STATUSES_BEFORE: Record<string, readonly string[]> = {
  awaiting_approval: ["queued", "running"],
  completed: ["queued", "running", "awaiting_approval"],
};

/**
 * Waits until every run of `runIds` has `status`, watching the bench's database (every 100 ms) rather
 * than the API. The watch must cost Postgres next to nothing, as it shares the machine with what it
 * measures: counting 10,000 runs by id every 100 ms took a tenth of a core. So it asks whether any run
 * is still in an earlier status (one index probe; the bench's database holds only the bench's runs, and
 * the warm-up's have completed), and once none is, checks every run of `runIds` once. A run that failed
 * or was cancelled ends the wait with an error.
 */
async function waitForStatus(stack: BenchStack, runIds: readonly string[], status: string): Promise<void> {
  const before = STATUSES_BEFORE[status];
  if (!before) throw new Error(`waitForStatus: no known path to ${status}`);
  const ours = new Set(runIds);
  return withBenchDatabase(stack, async (client) => {
    for (;;) {
      const { rows: ended } = await client.query<{ id: string; status: string; error_message: string | null }>(
        `SELECT id, status::text, error_message FROM runs WHERE status IN ('failed', 'cancelled')`,
      );
      const endedRun = ended.find((run) => ours.has(run.id));
      if (endedRun) throw new Error(`run ${endedRun.id} ended ${endedRun.status}: ${endedRun.error_message ?? ""}`);
      const { rows } = await client.query<{ waiting: boolean }>(`SELECT EXISTS (SELECT 1 FROM runs WHERE status = ANY($1::"RunStatus"[])) AS waiting`, [
        before,
      ]);
      if (!rows[0]?.waiting) {
        const { rows: counted } = await client.query<{ ready: number }>(
          `SELECT count(*)::int AS ready FROM runs WHERE id = ANY($1) AND status = $2::"RunStatus"`,
          [runIds, status],
        );
        if (counted[0]?.ready === runIds.length) return;
        throw new Error(`${runIds.length - (counted[0]?.ready ?? 0)} of ${runIds.length} runs are neither ${status} nor on their way to it`);
      }
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
  });
}

/** The pending approval of each run of `runIds`. */
async function pendingApprovals(stack: BenchStack, runIds: readonly string[]): Promise<string[]> {
  return withBenchDatabase(stack, async (client) => {
    const { rows } = await client.query<{ id: string }>("SELECT id FROM approvals WHERE run_id = ANY($1) AND status = 'pending'", [runIds]);
    return rows.map((row) => row.id);
  });
}

async function usedMemory(stack: BenchStack): Promise<number> {
  const info = await stack.redis.info("memory");
  return Number(/used_memory:(\d+)/.exec(info)?.[1] ?? 0);
}

/** Jobs of the run queue in Redis (waiting, active, delayed, prioritized, completed, failed). */
async function jobCount(stack: BenchStack): Promise<number> {
  const { Queue } = await import("bullmq");
  const queue = new Queue("runs", { connection: stack.redis, prefix: stack.queuePrefix });
  const counts = await queue.getJobCounts();
  await queue.close();
  const total = Object.values(counts).reduce((sum, value) => sum + value, 0);
  if (total > 0) console.error(`jobs in Redis by state: ${JSON.stringify(counts)}`);
  return total;
}

function round(value: number): number {
  return Math.round(value * 10) / 10;
}

const WORKLOAD_FUNCTIONS: Record<string, (stack: BenchStack) => Promise<Record<string, unknown>>> = {
  W1: workloadW1,
  W2: workloadW2,
  PARKED: workloadParked,
  SLOW: workloadSlow,
  FAIR: workloadFair,
};

/**
 * What runs before a workload is measured (WARMUP runs, on the same stack): the workload itself for
 * W1 and W2, W2 before PARKED (it parks and resumes), W1 with the instant model before SLOW; nothing
 * before FAIR, whose figures compare two users against each other in the same run.
 */
const WARMUP_FUNCTIONS: Record<string, (stack: BenchStack) => Promise<unknown>> = {
  W1: (stack) => workloadW1(stack, WARMUP),
  W2: (stack) => workloadW2(stack, WARMUP),
  PARKED: (stack) => workloadW2(stack, WARMUP),
  SLOW: (stack) => workloadW1(stack, WARMUP),
};

for (const name of WORKLOADS) {
  const workload = WORKLOAD_FUNCTIONS[name];
  if (!workload) {
    console.error(`unknown workload ${name}; known: ${Object.keys(WORKLOAD_FUNCTIONS).join(", ")}`);
    process.exitCode = 1;
    continue;
  }
  // SLOW keeps all its runs in flight on one worker, so that worker gets a slot for each.
  const stack = await startLocalStack({ name: "bench", workerConcurrency: name === "SLOW" ? SLOW_RUNS : WORKER_CONCURRENCY, workers: WORKERS });
  try {
    await liftBenchLimits(stack);
    const warmup = WARMUP > 0 ? WARMUP_FUNCTIONS[name] : undefined;
    if (warmup) await warmup(stack);
    console.log(JSON.stringify({ ...(await workload(stack)), warmup: warmup ? WARMUP : 0, tools: TOOLS ?? "all" }));
  } finally {
    await stack.close();
  }
}
