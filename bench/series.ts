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

/** Runs `command` and resolves to the last line of its standard output that is a JSON object. */
function lastJsonLine(command: string, args: string[], options: { cwd: string; env: NodeJS.ProcessEnv }): Promise<Record<string, any>> {
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
      resolve(JSON.parse(line));
    });
  });
}

async function agentqRound(workload: string): Promise<SideFigures> {
  const figures = await lastJsonLine(process.execPath, ["--import", "tsx", "bench/run.ts"], {
    cwd: ROOT,
    env: { ...process.env, BENCH_WORKLOADS: workload, BENCH_RUNS: String(RUNS), BENCH_CONCURRENCY: String(CONCURRENCY), BENCH_WARMUP: String(WARMUP) },
  });
  console.log(JSON.stringify({ side: "agentq", ...figures }));
  return {
    runsPerSecond: figures.runs_per_s,
    resumeP50Ms: figures.resume_latency_ms?.p50 ?? null,
    peakRssMb: [figures.api_peak_rss_mb, figures.worker_peak_rss_mb].filter((value): value is number => typeof value === "number"),
    failed: figures.failed ?? 0,
  };
}

async function peerRound(workload: string): Promise<SideFigures> {
  const args = ["run", "-s", `bench:${PEER}`, "--", "--n", String(RUNS), "--c", String(CONCURRENCY), "--workload", workload, "--warmup", String(WARMUP)];
  const figures = await lastJsonLine("npm", args, { cwd: PEERS_DIR as string, env: process.env });
  console.log(JSON.stringify({ side: PEER, ...figures }));
  return {
    runsPerSecond: figures.runsPerSec,
    resumeP50Ms: figures.resumeLatencyMs?.p50 ?? null,
    peakRssMb: typeof figures.maxRssMB === "number" ? [figures.maxRssMB] : [],
    failed: figures.failed ?? 0,
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
