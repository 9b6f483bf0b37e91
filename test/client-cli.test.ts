// @agentq/client and the agentq CLI (issue 18) against a real API, worker, Postgres and Redis with the
// fake provider: the client follows a run across a dropped connection without gaps or repeats and
// decides its approval; the CLI streams a run, asks at its prompt (driven through stdin), and exits
// 0 / 1 / 2 as documented.
import { spawn } from "node:child_process";
import { readFile } from "node:fs/promises";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import WebSocket from "ws";
import { createAgentqClient, decideApproval, followRun, type RunEvent, unwrap, type WebSocketLike } from "@agentq/client";
import { scenarioInput } from "@agentq/core/testing";
import { workspaceRoot } from "./support/approval-test-helpers.ts";
import { startTestStack, type TestStack } from "./support/test-stack.ts";

const CLI = fileURLToPath(new URL("../packages/cli/bin/agentq.mjs", import.meta.url));

let stack: TestStack;
let workspaceId: string;

beforeAll(async () => {
  stack = await startTestStack();
  workspaceId = await stack.createWorkspace();
  await stack.putFile(workspaceId, "notes.txt", "remember the milk\n");
});

afterAll(async () => {
  await stack?.close();
});

/** read notes.txt, then write out.txt (paused: the read tainted the run), then answer. */
const pausingScenario = (answer: string) =>
  scenarioInput([{ tool: "read_file", args: { path: "notes.txt" } }, { tool: "write_file", args: { path: "out.txt", content: "milk" } }, { text: answer }]);

describe("@agentq/client", () => {
  it("follows a run over a dropped connection with every event once, in order, and decides its approval", async () => {
    const client = createAgentqClient({ baseUrl: stack.url, token: stack.api.adminToken });
    const chat = await unwrap(client.POST("/api/chats", { body: { workspace_id: workspaceId } }));
    const run = await unwrap(
      client.POST("/api/chats/{id}/runs", { params: { path: { id: chat.id } }, body: { input: pausingScenario("client done"), model: "fake-model" } }),
    );
    const seen: RunEvent[] = [];
    let sockets = 0;
    const reconnects: number[] = [];
    const last = await followRun({
      baseUrl: stack.url,
      token: stack.api.adminToken,
      runId: run.id,
      // The first connection drops after its third event: the follower must resubscribe after it.
      openSocket: (url) => {
        sockets += 1;
        const socket = new WebSocket(url);
        if (sockets === 1) {
          let events = 0;
          socket.on("message", (raw) => {
            if (JSON.parse(String(raw)).type === "event" && ++events === 3) socket.terminate();
          });
        }
        return socket as unknown as WebSocketLike;
      },
      onReconnect: (_attempt, lastSeq) => reconnects.push(lastSeq),
      onEvent: async (event) => {
        seen.push(event);
        if (event.type === "approval.required") await decideApproval(client, String(event.data.approval_id), "allow_task");
      },
    });
    expect(last.type).toBe("run.completed");
    // One reconnect, after the drop: frames already received with the third one are still read, so it resumes from seq 3 or later.
    expect(reconnects).toHaveLength(1);
    expect(reconnects[0]).toBeGreaterThanOrEqual(3);
    expect(seen.map((event) => event.seq)).toEqual(Array.from({ length: seen.length }, (_, index) => index + 1));
    expect(seen.filter((event) => event.type === "approval.decided")).toHaveLength(1);
    expect(await readFile(path.join(await workspaceRoot(stack, workspaceId), "out.txt"), "utf8")).toBe("milk");
  });

  it("answers an error as AgentqApiError with the API's code", async () => {
    const client = createAgentqClient({ baseUrl: stack.url, token: stack.api.adminToken });
    await expect(unwrap(client.GET("/api/runs/{id}", { params: { path: { id: "run_missing" } } }))).rejects.toMatchObject({
      name: "AgentqApiError",
      status: 404,
      code: "not_found",
    });
  });
});

interface CliResult {
  code: number | null;
  stdout: string;
  stderr: string;
}

