import { performance } from "node:perf_hooks";
import type { OutputCapture } from "./output-capture.ts";
import { processGroupAlive } from "./process-group-alive.ts";
import type { SandboxedProcess } from "./sandbox/process-sandbox.ts";

/** Where the command's output goes, chunk by chunk in stream order (an OutputCapture, a job's output file). */
export interface OutputSink {
  append(chunk: Buffer): void;
}

export interface RunProcessGroupOptions<Output extends OutputSink> {
  /** Starts the command (in the sandbox): stdout and stderr piped, the leader of its own process group. */
  start: () => Promise<SandboxedProcess>;
  timeoutMs: number;
  /** Aborting it kills the process group, as a timeout does. */
  signal: AbortSignal;
  output: Output;
  /** Time between SIGTERM and SIGKILL. */
  killGraceMs: number;
}

export type ProcessTermination = "exited" | "timed_out" | "cancelled";

export interface ProcessGroupOutcome<Output extends OutputSink = OutputCapture> {
  termination: ProcessTermination;
  /** The shell's exit code; null when it was ended by a signal. */
  exitCode: number | null;
  exitSignal: NodeJS.Signals | null;
  durationMs: number;
  output: Output;
}

const POLL_INTERVAL_MS = 25;

/**
 * Runs a command started by the sandbox (`bash -c <command>`, the leader of its own process group,
 * stdin on /dev/null, stdout and stderr on one pipe, so the output is interleaved as a terminal would
 * show it). On timeout or abort the whole group gets SIGTERM, then SIGKILL after the grace period, so
 * backgrounded grandchildren die with it. When the shell exits on its own, whatever it left running
 * in its group is ended the same way: no process outlives the call. (In the bubblewrap sandbox the
 * command's pid namespace ends with it, which also takes processes that left the group with `setsid`.)
 * Rejects only when the command cannot be started at all.
 */
export async function runProcessGroup<Output extends OutputSink>(options: RunProcessGroupOptions<Output>): Promise<ProcessGroupOutcome<Output>> {
  const output = options.output;
  const startedAt = performance.now();
  const started = await options.start();
  const child = started.child;
  child.stdout.on("data", (chunk: Buffer) => output.append(chunk));
  child.stderr.on("data", (chunk: Buffer) => output.append(chunk));
  const streamsClosed = new Promise<void>((resolve) => child.once("close", () => resolve()));
  if (child.pid === undefined) throw new Error("the command did not start");
  const pid = child.pid;

  let termination: ProcessTermination = "exited";
  let killTimer: NodeJS.Timeout | undefined;
  const terminate = (reason: ProcessTermination): void => {
    if (termination !== "exited") return;
    termination = reason;
    signalGroup(pid, "SIGTERM");
    killTimer = setTimeout(() => signalGroup(pid, "SIGKILL"), options.killGraceMs);
  };
  const timeoutTimer = setTimeout(() => terminate("timed_out"), options.timeoutMs);
  const onAbort = (): void => terminate("cancelled");
  if (options.signal.aborted) onAbort();
  else options.signal.addEventListener("abort", onAbort, { once: true });

  try {
    const [exitCode, exitSignal] = await new Promise<[number | null, NodeJS.Signals | null]>((resolve) => {
      if (child.exitCode !== null || child.signalCode !== null) resolve([child.exitCode, child.signalCode]);
      else child.once("exit", (code, signal) => resolve([code, signal]));
    });
    const durationMs = performance.now() - startedAt;
    clearTimeout(timeoutTimer);
    await endGroup(pid, options.killGraceMs);
    // Every process in the group is gone, so the pipe closes; a process that escaped the group
    // (setsid) could still hold it open: stop reading rather than wait for it.
    const closedInTime = await Promise.race([streamsClosed.then(() => true), delay(options.killGraceMs).then(() => false)]);
    if (!closedInTime) {
      child.stdout.destroy();
      child.stderr.destroy();
    }
    return { termination, exitCode, exitSignal, durationMs, output };
  } finally {
    await started.release();
    clearTimeout(timeoutTimer);
    if (killTimer !== undefined) clearTimeout(killTimer);
    options.signal.removeEventListener("abort", onAbort);
  }
}

/** SIGTERM what is left of the group, SIGKILL it after the grace period, and wait until it is gone. */
async function endGroup(pid: number, graceMs: number): Promise<void> {
  if (!processGroupAlive(pid)) return;
  signalGroup(pid, "SIGTERM");
  if (await waitUntilGone(pid, graceMs)) return;
  signalGroup(pid, "SIGKILL");
  // Bounded: a process stuck in uninterruptible sleep (D) cannot die before its I/O returns.
  await waitUntilGone(pid, 1_000);
}

function signalGroup(pid: number, signal: NodeJS.Signals): boolean {
  try {
    process.kill(-pid, signal);
    return true;
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === "ESRCH") return false;
    throw error;
  }
}

async function waitUntilGone(pid: number, timeoutMs: number): Promise<boolean> {
  const deadline = performance.now() + timeoutMs;
  while (processGroupAlive(pid)) {
    if (performance.now() >= deadline) return false;
    await delay(POLL_INTERVAL_MS);
  }
  return true;
}

function delay(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms));
}
