import { execFile } from "node:child_process";
import { mkdtemp, readFile, realpath, rm, writeFile } from "node:fs/promises";
import { promisify } from "node:util";
import { tmpdir } from "node:os";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { buildToolEnvironment } from "../packages/core/src/tools/process/build-tool-environment.ts";
import { createRunCommandTool } from "../packages/core/src/tools/process/run-command-tool.ts";
import type { ProcessSandbox } from "../packages/core/src/tools/process/sandbox/process-sandbox.ts";
import type { ToolContext, ToolResult } from "../packages/core/src/tools/tool-definition.ts";
import { testSandbox } from "./support/sandbox.ts";
import { waitUntil } from "./support/wait-until.ts";

const SECRETS = {
  DATABASE_URL: "postgres://postgres@127.0.0.1:5432/secret_db",
  REDIS_URL: "redis://127.0.0.1:6379/9",
  OPENAI_API_KEY: "sk-test-secret-openai",
  APPROVAL_SECRET: "approval-secret-value",
};
const ALLOWED = ["PATH", "HOME", "LANG", "TERM"];
// bash sets these itself in every shell it starts.
const SET_BY_BASH = ["PWD", "SHLVL", "_", "OLDPWD"];

let workspaceRoot: string;
let sandbox: ProcessSandbox;

beforeAll(async () => {
  sandbox = await testSandbox();
  Object.assign(process.env, SECRETS);
  workspaceRoot = await realpath(await mkdtemp(path.join(tmpdir(), "agentq-run-command-")));
  await writeFile(path.join(workspaceRoot, "marker.txt"), "in the workspace\n");
});

afterAll(async () => {
  for (const name of Object.keys(SECRETS)) delete process.env[name];
  await rm(workspaceRoot, { recursive: true, force: true });
});

function context(overrides: Partial<ToolContext> = {}): ToolContext {
  return {
    runId: "run_test",
    chatId: "chat_test",
    userId: "user_test",
    workspace: { id: "ws_test", rootPath: workspaceRoot },
    signal: new AbortController().signal,
    fileReads: { lastReadRevision: async () => undefined, recordRead: async () => {} },
    settings: { webFetchAllow: [], processNetwork: false },
    ...overrides,
  };
}

function tool(options: Partial<Parameters<typeof createRunCommandTool>[0]> = {}) {
  return createRunCommandTool({ environment: buildToolEnvironment(process.env, ALLOWED), sandbox, killGraceMs: 500, ...options });
}

function textOf(result: ToolResult): string {
  return result.ok ? result.output : result.error;
}

const execFileAsync = promisify(execFile);
let markers = 0;

/** A name to start a process under (`exec -a`), unique to this test run. */
function marker(): string {
  markers += 1;
  return `agentq-rc-${process.pid}-${Date.now()}-${markers}`;
}

/** Processes on the host whose command line holds `name`: pids inside the sandbox mean nothing out here. */
async function running(name: string): Promise<number> {
  try {
    const { stdout } = await execFileAsync("pgrep", ["-f", name]);
    return stdout.split("\n").filter((line) => line.trim() !== "").length;
  } catch {
    return 0;
  }
}

