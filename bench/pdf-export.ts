// `npx tsx bench/pdf-export.ts [megabytes]`: the median of five PDF exports of a generated Markdown
// document (1 MB unless told), in-process. Figures, not assertions: timings never go in tests.
import { exportDocument } from "@agentq/core";
import { largeMarkdownDocument } from "@agentq/core/testing";

const RUNS = 5;
const megabytes = Number(process.argv[2] ?? 1);
const content = largeMarkdownDocument(megabytes * 1024 * 1024);
const document = { title: "Bench", format: "markdown" as const, content };

const timings: number[] = [];
let bytes = 0;
for (let run = 0; run < RUNS; run += 1) {
  const started = performance.now();
  const exported = await exportDocument(document, "pdf");
  timings.push(performance.now() - started);
  bytes = exported.body.length;
}
timings.sort((left, right) => left - right);
console.log(
  JSON.stringify({
    workload: "pdf_export",
    markdown_bytes: Buffer.byteLength(content),
    pdf_bytes: bytes,
    median_ms: Math.round(timings[Math.floor(RUNS / 2)] ?? 0),
    runs_ms: timings.map(Math.round),
  }),
);
