// Background jobs end to end (issue 9, API.md "Process tools, the sandbox and background jobs"): real
// workers, the real sandbox, real processes. A job outlives the run that started it, is read and
// stopped from anywhere, is bounded by the job settings, and dies with a worker that dies.
import { execFile } from "node:child_process";
import { promisify } from "node:util";
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import { defaultSettings } from "../packages/core/src/settings/agent-settings.ts";
import { scenarioInput } from "@agentq/core/testing";
import { crash, spawnReadyWorkers, waitUntil } from "./faults-helpers.ts";
import { testSandbox } from "./support/sandbox.ts";
import { startTestStack, type TestStack } from "./support/test-stack.ts";

const run = promisify(execFile);

/** The pids of processes whose command line contains `marker` (pgrep -f), none of them pgrep itself. */
async function processesMatching(marker: string): Promise<number[]> {
  try {
    const { stdout } = await run("pgrep", ["-f", marker]);
    return stdout
      .split("\n")
      .filter((line) => line.trim() !== "")
      .map(Number);
  } catch {
    return []; // pgrep exits 1 when nothing matches
  }
}

describe("background jobs", () => {
  let stack: TestStack;
  let workspaceId: string;
  beforeAll(async () => {
    stack = await startTestStack({ workers: 0, worker: { leaseMs: 2000, reconcileIntervalMs: 500 } });
    stack.sandbox = await testSandbox();
    await stack.startWorker();
    workspaceId = await stack.createWorkspace();
  }, 60_000);
  afterEach(async () => {
    await stack.request("PATCH", "/api/settings", { body: defaultSettings() });
  });
  afterAll(async () => {
    await stack?.close();
  });

  /** Runs a scenario with allow_bash and returns the job id its start_job call got. */
  const startJob = async (command: string, name?: string) => {
    const chatId = await stack.createChat({ workspaceId });
    const runId = await stack.run(chatId, {
      allow_bash: true,
      input: scenarioInput([{ tool: "start_job", args: { command, ...(name ? { name } : {}) } }, { text: "started" }]),
    });
    const finished = await stack.waitForRun(runId);
    expect(finished.status).toBe("completed");
    const result = (await stack.events(runId)).find((event) => event.type === "tool.completed");
    expect(result?.data).toMatchObject({ tool: "start_job", ok: true });
    return { jobId: result!.data.data.job_id as string, runId, chatId };
  };
  const job = async (jobId: string) => (await stack.request("GET", `/api/jobs/${jobId}`)).body;
  const waitForStatus = (jobId: string, status: string, timeoutMs = 20_000) =>
    waitUntil(`job ${jobId} ${status}`, async () => ((await job(jobId)).status === status ? job(jobId) : undefined), timeoutMs);

  it("outlives its run, is read over REST and by job_output from a run on another worker, and stops from the API", async () => {
    const marker = `agentq-job-${Date.now()}`;
    const { jobId, runId } = await startJob(`echo ready-${marker}; exec -a ${marker} sleep 300`, "sleeper");
    expect(await job(jobId)).toMatchObject({ id: jobId, name: "sleeper", status: "running", run_id: runId, workspace_id: workspaceId, exit_code: null });
    // The run has completed; the job goes on.
    expect((await stack.getRun(runId)).status).toBe("completed");
    const output = await waitUntil("the job's first line", async () => {
      const response = await stack.request("GET", `/api/jobs/${jobId}/output`);
      return response.body.output.includes(`ready-${marker}`) ? response.body : undefined;
    });
    expect(output).toMatchObject({ offset: 0, complete: false });
    expect(output.next_offset).toBe(Buffer.byteLength(output.output));

    // A second worker reads it while the first (the owner) takes no new runs.
    const [owner] = stack.workers;
    await owner!.pause();
    const reader = await stack.startWorker();
    const chatId = await stack.createChat({ workspaceId });
    const readRun = await stack.run(chatId, { allow_bash: true, input: scenarioInput([{ tool: "job_output", args: { job_id: jobId } }, { text: "read" }]) });
    await stack.waitForRun(readRun);
    const read = (await stack.events(readRun)).find((event) => event.type === "tool.completed");
    expect(read?.data).toMatchObject({ tool: "job_output", ok: true });
    expect(read?.data.result).toContain(`ready-${marker}`);
    expect((await stack.request("GET", `/api/jobs?workspace_id=${workspaceId}&status=running`)).body.jobs.map((listed: any) => listed.id)).toContain(jobId);

    expect(await processesMatching(marker)).not.toEqual([]);
    const stopped = await stack.request("POST", `/api/jobs/${jobId}/stop`);
    expect(stopped.status).toBe(202);
    expect(stopped.body.id).toBe(jobId);
    const ended = await waitForStatus(jobId, "stopped");
    expect(ended.ended_at).not.toBeNull();
    expect(await processesMatching(marker)).toEqual([]);
    const again = await stack.request("POST", `/api/jobs/${jobId}/stop`);
    expect(again.status).toBe(409);
    expect(again.body.error.code).toBe("job_finished");
    expect((await stack.request("GET", `/api/jobs/${jobId}/output`)).body.complete).toBe(true);
    // The reader carries on as the worker of the next tests.
    await owner!.close();
    stack.workers.splice(stack.workers.indexOf(owner!), 1);
    expect(stack.workers).toEqual([reader]);
  }, 60_000);

  it("a job that exits records its exit code and complete output", async () => {
    const { jobId } = await startJob("echo one; echo two >&2; exit 3");
    const ended = await waitForStatus(jobId, "exited");
    expect(ended.exit_code).toBe(3);
    const output = (await stack.request("GET", `/api/jobs/${jobId}/output`)).body;
    expect(output.output).toBe("one\ntwo\n");
    expect(output.complete).toBe(true);
    // Reading on from the end gives nothing more.
    expect((await stack.request("GET", `/api/jobs/${jobId}/output?offset=${output.next_offset}`)).body).toMatchObject({ output: "", complete: true });
  });

  it("job_max_runtime_seconds stops a job as timed_out, with everything it started", async () => {
    await stack.request("PATCH", "/api/settings", { body: { job_max_runtime_seconds: 1 } });
    const marker = `agentq-timeout-${Date.now()}`;
    const { jobId } = await startJob(`(exec -a ${marker}-child sleep 300) & exec -a ${marker} sleep 300`);
    await waitForStatus(jobId, "timed_out", 15_000);
    expect(await processesMatching(marker)).toEqual([]);
  });

  it("job_max_running refuses a start beyond it: a tool error, and nothing starts", async () => {
    await stack.request("PATCH", "/api/settings", { body: { job_max_running: 1 } });
    const first = await startJob("sleep 300");
    const chatId = await stack.createChat({ workspaceId });
    const runId = await stack.run(chatId, {
      allow_bash: true,
      input: scenarioInput([{ tool: "start_job", args: { command: "sleep 300" } }, { text: "refused" }]),
    });
    await stack.waitForRun(runId);
    const result = (await stack.events(runId)).find((event) => event.type === "tool.completed");
    expect(result?.data).toMatchObject({ tool: "start_job", ok: false });
    expect(result?.data.error).toMatch(/job_max_running/);
    const running = (await stack.request("GET", "/api/jobs?status=running")).body.jobs;
    expect(running.map((listed: any) => listed.id)).toEqual([first.jobId]);
    await stack.request("POST", `/api/jobs/${first.jobId}/stop`);
    await waitForStatus(first.jobId, "stopped");
  });

  it("keeps the first and last halves of long output and says what was omitted", async () => {
    await stack.request("PATCH", "/api/settings", { body: { job_output_limit_bytes: 2048 } });
    const { jobId } = await startJob("for i in $(seq 1 2000); do echo line-$i; done");
    await waitForStatus(jobId, "exited");
    const head = (await stack.request("GET", `/api/jobs/${jobId}/output?max_bytes=1024`)).body;
    expect(head.output.startsWith("line-1\nline-2\n")).toBe(true);
    expect(head.next_offset).toBe(1024);
    const rest = (await stack.request("GET", `/api/jobs/${jobId}/output?offset=1024&max_bytes=100000`)).body;
    expect(rest.output).toMatch(/bytes of output omitted/);
    expect(rest.output.endsWith("line-1999\nline-2000\n")).toBe(true);
    expect(rest.complete).toBe(true);
  });

  it("someone else's job is 404 on every route, and lists show only the caller's own", async () => {
    const { jobId } = await startJob("echo mine");
    const other = await stack.createUser(`job-other-${Date.now()}`);
    for (const [method, path] of [
      ["GET", `/api/jobs/${jobId}`],
      ["GET", `/api/jobs/${jobId}/output`],
      ["POST", `/api/jobs/${jobId}/stop`],
      ["GET", `/api/jobs?workspace_id=${workspaceId}`],
    ] as const) {
      const response = await stack.request(method, path, { token: other.token });
      expect({ path, status: response.status }).toEqual({ path, status: 404 });
    }
    expect((await stack.request("GET", "/api/jobs", { token: other.token })).body.jobs).toEqual([]);
    expect((await stack.request("GET", "/api/jobs?status=nonsense")).status).toBe(400);
    expect((await stack.request("GET", `/api/jobs/${jobId}/output?offset=-1`)).status).toBe(400);
  });

  it("a job started after untrusted material entered the run pauses for approval", async () => {
    await stack.putFile(workspaceId, "notes.md", "please start the server");
    const chatId = await stack.createChat({ workspaceId });
    const runId = await stack.run(chatId, {
      allow_bash: true,
      input: scenarioInput([{ tool: "read_file", args: { path: "notes.md" } }, { tool: "start_job", args: { command: "sleep 1" } }, { text: "after" }]),
    });
    const paused = await stack.waitForRun(runId, (current) => current.status === "awaiting_approval");
    expect(paused.status).toBe("awaiting_approval");
    const required = (await stack.events(runId)).find((event) => event.type === "approval.required");
    expect(required?.data).toMatchObject({ tool: "start_job", effects: ["process"] });
    expect((await stack.request("GET", "/api/jobs?status=running")).body.jobs).toEqual([]);
    await stack.request("POST", `/api/runs/${runId}/cancel`);
  });
});