/** Runs the CLI; `answer` is typed at the approval prompt each time it appears. */
function runCli(args: string[], options: { token?: string | undefined; answer?: string } = {}): Promise<CliResult> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [CLI, ...args], {
      env: {
        PATH: process.env.PATH ?? "",
        AGENTQ_URL: stack.url,
        ...(options.token === undefined ? {} : { AGENTQ_TOKEN: options.token }),
        ...(options.answer === undefined ? {} : { AGENTQ_PROMPT: "1" }),
      },
      stdio: ["pipe", "pipe", "pipe"],
    });
    let stdout = "";
    let stderr = "";
    child.stdout.on("data", (chunk) => {
      stdout += chunk;
    });
    child.stderr.on("data", (chunk: Buffer) => {
      stderr += chunk;
      if (options.answer !== undefined && chunk.toString().includes("Allow?")) child.stdin.write(`${options.answer}\n`);
    });
    const timer = setTimeout(() => child.kill("SIGKILL"), 60_000);
    child.on("error", reject);
    child.on("close", (code) => {
      clearTimeout(timer);
      resolve({ code, stdout, stderr });
    });
  });
}

describe("the agentq CLI", () => {
  it("streams the run, a line per tool call, asks at the prompt, and exits 0 when it completes", async () => {
    const result = await runCli(["run", "--workspace", workspaceId, "--model", "fake-model", pausingScenario("the milk is noted")], {
      token: stack.api.adminToken,
      answer: "1",
    });
    expect(result.stderr).toContain("Allow? [1] for this run  [2] for this chat  [3] deny");
    expect(result.code).toBe(0);
    expect(result.stdout).toContain("→ read_file notes.txt");
    expect(result.stdout).toContain("? write_file needs your approval (effects: write)");
    expect(result.stdout).toContain('"content": "milk"');
    expect(result.stdout).toContain("allowed (allow_task)");
    expect(result.stdout).toContain("→ write_file out.txt");
    // Streamed as deltas and completed by message.completed: printed once.
    expect(result.stdout.trimEnd().endsWith("the milk is noted"), result.stdout).toBe(true);
    expect(result.stdout.split("the milk is noted")).toHaveLength(2);
  });

  it("--approve deny answers without asking; the model reads the denial and the run completes", async () => {
    const result = await runCli(["run", "--workspace", workspaceId, "--model", "fake-model", "--approve", "deny", pausingScenario("not written")], {
      token: stack.api.adminToken,
    });
    expect(result.code).toBe(0);
    expect(result.stderr).not.toContain("Allow?");
    expect(result.stdout).toContain("denied");
    expect(result.stdout).not.toContain("→ write_file");
  });

  it("continues a chat with --chat", async () => {
    const chatId = await stack.createChat();
    const result = await runCli(["run", "--chat", chatId, "--model", "fake-model", scenarioInput([{ text: "hello again" }])], { token: stack.api.adminToken });
    expect(result.code).toBe(0);
    expect(result.stderr).toContain(`in chat ${chatId}`);
  });

  it("exits 1 when the run waits for an approval nobody can answer, 2 without a token or with a bad one", async () => {
    const unanswered = await runCli(["run", "--workspace", workspaceId, "--model", "fake-model", pausingScenario("never")], { token: stack.api.adminToken });
    expect(unanswered.code).toBe(1);
    expect(unanswered.stderr).toMatch(/waits for approval of write_file .*--approve/);

    const noToken = await runCli(["run", "hello"]);
    expect(noToken.code).toBe(2);
    expect(noToken.stderr).toContain("set AGENTQ_TOKEN");

    const badToken = await runCli(["run", "hello"], { token: "aq_not_a_token" });
    expect(badToken.code).toBe(2);
    expect(badToken.stderr).toContain("(unauthorized)");

    const badDecision = await runCli(["run", "--approve", "maybe", "hello"], { token: stack.api.adminToken });
    expect(badDecision.code).toBe(2);
    expect(badDecision.stderr).toContain("maybe");
  });
});
