// FAIR (issue 17): user A queues a backlog of FAIR_BACKLOG runs; user B starts one run a second while
// it drains. Reported: B's queue wait (created → started) p50/p99, and A's throughput with B beside
// it compared with the same backlog alone.
import pg from "pg";
import { scenarioInput } from "@agentq/core/testing";
import { type LocalStack, percentile } from "../scripts/local-stack.ts";
import { type BenchClient, pool, requestJson } from "./bench-requests.ts";

const BACKLOG = Number(process.env.BENCH_FAIR_BACKLOG ?? 500);
/** Each of A's runs is one model round this long: the backlog is work to wait behind, not overhead. */
const A_RUN_MS = Number(process.env.BENCH_FAIR_RUN_MS ?? 2000);

async function withDatabase<T>(stack: LocalStack, work: (client: pg.Client) => Promise<T>): Promise<T> {
  const url = new URL(stack.adminUrl);
  url.pathname = `/${stack.databaseName}`;
  const client = new pg.Client({ connectionString: url.toString() });
  await client.connect();
  try {
    return await work(client);
  } finally {
    await client.end();
  }
}

/** A's backlog, with or without B; returns A's runs/s and B's waits in ms. */
async function drainBacklog(stack: LocalStack, withB: boolean, label: string): Promise<{ aRunsPerSecond: number; bWaits: number[] }> {
  const admin: BenchClient = { url: stack.url, token: stack.token };
  const userA = await requestJson(admin, "POST", "/api/users", { name: `fair-a-${label}` });
  const userB = await requestJson(admin, "POST", "/api/users", { name: `fair-b-${label}` });
  // A may use every worker slot: what keeps B's runs moving is fair dispatch, not A's concurrency limit.
  await requestJson(admin, "PATCH", `/api/users/${userA.id}`, { max_active_runs: 100_000 });
  const a: BenchClient = { url: stack.url, token: userA.token };
  const b: BenchClient = { url: stack.url, token: userB.token };
  const chats: string[] = [];
  await pool(BACKLOG, 50, async () => {
    chats.push((await requestJson(a, "POST", "/api/chats", {})).id);
  });
  const input = scenarioInput([{ text: "a", delayMs: A_RUN_MS }]);
  const started = performance.now();
  await pool(BACKLOG, 50, async (index) => {
    await requestJson(a, "POST", `/api/chats/${chats[index]}/runs`, { input });
  });
  const bRuns: string[] = [];
  let done = false;
  const arrivals = (async () => {
    while (withB && !done) {
      const chat = await requestJson(b, "POST", "/api/chats", {});
      bRuns.push((await requestJson(b, "POST", `/api/chats/${chat.id}/runs`, { input: scenarioInput([{ text: "b" }]) })).id);
      await new Promise((resolve) => setTimeout(resolve, 1000));
    }
  })();
  await withDatabase(stack, async (client) => {
    for (;;) {
      const result = await client.query<{ finished: string }>(
        "SELECT count(*) AS finished FROM runs WHERE user_id = $1 AND status IN ('completed', 'failed', 'cancelled')",
        [userA.id],
      );
      if (Number(result.rows[0]?.finished) >= BACKLOG) break;
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
  });
  const elapsedSeconds = (performance.now() - started) / 1000;
  done = true;
  await arrivals;
  const bWaits = await withDatabase(stack, async (client) => {
    // B's last run may still be starting: wait for every one to have started.
    for (;;) {
      const result = await client.query<{ wait_ms: number | null }>(
        "SELECT (EXTRACT(EPOCH FROM (started_at - created_at)) * 1000)::float8 AS wait_ms FROM runs WHERE id = ANY($1)",
        [bRuns],
      );
      if (result.rows.every((row) => row.wait_ms !== null)) return result.rows.map((row) => row.wait_ms as number);
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
  });
  return { aRunsPerSecond: BACKLOG / elapsedSeconds, bWaits };
}

export async function workloadFair(stack: LocalStack): Promise<Record<string, unknown>> {
  const alone = await drainBacklog(stack, false, "alone");
  const shared = await drainBacklog(stack, true, "shared");
  const waits = [...shared.bWaits].sort((x, y) => x - y);
  const round = (value: number) => Math.round(value * 10) / 10;
  return {
    workload: "FAIR",
    backlog: BACKLOG,
    a_run_ms: A_RUN_MS,
    b_runs: waits.length,
    b_queue_wait_ms: { p50: round(percentile(waits, 0.5)), p99: round(percentile(waits, 0.99)), max: round(waits.at(-1) ?? Number.NaN) },
    a_runs_per_s_alone: round(alone.aRunsPerSecond),
    a_runs_per_s_with_b: round(shared.aRunsPerSecond),
    a_throughput_change_percent: round(((shared.aRunsPerSecond - alone.aRunsPerSecond) / alone.aRunsPerSecond) * 100),
  };
}