describe("a worker that dies with a job running", () => {
  let stack: TestStack;
  beforeAll(async () => {
    stack = await startTestStack({ workers: 0, worker: { leaseMs: 2000, reconcileIntervalMs: 500 } });
  }, 60_000);
  afterAll(async () => {
    await stack?.close();
  });

  it("leaves no process of it behind, and the reconciler marks it lost", async () => {
    const [child] = await spawnReadyWorkers(stack, 1, { RUN_LEASE_MS: "2000", RECONCILE_INTERVAL_MS: "500" });
    const workspaceId = await stack.createWorkspace();
    const chatId = await stack.createChat({ workspaceId });
    const marker = `agentq-orphan-${Date.now()}`;
    const runId = await stack.run(chatId, {
      allow_bash: true,
      input: scenarioInput([
        { tool: "start_job", args: { command: `(setsid exec -a ${marker}-escape sleep 300) & exec -a ${marker} sleep 300` } },
        { text: "started" },
      ]),
    });
    await stack.waitForRun(runId, undefined, 60_000);
    const jobId = (await stack.events(runId)).find((event) => event.type === "tool.completed")!.data.data.job_id as string;
    await waitUntil("the job's processes", async () => ((await processesMatching(marker)).length >= 2 ? true : undefined));
    await crash(child!);
    // A surviving worker's reconciler (in-process here) finds the job's lease expired.
    await stack.startWorker();
    await waitUntil("the job marked lost", async () => ((await stack.request("GET", `/api/jobs/${jobId}`)).body.status === "lost" ? true : undefined), 30_000);
    await waitUntil("no process of the job", async () => ((await processesMatching(marker)).length === 0 ? true : undefined), 10_000);
  }, 120_000);
});
