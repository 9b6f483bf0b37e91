// `npx tsx bench/file-tools.ts [calls] [core-src-dir]`: the W1 pair of file tool calls (write_file b-N.txt,
// then read_file b-N.txt) run `calls` times (default 5,000 pairs) through the real tool handlers, in-process,
// in a fresh temporary workspace. Prints wall and CPU milliseconds per call. `core-src-dir` (default this
// checkout's packages/core/src) lets another checkout's tools run under the same script, to compare.
// Figures, not assertions: timings never go in tests.
//
// Under `strace -f -o FILE`, the loop is framed by two failing `access` calls on marker paths, so the
// system calls of the calls themselves can be counted apart from start-up (bench/count-syscalls.ts).
import { access, mkdir, mkdtemp, realpath, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import path from "node:path";
import { pathToFileURL } from "node:url";
import { END_MARKER, START_MARKER } from "./file-tools-markers.ts";

const calls = Number(process.argv[2] ?? 5000);
const coreSource = path.resolve(process.argv[3] ?? path.join(import.meta.dirname, "../packages/core/src"));

type Tools = typeof import("../packages/core/src/tools/files/create-file-tools.ts");
type Ledger = typeof import("../packages/core/src/tools/files/in-memory-file-read-ledger.ts");
type Context = import("../packages/core/src/tools/tool-definition.ts").ToolContext;

const { createFileTools } = (await import(pathToFileURL(path.join(coreSource, "tools/files/create-file-tools.ts")).href)) as Tools;
const { createInMemoryFileReadLedger } = (await import(pathToFileURL(path.join(coreSource, "tools/files/in-memory-file-read-ledger.ts")).href)) as Ledger;

const base = await realpath(await mkdtemp(path.join(tmpdir(), "agentq-bench-files-")));
// Deployed roots sit a few levels down (WORKSPACES_ROOT/<id>); resolving costs per level, so do not bench a shallow one.
const root = path.join(base, "workspaces", "ws_bench");
await mkdir(root, { recursive: true });
const tools = new Map(createFileTools().map((tool) => [tool.name, tool]));
const writeFile = tools.get("write_file")!;
const readFile = tools.get("read_file")!;
const context: Context = {
  runId: "run_bench",
  chatId: "chat_bench",
  userId: "usr_bench",
  workspace: { id: "ws_bench", rootPath: root },
  signal: new AbortController().signal,
  fileReads: createInMemoryFileReadLedger(),
  settings: { webFetchAllow: [], processNetwork: false },
};

async function pair(index: number): Promise<void> {
  const written = await writeFile.execute(writeFile.parameters.parse({ path: `b-${index}.txt`, content: `hello ${index}` }), context);
  if (!written.ok) throw new Error(`write_file failed: ${written.error}`);
  const read = await readFile.execute(readFile.parameters.parse({ path: `b-${index}.txt` }), context);
  if (!read.ok || !read.output.includes(`hello ${index}`)) throw new Error(`read_file failed: ${JSON.stringify(read)}`);
}

// Warm up the module graph and the JIT outside the measured loop.
for (let index = 0; index < 200; index += 1) await pair(-1 - index);

await access(START_MARKER).catch(() => undefined);
const started = performance.now();
const cpuStarted = process.cpuUsage();
for (let index = 0; index < calls; index += 1) await pair(index);
const cpu = process.cpuUsage(cpuStarted);
const wallMs = performance.now() - started;
await access(END_MARKER).catch(() => undefined);

await rm(base, { recursive: true, force: true });
console.log(
  JSON.stringify({
    workload: "file_tools_w1_pair",
    core: path.relative(process.cwd(), coreSource) || ".",
    calls: calls * 2,
    wall_ms_per_call: Number((wallMs / (calls * 2)).toFixed(4)),
    cpu_ms_per_call: Number(((cpu.user + cpu.system) / 1000 / (calls * 2)).toFixed(4)),
  }),
);
