// `npm run bench:series`: one interleaved series of agentq (`npm run bench`) and a peer of the shared
// harness, run back to back on this machine, round by round (agentq, peer, agentq, peer, ...), then a
// table of both with medians and agentq's ratio to the peer: the comparison the issue "Throughput and
// memory" asks for, from one command. These machines wander by 20 % or more within minutes, so only
// ratios from one series mean anything.
//
// BENCH_PEERS_DIR (required): a writable copy of the shared `bench-peers` folder with `npm ci` done.
// BENCH_PEER (default openai-agents): the peer's npm script, `bench:<peer>`. BENCH_SERIES_ROUNDS (3)
// and BENCH_SERIES_WORKLOADS (W1,W2); BENCH_RUNS (300), BENCH_CONCURRENCY (50) and BENCH_WARMUP (50)
// go to both sides (the peer's --n, --c and --warmup). Each round's raw figures are printed as JSON
// lines as they come; the table last.
import { spawn } from "node:child_process";
import { existsSync } from "node:fs";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { z } from "zod";
import { type SeriesRound, type SideFigures, seriesMarkdown, summarizeSeries } from "./series-summary.ts";

const ROOT = fileURLToPath(new URL("..", import.meta.url));
const PEERS_DIR = process.env.BENCH_PEERS_DIR;
const PEER = process.env.BENCH_PEER ?? "openai-agents";
const ROUNDS = Number(process.env.BENCH_SERIES_ROUNDS ?? 3);
const WORKLOADS = (process.env.BENCH_SERIES_WORKLOADS ?? "W1,W2").split(",").map((name) => name.trim());
const RUNS = Number(process.env.BENCH_RUNS ?? 300);
const CONCURRENCY = Number(process.env.BENCH_CONCURRENCY ?? 50);
const WARMUP = Number(process.env.BENCH_WARMUP ?? 50);

if (!PEERS_DIR || !existsSync(join(PEERS_DIR, "node_modules"))) {
  console.error("BENCH_PEERS_DIR must name a copy of bench-peers with its packages installed (cp -r ../shared/bench-peers DIR && cd DIR && npm ci)");
  process.exit(2);
}
if (!Number.isInteger(ROUNDS) || ROUNDS < 1) {
  console.error("BENCH_SERIES_ROUNDS must be a positive integer");
  process.exit(2);
}

/**
 * The figures this series reads from each side's last JSON line, checked as any input from another
 * program: a harness whose output changed fails here, naming the field, rather than as a NaN in the table.
 */
const agentqFigures = z.object({
  runs_per_s: z.number(),
  failed: z.number(),
  resume_latency_ms: z.object({ p50: z.number() }).optional(),
  resume_executed_ms: z.object({ p50: z.number() }).optional(),
  api_peak_rss_mb: z.number().nullable(),
  worker_peak_rss_mb: z.number().nullable(),
});
const peerFigures = z.object({
  runsPerSec: z.number(),
  failed: z.number(),
  resumeLatencyMs: z.object({ p50: z.number() }).optional(),
  maxRssMB: z.number().optional(),
});

/** Runs `command` and resolves to the last line of its standard output that is a JSON object, as it printed it. */
function lastJsonLine(command: string, args: string[], options: { cwd: string; env: NodeJS.ProcessEnv }): Promise<string> {
  return new Promise((resolve, reject) => {
    const child = spawn(command, args, { cwd: options.cwd, env: options.env, stdio: ["ignore", "pipe", "inherit"] });
    let output = "";
    child.stdout.on("data", (chunk: Buffer) => {
      output += chunk.toString();
    });
    child.once("error", reject);
    child.once("exit", (code) => {
      const line = output
        .split("\n")
        .reverse()
        .find((candidate) => candidate.trim().startsWith("{"));
      if (code !== 0 || line === undefined) return reject(new Error(`${command} ${args.join(" ")} exited ${code} without a JSON line`));
      resolve(line);
    });
  });
}

async function agentqRound(workload: string): Promise<SideFigures> {
  const line = await lastJsonLine(process.execPath, ["--import", "tsx", "bench/run.ts"], {
    cwd: ROOT,
    env: { ...process.env, BENCH_WORKLOADS: workload, BENCH_RUNS: String(RUNS), BENCH_CONCURRENCY: String(CONCURRENCY), BENCH_WARMUP: String(WARMUP) },
  });
  const json: unknown = JSON.parse(line);
  console.log(JSON.stringify({ side: "agentq", ...(json as object) }));
  const figures = agentqFigures.parse(json);
  return {
    runsPerSecond: figures.runs_per_s,
    // Like for like with the peer, which stamps its tool's execution; the delivery to the client beside it.
    resumeP50Ms: figures.resume_executed_ms?.p50 ?? null,
    resumeDeliveredP50Ms: figures.resume_latency_ms?.p50 ?? null,
    peakRssMb: [figures.api_peak_rss_mb, figures.worker_peak_rss_mb].filter((value): value is number => value !== null),
    failed: figures.failed,
  };
}

async function peerRound(workload: string): Promise<SideFigures> {
  const args = ["run", "-s", `bench:${PEER}`, "--", "--n", String(RUNS), "--c", String(CONCURRENCY), "--workload", workload, "--warmup", String(WARMUP)];
  const line = await lastJsonLine("npm", args, { cwd: PEERS_DIR as string, env: process.env });
  const json: unknown = JSON.parse(line);
  console.log(JSON.stringify({ side: PEER, ...(json as object) }));
  const figures = peerFigures.parse(json);
  return {
    runsPerSecond: figures.runsPerSec,
    resumeP50Ms: figures.resumeLatencyMs?.p50 ?? null,
    resumeDeliveredP50Ms: null,
    peakRssMb: figures.maxRssMB === undefined ? [] : [figures.maxRssMB],
    failed: figures.failed,
  };
}

const rounds: SeriesRound[] = [];
for (const workload of WORKLOADS) {
  for (let index = 0; index < ROUNDS; index++) {
    const agentq = await agentqRound(workload);
    const peer = await peerRound(workload);
    rounds.push({ workload, agentq, peer });
  }
}
console.log(`\n${seriesMarkdown(summarizeSeries(rounds), PEER)}`);
