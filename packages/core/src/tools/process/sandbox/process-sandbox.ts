import type { ChildProcessByStdio } from "node:child_process";
import type { Readable } from "node:stream";

/**
 * The contract between the process tools (`run_command`, background jobs) and the sandbox that
 * confines them (docs/design.md invariant 10, API.md "Process tools, the sandbox and background jobs").
 * A tool never spawns a shell itself: it asks the sandbox to start the command, and the sandbox
 * spawns it with an argv array and exactly the environment it should have.
 */

/** What one command may see and do. */
export interface SandboxRequest {
  /** The bash command line, passed to `bash -c` as one argument (never concatenated into a script). */
  command: string;
  /** Absolute real path of the run's workspace: bound read-write, and the command's working directory. */
  workspacePath: string;
  /** The TOOL_ENV_ALLOW variables the command gets; nothing else of the worker's environment. */
  environment: Record<string, string>;
  /** Share the host's network (admin setting `process_network`); false = an empty network namespace. */
  network: boolean;
}

/**
 * A long-lived server process (an MCP stdio server), spoken to over its stdin/stdout: the host's file
 * system read-only except what is hidden, a private /tmp, its given environment only.
 */
export interface ServerSandboxRequest {
  /** The program (a path, or a name looked up on the request's PATH) and its arguments; no shell. */
  file: string;
  args: string[];
  /**
   * The server's whole environment (HOME is the private /tmp unless given). It travels in the spawned
   * process's environment, never in its argv (which any host process could read in /proc).
   */
  environment: Record<string, string>;
  /** Variables the spawner adds to the environment it is given (the MCP SDK adds PATH, HOME, USER...): removed before the server starts unless `environment` names them. */
  inheritedVariables: readonly string[];
  /** Share the host's network; false = an empty network namespace. */
  network: boolean;
  /** Host directories hidden behind an empty tmpfs (the workspaces root: other users' files). */
  hiddenPaths: string[];
}

/** A spawn to perform as given: `spawn(file, args, { cwd, env, detached: true })`. */
export interface SpawnInvocation {
  file: string;
  args: string[];
  /** The complete environment of the spawned process (for bubblewrap itself: empty). */
  env: Record<string, string>;
  cwd: string;
}

/** A started command: stdout and stderr piped, the leader of its own process group. */
export interface SandboxedProcess {
  child: ChildProcessByStdio<null, Readable, Readable>;
  /** Releases what the sandbox holds for it (its cgroup); call once the process has exited. */
  release(): Promise<void>;
}

/** The limits every sandboxed command runs under (besides the caller's timeout and output cap). */
export interface SandboxLimits {
  /** Processes and threads at once (cgroup pids). Default 256. */
  maxProcesses: number;
  /** Open files per process (RLIMIT_NOFILE). Default 1024. */
  maxOpenFiles: number;
  /** Largest file a process may write (RLIMIT_FSIZE). Default 1 GiB. */
  maxFileSizeBytes: number;
  /** Size of the private /tmp (a tmpfs). Default 256 MiB. */
  tmpSizeBytes: number;
}

export const DEFAULT_SANDBOX_LIMITS: SandboxLimits = {
  maxProcesses: 256,
  maxOpenFiles: 1024,
  maxFileSizeBytes: 1024 * 1024 * 1024,
  tmpSizeBytes: 256 * 1024 * 1024,
};

export interface ProcessSandbox {
  /** `bwrap`: confined by bubblewrap; `off`: PROCESS_SANDBOX=off, unconfined (single-user development). */
  readonly mode: "bwrap" | "off";
  /** Which limits hold here, for logs and /readyz (e.g. `processes: "cgroup v1"`, or why not). */
  readonly enforcement: Record<string, string>;
  invocation(request: SandboxRequest): SpawnInvocation;
  /** How to start a server process confined (its stdout stays its own: stderr is not joined to it). */
  serverInvocation(request: ServerSandboxRequest): SpawnInvocation;
  /** Starts the command confined; rejects when it cannot be started at all. */
  spawn(request: SandboxRequest): Promise<SandboxedProcess>;
}

/** The result of probing the sandbox once at process start. */
export type SandboxAvailability = { available: true; sandbox: ProcessSandbox } | { available: false; reason: string };