describe("run_command", () => {
  it("returns stdout and stderr interleaved with exit code 0", async () => {
    const result = await tool().execute({ command: "echo first; echo second >&2; echo third" }, context());
    expect(result.ok).toBe(true);
    expect(textOf(result)).toMatch(/^\[exit code 0, [\d.]+ s\]\nfirst\nsecond\nthird\n$/);
    expect(result.data?.exit_code).toBe(0);
  });

  it("reports a non-zero exit as a normal result carrying the exit code", async () => {
    const result = await tool().execute({ command: "echo 'no such target' >&2; exit 3" }, context());
    expect(result.ok).toBe(true);
    expect(textOf(result)).toContain("[exit code 3,");
    expect(textOf(result)).toContain("no such target");
    expect(result.data?.exit_code).toBe(3);
  });

  it("treats a command that starts with a dash as a command, not as a bash option", async () => {
    const result = await tool().execute({ command: "-x" }, context());
    expect(result.data?.exit_code).toBe(127);
    expect(textOf(result)).toContain("-x: command not found");
  });

  it("runs in the workspace root", async () => {
    const result = await tool().execute({ command: "pwd; cat marker.txt" }, context());
    expect(textOf(result)).toContain(`${workspaceRoot}\nin the workspace\n`);
  });

  it("gives the command only the allowed environment, none of the parent's secrets", async () => {
    for (const [name, value] of Object.entries(SECRETS)) expect(process.env[name]).toBe(value);
    const result = await tool().execute({ command: "env" }, context());
    expect(result.ok).toBe(true);
    const output = textOf(result);
    const names = output
      .split("\n")
      .slice(1)
      .filter((line) => /^[A-Za-z_][A-Za-z0-9_]*=/.test(line))
      .map((line) => line.slice(0, line.indexOf("=")));
    expect(names).toContain("PATH");
    for (const name of names) expect([...ALLOWED, ...SET_BY_BASH]).toContain(name);
    for (const [name, value] of Object.entries(SECRETS)) {
      expect(output).not.toContain(name);
      expect(output).not.toContain(value);
    }
  });

  it("closes stdin, so a command reading it ends at once", async () => {
    const result = await tool().execute({ command: "cat; echo after-cat", timeout_seconds: 5 }, context());
    expect(result.ok).toBe(true);
    expect(textOf(result)).toContain("after-cat");
  });

  it("on timeout kills the whole process group, including a backgrounded grandchild", async () => {
    const name = marker();
    const startedAt = Date.now();
    const result = await tool().execute({ command: `(exec -a ${name} sleep 100) & echo started; wait`, timeout_seconds: 1 }, context());
    expect(result.ok).toBe(false);
    expect(textOf(result)).toContain("timed out after 1 s");
    expect(textOf(result)).toContain("started");
    expect(result.data?.termination).toBe("timed_out");
    expect(Date.now() - startedAt).toBeLessThan(10_000);
    expect(await running(name)).toBe(0);
  });

  it("escalates to SIGKILL when the group ignores SIGTERM", async () => {
    const name = marker();
    const result = await tool().execute({ command: `trap '' TERM; (trap '' TERM; exec -a ${name} sleep 100) & wait`, timeout_seconds: 1 }, context());
    expect(result.data?.termination).toBe("timed_out");
    expect(await running(name)).toBe(0);
  });

  it("kills the process group when the run's signal is aborted", async () => {
    const name = marker();
    const controller = new AbortController();
    const pending = tool().execute({ command: `(exec -a ${name} sleep 100) & wait`, timeout_seconds: 60 }, context({ signal: controller.signal }));
    await waitUntil("the command running", async () => ((await running(name)) > 0 ? true : undefined), 5_000);
    controller.abort();
    const result = await pending;
    expect(result.ok).toBe(false);
    expect(textOf(result)).toContain("cancelled");
    expect(await running(name)).toBe(0);
  });

  it("does not start a command when the run is already cancelled", async () => {
    const controller = new AbortController();
    controller.abort();
    const result = await tool().execute({ command: "touch should-not-exist" }, context({ signal: controller.signal }));
    expect(result.ok).toBe(false);
    await expect(readFile(path.join(workspaceRoot, "should-not-exist"))).rejects.toThrow();
  });

  it("ends what the command left in the background when it exits, even in a session of its own", async () => {
    const name = marker();
    const startedAt = Date.now();
    const result = await tool().execute({ command: `(exec -a ${name} sleep 100) & (setsid exec -a ${name}-session sleep 100) & echo done` }, context());
    expect(result.ok).toBe(true);
    expect(textOf(result)).toContain("done");
    expect(Date.now() - startedAt).toBeLessThan(5_000);
    expect(await running(name)).toBe(0);
  });

  it("caps the output, keeping its beginning and end and saying how much was cut", async () => {
    const result = await tool({ outputLimitBytes: 1_000 }).execute({ command: "echo BEGIN; head -c 100000 /dev/zero | tr '\\0' a; echo; echo END" }, context());
    const output = textOf(result);
    expect(output).toContain("BEGIN");
    expect(output.trimEnd().endsWith("END")).toBe(true);
    expect(output).toMatch(/\[\.\.\. \d+ bytes of output omitted \.\.\.\]/);
    expect(result.data?.output_bytes).toBe(6 + 100_000 + 1 + 4);
    expect(result.data?.omitted_bytes).toBe(6 + 100_000 + 1 + 4 - 1_000);
    expect(output.length).toBeLessThan(1_200);
  });

  it("refuses to run without a workspace", async () => {
    const result = await tool().execute({ command: "true" }, context({ workspace: null }));
    expect(result.ok).toBe(false);
    expect(textOf(result)).toContain("needs a workspace");
  });

  it("declares its effects and limits its timeout in the schema", () => {
    const runCommand = tool({ maxTimeoutSeconds: 30 });
    expect(runCommand.effects).toEqual(["process"]);
    expect(runCommand.taints).toBe(true);
    expect(runCommand.requiresWorkspace).toBe(true);
    expect(runCommand.parameters.safeParse({ command: "ls", timeout_seconds: 31 }).success).toBe(false);
    expect(runCommand.parameters.safeParse({ command: "ls", timeout_seconds: 30 }).success).toBe(true);
  });
});
