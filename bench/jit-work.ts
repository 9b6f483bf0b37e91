// `npx tsx bench/jit-work.ts`: how much V8 compiles and throws away in the API and the worker during a W1
// (`npm run bench`, BENCH_RUNS default 1,500, its 50 warm-up runs and start included): runs W1 with the
// processes' `--trace-opt --trace-deopt` and counts, across both, the deopts (and how many were "wrong map",
// an object of a shape the optimized code did not expect), the TurboFan compiles and their time. Deopt and
// compile counts barely move between identical runs, unlike runs/s on these machines: a change that makes hot
// objects keep one shape shows here first. Prints one JSON line with the top deopting functions; compare two
// versions interleaved, as ever.
import { spawn } from "node:child_process";
import { fileURLToPath } from "node:url";

const ROOT = fileURLToPath(new URL("..", import.meta.url));
const RUNS = process.env.BENCH_RUNS ?? "1500";

const child = spawn(process.execPath, ["--import", "tsx", "bench/run.ts"], {
  cwd: ROOT,
  env: {
    ...process.env,
    BENCH_WORKLOADS: "W1",
    BENCH_RUNS: RUNS,
    // The processes' standard output is this process's pipe: V8 writes its traces there.
    AGENTQ_STACK_LOGS: "1",
    AGENTQ_STACK_NODE_FLAGS: `${process.env.AGENTQ_STACK_NODE_FLAGS ?? ""} --trace-opt --trace-deopt`.trim(),
  },
  stdio: ["ignore", "pipe", "inherit"],
});

const deoptsByFunction = new Map<string, number>();
let deopts = 0;
let wrongMapDeopts = 0;
let compiles = 0;
let compileMs = 0;
let benchLine: string | undefined;
let partial = "";

function count(line: string): void {
  // [bailout (kind: deopt-eager, reason: wrong map): begin. deoptimizing 0x… <JSFunction name (sfi = …)>, …]
  const bailout = /^\[bailout \(kind: [^,]+, reason: ([^)]*)\): begin\. deoptimizing 0x[0-9a-f]+ <JSFunction (\S*)/.exec(line);
  if (bailout) {
    deopts += 1;
    if (bailout[1] === "wrong map") wrongMapDeopts += 1;
    // An anonymous function is printed as `<JSFunction (sfi = …)>`.
    const name = bailout[2] && !bailout[2].startsWith("(") ? bailout[2] : "(anonymous)";
    deoptsByFunction.set(name, (deoptsByFunction.get(name) ?? 0) + 1);
    return;
  }
  // [completed compiling 0x… <JSFunction name (sfi = …)> (target TURBOFAN) - took 0.1, 8.0, 0.05 ms]
  const compiled = /^\[completed compiling .* - took ([\d.]+), ([\d.]+), ([\d.]+) ms\]/.exec(line);
  if (compiled) {
    compiles += 1;
    compileMs += Number(compiled[1]) + Number(compiled[2]) + Number(compiled[3]);
    return;
  }
  if (line.startsWith('{"workload"')) benchLine = line;
}

child.stdout.on("data", (chunk: Buffer) => {
  const lines = (partial + chunk.toString()).split("\n");
  partial = lines.pop() ?? "";
  for (const line of lines) count(line);
});

const code = await new Promise<number | null>((resolve, reject) => {
  child.once("error", reject);
  child.once("exit", resolve);
});
if (partial) count(partial);
if (code !== 0 || benchLine === undefined) {
  console.error(`bench/run.ts exited ${code}${benchLine === undefined ? " without its JSON line" : ""}`);
  process.exit(1);
}
const bench = JSON.parse(benchLine) as { runs_per_s: number; failed: number };
console.log(
  JSON.stringify({
    workload: "W1",
    runs: Number(RUNS),
    runs_per_s: bench.runs_per_s,
    failed: bench.failed,
    deopts,
    wrong_map_deopts: wrongMapDeopts,
    turbofan_compiles: compiles,
    turbofan_compile_ms: Math.round(compileMs),
    top_deopts: Object.fromEntries([...deoptsByFunction].sort((left, right) => right[1] - left[1]).slice(0, 10)),
  }),
);
