/**
 * The contract between the process tools (`run_command`, background jobs) and the sandbox that
 * confines them (DESIGN.md invariant 10, API.md "Process tools, the sandbox and background jobs").
 * A tool never spawns a shell itself: it asks the sandbox for a `SpawnInvocation` and spawns exactly
 * that, with exactly that environment.
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

/** A spawn to perform as given: `spawn(file, args, { cwd, env, detached: true })`. */
export interface SpawnInvocation {
  file: string;
  args: string[];
  /** The complete environment of the spawned process (for bubblewrap itself: empty). */
  env: Record<string, string>;
  cwd: string;
}

export interface ProcessSandbox {
  /** `bwrap`: confined by bubblewrap; `off`: PROCESS_SANDBOX=off, unconfined (single-user development). */
  readonly mode: "bwrap" | "off";
  invocation(request: SandboxRequest): SpawnInvocation;
}

/** The result of probing the sandbox once at process start. */
export type SandboxAvailability =
  | { available: true; sandbox: ProcessSandbox }
  | { available: false; reason: string };
