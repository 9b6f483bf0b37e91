// `npx tsx bench/count-syscalls.ts STRACE_FILE CALLS`: system calls per tool call in a trace of
// bench/file-tools.ts taken with `strace -f -o STRACE_FILE` (all threads: the libuv pool does the file
// calls). Only the lines between the script's two marker `access` calls are counted.
import { readFile } from "node:fs/promises";
import { END_MARKER, START_MARKER } from "./file-tools-markers.ts";

const [tracePath, callsArgument] = process.argv.slice(2);
if (tracePath === undefined || callsArgument === undefined) throw new Error("usage: count-syscalls.ts STRACE_FILE CALLS");
const calls = Number(callsArgument);

const counts = new Map<string, number>();
let inside = false;
for (const line of (await readFile(tracePath, "utf8")).split("\n")) {
  if (line.includes(START_MARKER)) {
    inside = true;
    continue;
  }
  if (line.includes(END_MARKER)) break;
  if (!inside) continue;
  // `<... openat resumed>` continues a call counted on its `<unfinished ...>` line.
  const match = /^\d+\s+(?:<\.\.\. )?([a-z0-9_]+)(\(| resumed>)/.exec(line);
  if (match === null || match[2] === " resumed>") continue;
  const name = match[1]!;
  counts.set(name, (counts.get(name) ?? 0) + 1);
}
if (!inside) throw new Error(`no ${START_MARKER} in ${tracePath}: was it traced with strace -f?`);

const perCall = (count: number) => Number((count / calls).toFixed(2));
const total = [...counts.values()].reduce((sum, count) => sum + count, 0);
const sorted = [...counts.entries()].sort((left, right) => right[1] - left[1]);
console.log(JSON.stringify({ calls, syscalls_per_call: perCall(total), by_name: Object.fromEntries(sorted.map(([name, count]) => [name, perCall(count)])) }));
