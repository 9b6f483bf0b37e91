// The process sandbox (issue 9, docs/design.md invariant 10): from inside a command, each way to reach a
// secret, another workspace, the host's processes or services fails or shows nothing; limits hold;
// the workspace still works. Real bubblewrap, real processes, a real worker with secrets in its
// environment.
import { spawnSync } from "node:child_process";
import { mkdir, mkdtemp, readdir, realpath, rm, stat, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import path from "node:path";
import { monitorEventLoopDelay } from "node:perf_hooks";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { scenarioInput } from "@agentq/core/testing";
import { buildToolEnvironment, probeProcessSandbox, type ProcessSandbox } from "@agentq/core";
import { createRunCommandTool } from "../packages/core/src/tools/process/run-command-tool.ts";
import type { ToolContext, ToolResult } from "../packages/core/src/tools/tool-definition.ts";
import { testSandbox } from "./support/sandbox.ts";
import { requestJson, startTestApi, type TestApi } from "./support/test-api.ts";
import { startTestStack, type TestStack } from "./support/test-stack.ts";

const SECRETS = {
  DATABASE_URL: "postgresql://postgres@127.0.0.1:5432/sandbox_secret_db",
  REDIS_URL: "redis://127.0.0.1:6379/7",
  ADMIN_TOKEN: "aq_sandbox-secret-admin-token",
  OPENAI_API_KEY: "sk-sandbox-secret-key",
  APPROVAL_SECRET: "sandbox-secret-approval-key",
};

let sandbox: ProcessSandbox;
let base: string;
let workspace: string;
let otherWorkspace: string;

beforeAll(async () => {
  Object.assign(process.env, SECRETS);
  sandbox = await testSandbox();
  base = await realpath(await mkdtemp(path.join(tmpdir(), "agentq-sandbox-test-")));
  workspace = path.join(base, "ws_mine");
  otherWorkspace = path.join(base, "ws_other");
  for (const directory of [workspace, otherWorkspace]) await mkdir(directory);
  await writeFile(path.join(otherWorkspace, "private.txt"), "OTHER-USERS-PRIVATE-TEXT");
});

afterAll(async () => {
  for (const name of Object.keys(SECRETS)) delete process.env[name];
  await rm(base, { recursive: true, force: true });
});

function context(overrides: Partial<ToolContext> = {}): ToolContext {
  return {
    runId: "run_sandbox",
    chatId: "chat_sandbox",
    userId: "usr_sandbox",
    workspace: { id: "ws_mine", rootPath: workspace },
    signal: new AbortController().signal,
    fileReads: { lastReadRevision: async () => undefined, recordRead: async () => {} },
    settings: { webFetchAllow: [], processNetwork: false },
    ...overrides,
  };
}

async function sh(command: string, options: { network?: boolean; timeout?: number; sandbox?: ProcessSandbox } = {}): Promise<ToolResult & { text: string }> {
  const tool = createRunCommandTool({
    environment: buildToolEnvironment(process.env, ["PATH", "HOME", "LANG", "TERM"]),
    sandbox: options.sandbox ?? sandbox,
    killGraceMs: 500,
  });
  const result = await tool.execute(
    { command, timeout_seconds: options.timeout ?? 20 },
    context({ settings: { webFetchAllow: [], processNetwork: options.network ?? false } }),
  );
  return { ...result, text: result.ok ? result.output : result.error };
}

function expectNoSecret(text: string): void {
  for (const [name, value] of Object.entries(SECRETS)) {
    expect(text).not.toContain(value);
    expect(text).not.toContain(`${name}=`);
  }
}

describe("inside the sandbox", () => {
  it("no environment a command can read holds a secret: its own, pid 1's, its parent's", async () => {
    for (const [name, value] of Object.entries(SECRETS)) expect(process.env[name]).toBe(value);
    const result = await sh(
      "env; echo ---; cat /proc/self/environ; echo; cat /proc/1/environ; echo; cat /proc/$PPID/environ; echo; for f in /proc/[0-9]*/environ; do cat $f; echo; done",
    );
    expect(result.ok).toBe(true);
    expect(result.text).toContain("PATH=");
    expectNoSecret(result.text);
  });

  it("sees no process of the host: only its own few", async () => {
    const result = await sh("ls /proc | grep -E '^[0-9]+$' | wc -l; cat /proc/1/cmdline | tr '\\0' ' '");
    const count = Number(result.text.split("\n")[1]);
    expect(count).toBeGreaterThan(0);
    expect(count).toBeLessThan(10);
    expect(result.text).not.toContain("vitest");
  });

  it("cannot list the workspaces root or read another workspace by its absolute path", async () => {
    const listing = await sh(`ls -a ${base}`);
    // Only the way down to its own workspace exists in here.
    expect(
      listing.text
        .split("\n")
        .slice(1)
        .filter((line) => line !== "" && line !== "." && line !== ".."),
    ).toEqual(["ws_mine"]);
    const other = await sh(`cat ${otherWorkspace}/private.txt`);
    expect(other.text).toContain("No such file or directory");
    expect(other.text).not.toContain("OTHER-USERS-PRIVATE-TEXT");
    const host = await sh(`ls ${process.cwd()}/package.json /root/.bashrc`);
    expect(host.text).not.toMatch(/^\/.*package\.json$/m);
    expect(host.data?.exit_code).not.toBe(0);
  });

  it("cannot write outside the workspace; /tmp is its own and gone afterwards", async () => {
    const marker = `outside-${Date.now()}`;
    const result = await sh(
      `touch /usr/${marker}; touch /${marker}; touch /etc/${marker}; touch ${base}/${marker}; echo private > /tmp/${marker} && cat /tmp/${marker}`,
    );
    expect(result.text).toContain("Read-only file system");
    expect(result.text).toContain("private");
    for (const directory of ["/usr", "/", "/etc", base, "/tmp"]) expect(await readdir(directory)).not.toContain(marker);
  });

  it("cannot reach Postgres or Redis on loopback without process_network; with it the host network is shared", async () => {
    const probe = "for port in 5432 6379; do (exec 3<>/dev/tcp/127.0.0.1/$port) 2>/dev/null && echo open-$port || echo closed-$port; done";
    const isolated = await sh(probe);
    expect(isolated.text).toContain("closed-5432");
    expect(isolated.text).toContain("closed-6379");
    const shared = await sh(probe, { network: true });
    expect(shared.text).toContain("open-5432");
    expect(shared.text).toContain("open-6379");
  });

  it("has no capabilities and cannot gain privileges", async () => {
    const result = await sh("grep -E '^Cap(Eff|Prm|Bnd)' /proc/self/status; id -u; mount -t tmpfs none /mnt 2>&1 | head -1");
    expect(result.text).toMatch(/CapEff:\s+0000000000000000/);
    expect(result.text).toMatch(/CapBnd:\s+0000000000000000/);
    expect(result.text).not.toMatch(/^0$/m);
  });

  it("a fork bomb ends the command, not the worker: the event loop stays responsive and the next command runs", async () => {
    const delay = monitorEventLoopDelay({ resolution: 10 });
    delay.enable();
    const bomb = await sh("bomb() { bomb | bomb & }; bomb; sleep 3; echo survived", { timeout: 8 });
    delay.disable();
    // The bomb hit the process cap and the command ended (on its own or at its timeout), taking every fork with it.
    expect(Number(bomb.data?.duration_ms)).toBeLessThan(10_000);
    // The worker's event loop was never stuck for long.
    expect(delay.max / 1e6).toBeLessThan(2_000);
    const after = await sh("echo still-works");
    expect(after.text).toContain("still-works");
  });

  it("the process cap holds: past it, fork fails inside the command", async () => {
    expect(sandbox.enforcement.processes).toContain("cgroup");
    const capped = await probeProcessSandbox({ mode: "bwrap", searchPath: process.env.PATH ?? "", limits: { maxProcesses: 16 } });
    if (!capped.available) throw new Error(capped.reason);
    const result = await sh("for i in $(seq 1 30); do sleep 2 & done; wait", { sandbox: capped.sandbox, timeout: 15 });
    expect(result.text).toContain("fork: retry: Resource temporarily unavailable");
  });

  it("open files are capped and the cap cannot be raised", async () => {
    const result = await sh("ulimit -n; ulimit -Hn; ulimit -n 4096 && echo raised");
    expect(result.text.split("\n").slice(1, 3)).toEqual(["1024", "1024"]);
    expect(result.text).not.toContain("raised");
  });

  it("writing past the file size limit fails and leaves the file at the limit", async () => {
    expect(sandbox.enforcement.file_size).toContain("RLIMIT_FSIZE");
    const small = await probeProcessSandbox({ mode: "bwrap", searchPath: process.env.PATH ?? "", limits: { maxFileSizeBytes: 4 * 1024 * 1024 } });
    if (!small.available) throw new Error(small.reason);
    const result = await sh("head -c 10G /dev/zero > big.bin; echo exit=$?", { sandbox: small.sandbox });
    expect(result.text).toMatch(/File size limit exceeded|exit=1\d\d/);
    expect((await stat(path.join(workspace, "big.bin"))).size).toBe(4 * 1024 * 1024);
    await rm(path.join(workspace, "big.bin"));
  });

  it("the workspace is read-write and real work gets done: write, compile, run, read back", async () => {
    const result = await sh(
      [
        "cat > hello.c <<'EOF'",
        "#include <stdio.h>",
        'int main(void) { printf("built %d\\n", 6 * 7); return 0; }',
        "EOF",
        "cc -o hello hello.c && ./hello > out.txt && cat out.txt && pwd",
      ].join("\n"),
    );
    expect(result.text).toContain("built 42");
    expect(result.text).toContain(workspace);
    expect((await stat(path.join(workspace, "out.txt"))).isFile()).toBe(true);
  });
});

describe("several worker processes on one host", () => {
  it("a second process starting its sandbox leaves the shared passwd in place (a sandbox may be binding it)", async () => {
    await testSandbox();
    const passwd = path.join(tmpdir(), `agentq-sandbox-etc-${process.getuid?.() ?? 0}`, "passwd");
    const before = await stat(passwd);
    // Another worker process probes its sandbox, as every worker does at start.
    const probe = `import { probeProcessSandbox } from "@agentq/core"; const a = await probeProcessSandbox({ mode: "bwrap", searchPath: process.env.PATH }); if (!a.available) process.exit(2);`;
    const child = spawnSync(process.execPath, ["--import", "tsx", "--input-type=module", "-e", probe], {
      cwd: path.resolve(import.meta.dirname, ".."),
      encoding: "utf8",
    });
    expect(child.status, child.stderr).toBe(0);
    const after = await stat(passwd);
    expect(after.ino).toBe(before.ino);
  });
});

describe("PROCESS_SANDBOX=off", () => {
  it("still runs commands in the workspace with only the allowed environment, but unconfined", async () => {
    const off = await probeProcessSandbox({ mode: "off", searchPath: "" });
    if (!off.available) throw new Error(off.reason);
    const result = await sh("pwd; env; ls /proc | grep -cE '^[0-9]+$'", { sandbox: off.sandbox });
    expect(result.ok).toBe(true);
    expect(result.text).toContain(`\n${workspace}\n`);
    expect(result.text).toContain("PATH=");
    expectNoSecret(result.text);
    // Unconfined: the host's processes are in sight (the bubblewrap sandbox shows only a few of its own).
    expect(Number(result.text.trim().split("\n").at(-1))).toBeGreaterThan(10);
  });
});

describe("a worker with secrets in its environment", () => {
  let stack: TestStack;
  beforeAll(async () => {
    stack = await startTestStack();
  }, 60_000);
  afterAll(async () => {
    await stack?.close();
  });

  it("gives run_command nothing of them, also through /proc of its parent", async () => {
    const workspaceId = await stack.createWorkspace();
    const chatId = await stack.createChat({ workspaceId });
    const runId = await stack.run(chatId, {
      allow_bash: true,
      input: scenarioInput([
        { tool: "run_command", args: { command: "cat /proc/$PPID/environ /proc/1/environ /proc/self/environ | tr '\\0' '\\n'; env" } },
        { text: "done" },
      ]),
    });
    await stack.waitForRun(runId);
    const result = (await stack.events(runId)).find((event) => event.type === "tool.completed");
    expect(result?.data.ok).toBe(true);
    expectNoSecret(JSON.stringify(result?.data));
  });
});

describe("where bubblewrap cannot start", () => {
  it("process tools are not offered, /readyz says why, and the executor refuses them", async () => {
    const emptyBin = await mkdtemp(path.join(tmpdir(), "agentq-no-bwrap-"));
    const originalPath = process.env.PATH;
    // The API probes at start with its PATH: one without bwrap is a host without bubblewrap.
    process.env.PATH = emptyBin;
    let api: TestApi;
    try {
      api = await startTestApi();
    } finally {
      process.env.PATH = originalPath;
    }
    try {
      const workspace = await requestJson(`${api.url}/api/workspaces`, { token: api.adminToken, body: { name: "no-sandbox" } });
      const tools = await requestJson(`${api.url}/api/tools?workspace_id=${workspace.body.id}&allow_bash=true`, { token: api.adminToken });
      const names = tools.body.tools.map((tool: { name: string }) => tool.name);
      expect(names).toContain("read_file");
      for (const name of ["run_command", "start_job", "job_output", "stop_job"]) expect(names).not.toContain(name);
      const ready = await requestJson(`${api.url}/readyz`);
      expect(ready.status).toBe(200);
      expect(ready.body.checks.process_sandbox.status).toBe("unavailable");
      expect(ready.body.details.process_sandbox).toMatch(/bwrap/);
      expect(api.logs.some((line) => line.includes('"level":50') && line.includes("bwrap"))).toBe(true);
    } finally {
      await api.close();
      await rm(emptyBin, { recursive: true, force: true });
    }
  });

  it("a worker without the sandbox refuses run_command and runs nothing", async () => {
    const stack = await startTestStack({ workers: 0 });
    try {
      await stack.startWorker({}, { sandbox: null });
      const workspaceId = await stack.createWorkspace();
      const chatId = await stack.createChat({ workspaceId });
      const runId = await stack.run(chatId, {
        allow_bash: true,
        input: scenarioInput([{ tool: "run_command", args: { command: "touch ran.txt" } }, { text: "refused" }]),
      });
      await stack.waitForRun(runId);
      const events = await stack.events(runId);
      expect(events.find((event) => event.type === "round.started")?.data.tools).not.toContain("run_command");
      expect(events.find((event) => event.type === "tool.completed")?.data).toMatchObject({ tool: "run_command", ok: false });
      expect((await stack.request("GET", `/api/workspaces/${workspaceId}/files/ran.txt`)).status).toBe(404);
    } finally {
      await stack.close();
    }
  });
});
