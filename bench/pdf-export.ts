// `npx tsx bench/pdf-export.ts [megabytes]`: the median of five PDF exports of a generated Markdown
// document (1 MB unless told), in-process. Figures, not assertions: timings never go in tests.
// Wall time moves with whatever else the machine runs; CPU time (this process's, garbage collection
// included) moves much less, so both are printed.
import { exportDocument } from "@agentq/core";
import { largeMarkdownDocument } from "@agentq/core/testing";
import { percentile } from "../scripts/local-stack.ts";

const RUNS = 5;
const megabytes = Number(process.argv[2] ?? 1);
const content = largeMarkdownDocument(megabytes * 1024 * 1024);
const document = { title: "Bench", format: "markdown" as const, content };

const median = (values: readonly number[]) => {
  const sorted = [...values].sort((left, right) => left - right);
  return Math.round(percentile(sorted, 0.5));
};

const wallTimes: number[] = [];
const cpuTimes: number[] = [];
let bytes = 0;
for (let run = 0; run < RUNS; run += 1) {
  const started = performance.now();
  const cpuStarted = process.cpuUsage();
  const exported = await exportDocument(document, "pdf");
  const cpu = process.cpuUsage(cpuStarted);
  wallTimes.push(performance.now() - started);
  cpuTimes.push((cpu.user + cpu.system) / 1000);
  bytes = exported.body.length;
}
console.log(
  JSON.stringify({
    workload: "pdf_export",
    markdown_bytes: Buffer.byteLength(content),
    pdf_bytes: bytes,
    median_ms: median(wallTimes),
    median_cpu_ms: median(cpuTimes),
    runs_ms: wallTimes.map(Math.round),
  }),
);
