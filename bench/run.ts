// `npm run bench`: end-to-end workloads against a real agentq (API and worker processes, Postgres,
// Redis, the fake provider with no latency). Prints one JSON line per workload: figures, not
// assertions. BENCH_RUNS / BENCH_CONCURRENCY / BENCH_WORKLOADS (comma list: W1,W2) override defaults.
import WebSocket from "ws";
import { scenarioInput } from "@agentq/core/testing/scenario-responder";
import { committedTransactions, peakRssMb, percentile, startLocalStack, type LocalStack as BenchStack } from "../scripts/local-stack.ts";

const RUNS = Number(process.env.BENCH_RUNS ?? 500);
const CONCURRENCY = Number(process.env.BENCH_CONCURRENCY ?? 50);
const WORKLOADS = (process.env.BENCH_WORKLOADS ?? "W1").split(",").map((name) => name.trim());

interface Follower {
  onEvent(runId: string, event: { seq: number; type: string; data: Record<string, unknown> }): void;
}

async function connect(stack: BenchStack, follower: Follower): Promise<WebSocket> {
  const socket = new WebSocket(`${stack.url.replace("http", "ws")}/api/ws?token=${stack.token}`);
  socket.on("message", (raw) => {
    const message = JSON.parse(raw.toString());
    if (message.type === "event") follower.onEvent(message.run_id, message.event);
  });
  await new Promise<void>((resolve, reject) => {
    socket.once("open", () => resolve());
    socket.once("error", reject);
  });
  return socket;
}

async function post(stack: BenchStack, path: string, body: unknown): Promise<any> {
  const response = await fetch(`${stack.url}${path}`, {
    method: "POST",
    headers: { authorization: `Bearer ${stack.token}`, "content-type": "application/json" },
    body: JSON.stringify(body),
  });
  const json = await response.json();
  if (!response.ok) throw new Error(`POST ${path}: ${response.status} ${JSON.stringify(json)}`);
  return json;
}

/** Runs `count` tasks with at most `concurrency` at once. */
async function pool(count: number, concurrency: number, task: (index: number) => Promise<void>): Promise<void> {
  let next = 0;
  await Promise.all(
    Array.from({ length: Math.min(concurrency, count) }, async () => {
      while (next < count) {
        const index = next;
        next += 1;
        await task(index);
      }
    }),
  );
}

/** W1: write_file b.txt → read_file b.txt → final answer; POST → run.completed on a WebSocket. */
async function workloadW1(stack: BenchStack): Promise<Record<string, unknown>> {
  const workspace = await post(stack, "/api/workspaces", { name: "bench" });
  const chats = await Promise.all(Array.from({ length: RUNS }, () => post(stack, "/api/chats", { workspace_id: workspace.id })));
  const waiting = new Map<string, () => void>();
  const early = new Set<string>();
  const socket = await connect(stack, {
    onEvent(runId, event) {
      if (event.type !== "run.completed" && event.type !== "run.failed") return;
      const done = waiting.get(runId);
      if (done) done();
      else early.add(runId);
    },
  });
  const latencies: number[] = [];
  let failed = 0;
  const transactionsBefore = await committedTransactions(stack);
  const started = performance.now();
  await pool(RUNS, CONCURRENCY, async (index) => {
    const begin = performance.now();
    const input = scenarioInput([
      { tool: "write_file", args: { path: `b-${index}.txt`, content: `hello ${index}` } },
      { tool: "read_file", args: { path: `b-${index}.txt` } },
      { text: "done" },
    ]);
    const run = await post(stack, `/api/chats/${chats[index].id}/runs`, { input });
    await new Promise<void>((resolve) => {
      if (early.delete(run.id)) return resolve();
      waiting.set(run.id, resolve);
      socket.send(JSON.stringify({ type: "subscribe", run_id: run.id, after: 0 }));
    });
    waiting.delete(run.id);
    latencies.push(performance.now() - begin);
    const final = await fetch(`${stack.url}/api/runs/${run.id}`, { headers: { authorization: `Bearer ${stack.token}` } }).then((response) => response.json() as Promise<{ status: string }>);
    if (final.status !== "completed") failed += 1;
  });
  const elapsedSeconds = (performance.now() - started) / 1000;
  const transactions = (await committedTransactions(stack)) - transactionsBefore;
  socket.close();
  latencies.sort((a, b) => a - b);
  const p50 = percentile(latencies, 0.5);
  return {
    workload: "W1",
    runs: RUNS,
    concurrency: CONCURRENCY,
    failed,
    runs_per_s: round(RUNS / elapsedSeconds),
    latency_ms: { p50: round(p50), p99: round(percentile(latencies, 0.99)) },
    // The fake model answers at once, so a run's latency is orchestration: queue, leases, commits, fan-out.
    per_round_overhead_ms_p50: round(p50 / 3),
    postgres_transactions_per_run: round(transactions / RUNS),
    api_peak_rss_mb: peakRssMb(stack.api),
    worker_peak_rss_mb: peakRssMb(stack.worker),
  };
}

function round(value: number): number {
  return Math.round(value * 10) / 10;
}

const WORKLOAD_FUNCTIONS: Record<string, (stack: BenchStack) => Promise<Record<string, unknown>>> = { W1: workloadW1 };

for (const name of WORKLOADS) {
  const workload = WORKLOAD_FUNCTIONS[name];
  if (!workload) {
    console.error(`unknown workload ${name}; known: ${Object.keys(WORKLOAD_FUNCTIONS).join(", ")}`);
    process.exitCode = 1;
    continue;
  }
  const stack = await startLocalStack({ name: "bench", workerConcurrency: CONCURRENCY });
  try {
    console.log(JSON.stringify(await workload(stack)));
  } finally {
    await stack.close();
  }
}
