import { z } from "zod";
import type { ToolContext, ToolDefinition, ToolResult } from "../tool-definition.ts";
import { OutputCapture } from "./output-capture.ts";
import { runProcessGroup, type ProcessGroupOutcome } from "./run-process-group.ts";
import type { ProcessSandbox } from "./sandbox/process-sandbox.ts";

export interface RunCommandToolOptions {
  /** The complete environment of every command; build it with buildToolEnvironment (TOOL_ENV_ALLOW). */
  environment: Record<string, string>;
  /** Where every command runs (bubblewrap, or unconfined with PROCESS_SANDBOX=off). */
  sandbox: ProcessSandbox;
  /** Used when the call gives no timeout_seconds. Default 60 s: long enough for a build step, short enough to notice a hang. */
  defaultTimeoutSeconds?: number;
  /** Largest timeout_seconds a call may ask for. Default 600 s. */
  maxTimeoutSeconds?: number;
  /** Output bytes kept (first and last halves). Default 64 KiB, about 16k tokens. */
  outputLimitBytes?: number;
  /** Between SIGTERM and SIGKILL of the process group. Default 2 000 ms: time to flush and exit cleanly. */
  killGraceMs?: number;
}

/**
 * `run_command {command, timeout_seconds?}`: runs a bash command in the run's workspace, in the
 * process sandbox (no network unless the admin setting `process_network` is on).
 *
 * Effects: `process`, the effect policy treats as able to do anything a shell can (write files,
 * reach the network); it is never read-only, so it is never re-run after a crash.
 * Taints: yes. Its output can carry workspace files (`cat`) or downloaded text (`curl`), both
 * untrusted material that could steer the model.
 * A non-zero exit is a normal result (`ok: true`, the exit code on the first line): the command
 * ran and its output is what the model needs to fix it. `ok: false` means the command did not run
 * to its end: it timed out, was cancelled, or could not start.
 */
export function createRunCommandTool(options: RunCommandToolOptions): ToolDefinition<RunCommandArgs> {
  const defaultTimeoutSeconds = options.defaultTimeoutSeconds ?? 60;
  const maxTimeoutSeconds = options.maxTimeoutSeconds ?? 600;
  const outputLimitBytes = options.outputLimitBytes ?? 64 * 1024;
  const killGraceMs = options.killGraceMs ?? 2_000;
  const environment = { ...options.environment };

  const parameters = z.object({
    command: z.string().min(1).describe("The bash command line to run, e.g. `npm test 2>&1 | tail -50`."),
    timeout_seconds: z
      .number()
      .positive()
      .max(maxTimeoutSeconds)
      .optional()
      .describe(`Seconds before the command and everything it started are killed (default ${defaultTimeoutSeconds}).`),
  });

  return {
    name: "run_command",
    family: "process",
    description:
      "Run a bash command in the workspace root (non-interactive: stdin is empty). Returns the exit code and the " +
      "combined stdout and stderr; long output keeps its beginning and end. Processes it leaves in the background are killed when it ends.",
    parameters,
    effects: ["process"],
    taints: true,
    requiresWorkspace: true,
    describeCall: (args) => args.command,
    async execute(args: RunCommandArgs, context: ToolContext): Promise<ToolResult> {
      if (context.workspace === null) {
        return { ok: false, error: "run_command needs a workspace, and this run has none." };
      }
      if (context.signal.aborted) {
        return { ok: false, error: "the command was not started: the run was cancelled." };
      }
      const timeoutSeconds = args.timeout_seconds ?? defaultTimeoutSeconds;
      let outcome: ProcessGroupOutcome;
      try {
        const request = { command: args.command, workspacePath: context.workspace.rootPath, environment, network: context.settings.processNetwork };
        outcome = await runProcessGroup({
          start: () => options.sandbox.spawn(request),
          timeoutMs: timeoutSeconds * 1000,
          signal: context.signal,
          output: new OutputCapture(outputLimitBytes),
          killGraceMs,
        });
      } catch (error) {
        const message = error instanceof Error ? error.message : String(error);
        return { ok: false, error: `the command could not be started: ${message}.` };
      }
      return commandResult(outcome, timeoutSeconds);
    },
  };
}

export interface RunCommandArgs {
  command: string;
  timeout_seconds?: number | undefined;
}

function commandResult(outcome: ProcessGroupOutcome, timeoutSeconds: number): ToolResult {
  const seconds = (outcome.durationMs / 1000).toFixed(2);
  const text = outcome.output.text();
  const shownOutput = outcome.output.totalBytes === 0 ? "(no output)" : text;
  const data = {
    exit_code: outcome.exitCode,
    signal: outcome.exitSignal,
    termination: outcome.termination,
    duration_ms: Math.round(outcome.durationMs),
    output_bytes: outcome.output.totalBytes,
    omitted_bytes: outcome.output.omittedBytes,
  };
  switch (outcome.termination) {
    case "exited": {
      const status = outcome.exitCode !== null ? `exit code ${outcome.exitCode}` : `killed by signal ${outcome.exitSignal ?? "unknown"}`;
      return { ok: true, output: `[${status}, ${seconds} s]\n${shownOutput}`, data };
    }
    case "timed_out":
      return {
        ok: false,
        error: `the command timed out after ${timeoutSeconds} s and was killed with everything it started. Output so far:\n${shownOutput}`,
        data,
      };
    case "cancelled":
      return { ok: false, error: `the command was cancelled after ${seconds} s and killed. Output so far:\n${shownOutput}`, data };
    default: {
      const unreachable: never = outcome.termination;
      throw new Error(`unknown termination ${String(unreachable)}`);
    }
  }
}
