// MCP servers as tool sources (issue 13, API.md "Administration, MCP and services"): registered over
// REST by an admin, connected by real workers, their tools offered as mcp__<server>__<tool> and called
// through the same gate as any tool. The servers are real: test/fixtures/mcp-fixture-server.mjs over
// stdio (in the real sandbox) and over Streamable HTTP on a loopback port.
import { type ChildProcess, spawn } from "node:child_process";
import { mkdir, readdir, readFile, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { pino } from "pino";
import { fileURLToPath } from "node:url";
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import { scenarioInput } from "@agentq/core/testing";
import { defaultSettings } from "../packages/core/src/settings/agent-settings.ts";
import { testSandbox } from "./support/sandbox.ts";
import { startTestStack, type TestStack } from "./support/test-stack.ts";
import { waitUntil } from "./support/wait-until.ts";

const FIXTURE = fileURLToPath(new URL("./fixtures/mcp-fixture-server.mjs", import.meta.url));
const ENV_SECRET = "env-secret-6f1d2c";
const HEADER_SECRET = "header-secret-93ab41";
/** A variable of the worker's own process that no MCP server may see. */
const WORKER_MARKER = "AGENTQ_MCP_TEST_WORKER_MARKER";

const stdioServer = (name: string, extra: Record<string, unknown> = {}) => ({
  name,
  transport: "stdio",
  command: process.execPath,
  args: [FIXTURE],
  env: { FIXTURE_SECRET: ENV_SECRET },
  ...extra,
});

describe("MCP servers", () => {
  const workerLogs: string[] = [];
  let stack: TestStack;
  let userToken: string;
  let httpFixture: ChildProcess | undefined;
  beforeAll(async () => {
    process.env[WORKER_MARKER] = "worker-only";
    // Both processes log at debug level into memory: the last test greps every line for the secrets.
    stack = await startTestStack({ workers: 0, api: { logLevel: "debug" } });
    stack.sandbox = await testSandbox();
    await stack.startWorker({}, { logger: pino({ level: "debug" }, { write: (line: string) => void workerLogs.push(line) }) });
    userToken = (await stack.createUser("mcp-user")).token;
  }, 60_000);
  afterEach(async () => {
    await stack.request("PATCH", "/api/settings", { body: defaultSettings() });
    for (const server of (await stack.request("GET", "/api/mcp/servers")).body.servers) await stack.request("DELETE", `/api/mcp/servers/${server.name}`);
  });
  afterAll(async () => {
    httpFixture?.kill();
    delete process.env[WORKER_MARKER];
    await stack?.close();
  });

  const server = async (name: string) =>
    (await stack.request("GET", "/api/mcp/servers")).body.servers.find((candidate: { name: string }) => candidate.name === name);
  const waitForStatus = (name: string, status: string, timeoutMs = 20_000) =>
    waitUntil(
      `MCP server ${name} ${status}`,
      async () => {
        const current = await server(name);
        return current?.status === status ? current : undefined;
      },
      timeoutMs,
    );
  const register = async (body: Record<string, unknown>) => {
    const response = await stack.request("POST", "/api/mcp/servers", { body });
    expect(response.status).toBe(201);
    return response.body;
  };
  /** Waits until the worker offers the tool (it reads the registrations every 2 s). */
  const waitForTool = (name: string) =>
    waitUntil(`tool ${name} offered`, async () => {
      const tools = (await stack.request("GET", "/api/tools")).body.tools as { name: string }[];
      return tools.find((tool) => tool.name === name);
    });
  /** Runs a scenario to its end (or its pause) and returns the run and its tool results. */
  const runScenario = async (steps: Parameters<typeof scenarioInput>[0], until?: (run: { status: string }) => boolean) => {
    const chatId = await stack.createChat();
    const runId = await stack.run(chatId, { input: scenarioInput(steps) });
    const run = await stack.waitForRun(runId, until, 30_000);
    const results = (await stack.events(runId)).filter((event) => event.type === "tool.completed").map((event) => event.data);
    return { runId, run, results };
  };

  it("is registered by admins only, validates names and transports, and never returns the secrets", async () => {
    const forbidden = await stack.request("POST", "/api/mcp/servers", { token: userToken, body: stdioServer("fx") });
    expect(forbidden.status).toBe(403);
    expect((await stack.request("GET", "/api/mcp/servers", { token: userToken })).status).toBe(403);
    expect((await stack.request("GET", "/api/mcp/servers/fx/tools", { token: userToken })).status).toBe(403);

    for (const name of ["Upper", "with_underscore", "a".repeat(25), "-dash", "double--dash", ""]) {
      const refused = await stack.request("POST", "/api/mcp/servers", { body: stdioServer(name) });
      expect(refused.status, name).toBe(400);
      expect(refused.body.error.code).toBe("invalid_request");
    }
    // A refused registration does not echo its secrets either.
    for (const body of [
      stdioServer("x", { env: { "1BAD": ENV_SECRET } }),
      stdioServer("x", { env: { OK: ENV_SECRET.repeat(1000) } }),
      { name: "x", transport: "http", url: "http://a.example/", headers: { "bad header": HEADER_SECRET } },
    ]) {
      const refused = await stack.request("POST", "/api/mcp/servers", { body });
      expect(refused.status).toBe(400);
      expect(JSON.stringify(refused.body)).not.toContain(ENV_SECRET);
      expect(JSON.stringify(refused.body)).not.toContain(HEADER_SECRET);
    }
    const noCommand = await stack.request("POST", "/api/mcp/servers", { body: { name: "x", transport: "stdio" } });
    expect(noCommand.status).toBe(400);
    const badUrl = await stack.request("POST", "/api/mcp/servers", { body: { name: "x", transport: "http", url: "file:///etc/passwd" } });
    expect(badUrl.status).toBe(400);
    const unknownTransport = await stack.request("POST", "/api/mcp/servers", { body: { name: "x", transport: "websocket" } });
    expect(unknownTransport.status).toBe(400);

    const created = await stack.request("POST", "/api/mcp/servers", { body: stdioServer("fx") });
    expect(created.status).toBe(201);
    expect(created.body).toMatchObject({
      name: "fx",
      transport: "stdio",
      command: process.execPath,
      args: [FIXTURE],
      url: null,
      network: false,
      enabled: true,
    });
    expect(created.body).not.toHaveProperty("env");
    expect((await stack.request("POST", "/api/mcp/servers", { body: stdioServer("fx") })).status).toBe(409);
    const web = await register({ name: "web", transport: "http", url: "http://example.invalid/mcp", headers: { Authorization: `Bearer ${HEADER_SECRET}` } });
    expect(web).not.toHaveProperty("headers");

    const listed = await stack.request("GET", "/api/mcp/servers");
    expect(listed.body.servers.map((candidate: { name: string }) => candidate.name)).toEqual(["fx", "web"]);
    for (const text of [JSON.stringify(created.body), JSON.stringify(web), JSON.stringify(listed.body)]) {
      expect(text).not.toContain(ENV_SECRET);
      expect(text).not.toContain(HEADER_SECRET);
    }
    // Stored encrypted: the secret is not in the row either.
    const rows = await stack.prisma.$queryRawUnsafe<{ secrets: string }[]>("SELECT secrets FROM mcp_servers");
    expect(rows.map((row) => row.secrets).join()).not.toContain(ENV_SECRET);
    expect(rows.map((row) => row.secrets).join()).not.toContain(HEADER_SECRET);

    expect((await stack.request("DELETE", "/api/mcp/servers/web")).status).toBe(204);
    expect((await stack.request("DELETE", "/api/mcp/servers/web")).status).toBe(404);
    expect((await stack.request("GET", "/api/mcp/servers/nope/tools")).status).toBe(404);
  });

  it("offers every listed tool (all pages, and one added later) as mcp__server__tool to every user, and a run calls one", async () => {
    await register(stdioServer("fx"));
    const connected = await waitForStatus("fx", "connected");
    expect(connected).toMatchObject({ error: null, tools_count: 8 });
    const tools = (await stack.request("GET", "/api/mcp/servers/fx/tools")).body.tools;
    expect(tools.map((tool: { name: string }) => tool.name)).toEqual(["echo", "environment", "read_path", "fail", "hang", "crash", "dial", "add_tool"]);
    expect(tools[0]).toMatchObject({ offered_as: "mcp__fx__echo", parameters: { type: "object", required: ["text"] } });

    const echo = await waitForTool("mcp__fx__echo");
    expect(echo).toMatchObject({ family: "mcp", effects: ["mcp"], parameters: { type: "object", properties: { text: { type: "string" } } } });
    const userTools = (await stack.request("GET", "/api/tools", { token: userToken })).body.tools.map((tool: { name: string }) => tool.name);
    expect(userTools).toContain("mcp__fx__echo");

    const { run, results } = await runScenario([{ tool: "mcp__fx__echo", args: { text: "hello" } }, { text: "ok" }]);
    expect(run.status).toBe("completed");
    expect(results[0]).toMatchObject({ tool: "mcp__fx__echo", ok: true, result: "echo: hello" });
    // What the model received in that round.
    const sent = stack.provider.requests.at(-2)?.tools.map((tool) => tool.name) ?? [];
    expect(sent).toContain("mcp__fx__echo");

    // tools/list_changed: the new tool is listed and offered.
    await runScenario([{ tool: "mcp__fx__add_tool" }, { text: "ok" }]);
    await waitForTool("mcp__fx__extra");
    expect((await server("fx")).tools_count).toBe(9);

    // The flag switches the family off for everyone.
    await stack.request("PATCH", "/api/settings", { body: { tools_mcp_enabled: false } });
    expect((await stack.request("GET", "/api/tools")).body.tools.some((tool: { family: string }) => tool.family === "mcp")).toBe(false);
  });

  it("pauses a call after the run is tainted (an MCP result taints), and runs it once when allowed", async () => {
    await register(stdioServer("fx"));
    await waitForTool("mcp__fx__echo");
    const { runId, run } = await runScenario(
      [{ tool: "mcp__fx__echo", args: { text: "one" } }, { tool: "mcp__fx__echo", args: { text: "two" } }, { text: "ok" }],
      (candidate) => candidate.status === "awaiting_approval",
    );
    expect(run.pending_approvals).toHaveLength(1);
    expect(run.pending_approvals[0]).toMatchObject({ tool: "mcp__fx__echo", effects: ["mcp"], arguments: { text: "two" } });
    const decided = await stack.request("POST", "/api/approvals", {
      body: { tool_approval_id: run.pending_approvals[0].id, tool_approval_decision: "allow_task" },
    });
    expect(decided.status).toBe(202);
    expect((await stack.waitForRun(runId)).status).toBe("completed");
    const results = (await stack.events(runId)).filter((event) => event.type === "tool.completed").map((event) => event.data);
    expect(results.map((result) => result.result)).toEqual(["echo: one", "echo: two"]);
  });

  it("turns isError, a schema violation, a timeout and a crashed server into tool errors; the run goes on and the server is reconnected", async () => {
    await register(stdioServer("fx"));
    await waitForTool("mcp__fx__echo");
    await stack.request("PATCH", "/api/settings", { body: { mcp_call_timeout_seconds: 1 } });
    const { run, results } = await runScenario([
      { tool: "mcp__fx__fail" },
      { tool: "mcp__fx__echo", args: { text: 5 } },
      { tool: "mcp__fx__hang" },
      { text: "ok" },
    ]);
    expect(run.status).toBe("completed");
    expect(results[0]).toMatchObject({ ok: false, error: "it failed on purpose" });
    expect(results[1]).toMatchObject({ ok: false });
    expect(results[1]?.error).toMatch(/Invalid arguments for mcp__fx__echo.*"text"/);
    expect(results[2]).toMatchObject({ ok: false });
    expect(results[2]?.error).toContain("did not answer within 1 s");

    const crashed = await runScenario([{ tool: "mcp__fx__crash" }, { text: "ok" }]);
    expect(crashed.run.status).toBe("completed");
    expect(crashed.results[0]).toMatchObject({ ok: false });
    // Reconnected: the tools come back and answer.
    await waitForStatus("fx", "connected");
    await waitForTool("mcp__fx__echo");
    const again = await runScenario([{ tool: "mcp__fx__echo", args: { text: "back" } }, { text: "ok" }]);
    expect(again.results[0]).toMatchObject({ ok: true, result: "echo: back" });
  });

  it("refuses a call of a removed server's tool, and no longer offers its tools", async () => {
    await register(stdioServer("fx"));
    await waitForTool("mcp__fx__echo");
    expect((await stack.request("DELETE", "/api/mcp/servers/fx")).status).toBe(204);
    await waitUntil("the tools gone from the worker", async () => {
      const { results } = await runScenario([{ tool: "mcp__fx__echo", args: { text: "x" } }, { text: "ok" }]);
      return results[0]?.ok === false ? results[0] : undefined;
    });
    const tools = (await stack.request("GET", "/api/tools")).body.tools.map((tool: { name: string }) => tool.name);
    expect(tools.some((name: string) => name.startsWith("mcp__"))).toBe(false);
  });

  it("starts a stdio server with its env only, in the sandbox: no worker environment, no workspaces, no network unless allowed", async () => {
    await register(stdioServer("fx"));
    await register(stdioServer("net", { network: true }));
    await waitForTool("mcp__fx__environment");
    await waitForTool("mcp__net__dial");
    const workspaceId = await stack.createWorkspace(userToken);
    await stack.putFile(workspaceId, "private.txt", "other user's text", userToken);
    const workspaceRoot = stack.api.config.workspacesRoot;
    // One round: both calls were emitted before any MCP result tainted the run.
    const { run, results } = await runScenario([
      { calls: [{ tool: "mcp__fx__environment" }, { tool: "mcp__fx__read_path", args: { path: FIXTURE } }] },
      { text: "ok" },
    ]);
    expect(run.status).toBe("completed");
    const environment = JSON.parse(results[0]!.result).env as Record<string, string>;
    expect(environment.FIXTURE_SECRET).toBe(ENV_SECRET);
    // bubblewrap sets PWD (its --chdir); nothing else but the registration's env and the private HOME.
    expect(environment).toEqual({ FIXTURE_SECRET: ENV_SECRET, HOME: "/tmp", PWD: "/tmp" });
    expect(JSON.stringify(environment)).not.toContain("worker-only");
    expect(results[1]).toMatchObject({ ok: true }); // the host is readable...
    // The env travels in the server's environment, never in an argv any host process could read.
    for (const pid of (await readdir("/proc")).filter((entry) => /^\d+$/.test(entry))) {
      const commandLine = await readFile(`/proc/${pid}/cmdline`, "utf8").catch(() => "");
      expect(commandLine).not.toContain(ENV_SECRET);
    }

    const [privateWorkspace] = await stack.prisma.$queryRawUnsafe<{ root_path: string }[]>("SELECT root_path FROM workspaces WHERE id = $1", workspaceId);
    const privatePath = privateWorkspace!.root_path;
    await mkdir(workspaceRoot, { recursive: true });
    await writeFile(join(workspaceRoot, "worker-secret.txt"), "worker's file");
    const apiPort = new URL(stack.url).port;
    const confined = await runScenario([
      {
        calls: [
          { tool: "mcp__fx__read_path", args: { path: join(workspaceRoot, "worker-secret.txt") } },
          { tool: "mcp__fx__read_path", args: { path: join(privatePath, "private.txt") } },
          { tool: "mcp__fx__dial", args: { host: "127.0.0.1", port: Number(apiPort) } },
          { tool: "mcp__net__dial", args: { host: "127.0.0.1", port: Number(apiPort) } },
        ],
      },
      { text: "ok" },
    ]);
    expect(confined.run.status).toBe("completed");
    const [workerFile, otherUsers, noNetwork, withNetwork] = confined.results;
    expect(workerFile).toMatchObject({ ok: false });
    expect(workerFile?.error).toContain("cannot read");
    expect(otherUsers).toMatchObject({ ok: false });
    expect(noNetwork).toMatchObject({ ok: false });
    expect(noNetwork?.error).toMatch(/refused|timed out|unreachable/i);
    expect(withNetwork).toMatchObject({ ok: true, result: "connected" });
  });

  it("reaches a Streamable HTTP server through the SSRF guard: refused until web_fetch_allow admits it, then called with its headers", async () => {
    httpFixture = spawn(process.execPath, [FIXTURE, "--http"], { stdio: ["ignore", "pipe", "inherit"] });
    const port = await new Promise<number>((resolve, reject) => {
      httpFixture!.stdout!.on("data", (chunk: Buffer) => {
        const match = /listening (\d+)/.exec(chunk.toString());
        if (match) resolve(Number(match[1]));
      });
      httpFixture!.once("exit", (code) => reject(new Error(`the HTTP fixture exited (${code})`)));
    });
    const url = `http://127.0.0.1:${port}/mcp`;
    await register({ name: "blocked", transport: "http", url });
    const blocked = await waitForStatus("blocked", "failed");
    expect(blocked.error).toMatch(/127\.0\.0\.1/);

    await stack.request("PATCH", "/api/settings", { body: { web_fetch_allow: [`127.0.0.1:${port}`] } });
    await register({ name: "web", transport: "http", url, headers: { Authorization: `Bearer ${HEADER_SECRET}` } });
    await waitForStatus("web", "connected");
    await waitForTool("mcp__web__echo");
    const { run, results } = await runScenario(
      [{ tool: "mcp__web__echo", args: { text: "over http" } }, { tool: "mcp__web__environment" }, { text: "ok" }],
      (candidate) => ["completed", "failed", "awaiting_approval"].includes(candidate.status),
    );
    expect(results[0]).toMatchObject({ ok: true, result: "echo: over http" });
    // The second call came after an MCP result: it waits for approval.
    expect(run.status).toBe("awaiting_approval");
    const decided = await stack.request("POST", "/api/approvals", {
      body: { tool_approval_id: run.pending_approvals[0].id, tool_approval_decision: "allow_task" },
    });
    expect(decided.status).toBe(202);
    const runId = run.id as string;
    await stack.waitForRun(runId);
    const environment = (await stack.events(runId)).filter((event) => event.type === "tool.completed").at(-1)?.data;
    expect(JSON.parse(environment?.result).headers).toEqual({ authorization: `Bearer ${HEADER_SECRET}` });
  });

  it("writes no secret of any registration into a log line of the API or the worker", () => {
    const logs = [...stack.api.logs, ...workerLogs].join("");
    // Not vacuous: both processes logged the servers' lives (registrations, connections, calls).
    expect(stack.api.logs.some((line) => line.includes("/api/mcp/servers"))).toBe(true);
    expect(workerLogs.length).toBeGreaterThan(0);
    for (const secret of [ENV_SECRET, HEADER_SECRET]) expect(logs).not.toContain(secret);
  });
});
