import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { scenarioInput } from "@agentq/core/testing";
import type { FakeProviderRequest } from "../packages/core/src/testing/fake-provider-request.ts";
import { startTestStack, type TestStack } from "./support/test-stack.ts";
import { fileExists, INJECTION, waitForFinished, waitForParked, workspaceRoot } from "./support/approval-test-helpers.ts";

const FILE_TOOLS = ["read_file", "list_files", "search_files", "write_file", "edit_file"];
const PROCESS_TOOLS = ["run_command", "start_job", "list_jobs", "job_status", "job_output", "stop_job"];
const WEB_TOOLS = ["fetch_page", "web_search"];
const ADMIN_TOOLS = ["get_settings", "update_settings", "list_mcp_servers", "add_mcp_server", "remove_mcp_server", "service_status"];
/** The personal tools every agent-mode run gets, whatever the switches (this stack has no SMTP_URL: no send_email). */
const PERSONAL_TOOLS = [
  ...["draft_email", "list_emails", "read_email"],
  ...["create_note", "list_notes", "read_note", "update_note", "delete_note"],
  ...["create_task", "list_tasks", "update_task", "complete_task", "delete_task"],
  ...["create_event", "list_events", "update_event", "delete_event"],
  ...["remember", "recall", "forget"],
];
/** The documents family: offered in agent mode; export_document writes into the workspace, so needs one. */
const DOCUMENT_TOOLS = ["list_documents", "read_document", "create_document", "update_document"];

interface Switches {
  mode: "agent" | "guide";
  allowBash: boolean;
  allowWebSearch: boolean;
  useWeb: boolean;
  workspace: boolean;
}

/** What docs/design.md/API.md say a run with these switches is offered; the admin tools go to admins only. */
function expectedToolNames(switches: Switches, role: "admin" | "user"): string[] {
  if (switches.mode === "guide") return [];
  return [
    ...(switches.workspace ? FILE_TOOLS : []),
    ...(switches.workspace && switches.allowBash ? PROCESS_TOOLS : []),
    ...(switches.allowWebSearch && switches.useWeb ? WEB_TOOLS : []),
    ...(role === "admin" ? ADMIN_TOOLS : []),
    ...PERSONAL_TOOLS,
    ...DOCUMENT_TOOLS,
    ...(switches.workspace ? ["export_document"] : []),
  ].sort();
}

function allSwitchCombinations(): Switches[] {
  const combinations: Switches[] = [];
  for (const mode of ["agent", "guide"] as const)
    for (const allowBash of [false, true])
      for (const allowWebSearch of [false, true])
        for (const useWeb of [false, true]) for (const workspace of [false, true]) combinations.push({ mode, allowBash, allowWebSearch, useWeb, workspace });
  return combinations;
}

function toolsQuery(switches: Switches, workspaceId: string): string {
  const query = new URLSearchParams({
    mode: switches.mode,
    allow_bash: String(switches.allowBash),
    allow_web_search: String(switches.allowWebSearch),
    use_web: String(switches.useWeb),
  });
  if (switches.workspace) query.set("workspace_id", workspaceId);
  return `/api/tools?${query}`;
}

/** The provider requests of the run whose input carries `marker`. */
function requestsOf(stack: TestStack, marker: string): FakeProviderRequest[] {
  return stack.provider.requests.filter((request) => request.messages.some((message) => message.role === "user" && message.content.includes(marker)));
}

describe("which tools a run is offered, and the executor's re-check", () => {
  let stack: TestStack;
  let member: { id: string; token: string };
  let adminWorkspace: string;
  let memberWorkspace: string;
  let webServer: Server;
  let webHits = 0;
  let webUrl: string;

  beforeAll(async () => {
    stack = await startTestStack();
    member = await stack.createUser("member");
    adminWorkspace = await stack.createWorkspace();
    memberWorkspace = await stack.createWorkspace(member.token);
    webServer = createServer((_request, response) => {
      webHits += 1;
      response.end("<html><body>secret page</body></html>");
    });
    await new Promise<void>((resolve) => webServer.listen(0, "127.0.0.1", resolve));
    webUrl = `http://127.0.0.1:${(webServer.address() as AddressInfo).port}/page`;
  });
  afterAll(async () => {
    await new Promise((resolve) => webServer?.close(resolve));
    await stack?.close();
  });

  it("GET /api/tools answers every combination of mode, switches, workspace and role as the policy says", async () => {
    for (const [token, workspaceId] of [
      [undefined, adminWorkspace],
      [member.token, memberWorkspace],
    ] as const) {
      for (const switches of allSwitchCombinations()) {
        const response = await stack.request("GET", toolsQuery(switches, workspaceId), { token });
        expect(response.status).toBe(200);
        const names = response.body.tools.map((tool: any) => tool.name).sort();
        expect({ switches, token: token ? "member" : "admin", names }).toEqual({
          switches,
          token: token ? "member" : "admin",
          names: expectedToolNames(switches, token ? "user" : "admin"),
        });
      }
    }
  });

  it("GET /api/tools describes each tool with its family, effects and a JSON schema", async () => {
    const response = await stack.request("GET", `/api/tools?workspace_id=${adminWorkspace}&allow_bash=true&use_web=true`);
    const byName = Object.fromEntries(response.body.tools.map((tool: any) => [tool.name, tool]));
    expect(byName.read_file).toMatchObject({ family: "files", effects: ["read"], parameters: { type: "object", required: ["path"] } });
    expect(byName.write_file).toMatchObject({ family: "files", effects: ["write"] });
    expect(byName.run_command).toMatchObject({ family: "process", effects: ["process"], parameters: { type: "object", required: ["command"] } });
    expect(byName.fetch_page).toMatchObject({ family: "web", effects: ["network"] });
    for (const tool of response.body.tools) expect(tool.description.length).toBeGreaterThan(0);
  });

  it("GET /api/tools defaults: agent mode, no bash, web search allowed but web tools off", async () => {
    const withoutWorkspace = await stack.request("GET", "/api/tools", { token: member.token });
    expect(withoutWorkspace.body.tools.map((tool: any) => tool.name).sort()).toEqual([...PERSONAL_TOOLS, ...DOCUMENT_TOOLS].sort());
    const withWorkspace = await stack.request("GET", `/api/tools?workspace_id=${memberWorkspace}`, { token: member.token });
    expect(withWorkspace.body.tools.map((tool: any) => tool.name).sort()).toEqual(
      [...FILE_TOOLS, ...PERSONAL_TOOLS, ...DOCUMENT_TOOLS, "export_document"].sort(),
    );
    const admins = await stack.request("GET", "/api/tools");
    expect(admins.body.tools.map((tool: any) => tool.name).sort()).toEqual([...ADMIN_TOOLS, ...PERSONAL_TOOLS, ...DOCUMENT_TOOLS].sort());
  });

  it("GET /api/tools refuses someone else's workspace (404) and bad switch values (400)", async () => {
    const foreign = await stack.request("GET", `/api/tools?workspace_id=${adminWorkspace}`, { token: member.token });
    expect(foreign.status).toBe(404);
    expect(foreign.body.error.code).toBe("not_found");
    const bad = await stack.request("GET", `/api/tools?allow_bash=yes`);
    expect(bad.status).toBe(400);
    expect(bad.body.error.code).toBe("invalid_request");
    expect((await stack.request("GET", `/api/tools?mode=chaos`)).status).toBe(400);
  });

  it("GET /api/tools equals what the model receives for a run with the same switches", async () => {
    const cases: { switches: Switches; token?: string; workspaceId: string }[] = [
      { switches: { mode: "agent", allowBash: true, allowWebSearch: true, useWeb: true, workspace: true }, workspaceId: adminWorkspace },
      {
        switches: { mode: "agent", allowBash: false, allowWebSearch: true, useWeb: false, workspace: true },
        token: member.token,
        workspaceId: memberWorkspace,
      },
      {
        switches: { mode: "agent", allowBash: true, allowWebSearch: false, useWeb: true, workspace: false },
        token: member.token,
        workspaceId: memberWorkspace,
      },
      { switches: { mode: "agent", allowBash: false, allowWebSearch: true, useWeb: true, workspace: false }, workspaceId: adminWorkspace },
      { switches: { mode: "guide", allowBash: true, allowWebSearch: true, useWeb: true, workspace: true }, workspaceId: adminWorkspace },
    ];
    for (const [index, { switches, token, workspaceId }] of cases.entries()) {
      const marker = `tools-compare-${index}-${Date.now()}`;
      const chatId = await stack.createChat({ workspaceId: switches.workspace ? workspaceId : undefined, token });
      const runId = await stack.run(
        chatId,
        {
          input: scenarioInput([{ text: "ok" }], marker),
          mode: switches.mode,
          allow_bash: switches.allowBash,
          allow_web_search: switches.allowWebSearch,
          use_web: switches.useWeb,
        },
        token,
      );
      expect(await waitForFinished(stack, runId, token)).toMatchObject({ status: "completed" });
      const sent = requestsOf(stack, marker);
      expect(sent).toHaveLength(1);
      const offered = (await stack.request("GET", toolsQuery(switches, workspaceId), { token })).body.tools;
      const received = sent[0]!.tools.map((tool) => ({ name: tool.name, description: tool.description, parameters: tool.parameters }));
      expect(received).toEqual(offered.map((tool: any) => ({ name: tool.name, description: tool.description, parameters: tool.parameters })));
      expect(received.map((tool) => tool.name).sort()).toEqual(expectedToolNames(switches, token ? "user" : "admin"));
    }
  });

  it("guide mode sends no tools, and a call the model emits anyway gets a tool error and runs nothing", async () => {
    const root = await workspaceRoot(stack, adminWorkspace);
    const chatId = await stack.createChat({ workspaceId: adminWorkspace });
    const marker = `guide-${Date.now()}`;
    const runId = await stack.run(chatId, {
      mode: "guide",
      allow_bash: true,
      input: scenarioInput([{ tool: "write_file", args: { path: "guide.txt", content: "should not exist" } }, { text: "here is how you would do it" }], marker),
    });
    expect(await waitForFinished(stack, runId)).toMatchObject({ status: "completed", output: "here is how you would do it" });
    const sent = requestsOf(stack, marker);
    expect(sent).toHaveLength(2);
    for (const request of sent) {
      expect(request.tools).toEqual([]);
      expect(request.body.tools).toBeUndefined();
    }
    expect(await fileExists(root, "guide.txt")).toBe(false);
    const events = await stack.events(runId);
    expect(events.some((event) => event.type === "tool.started")).toBe(false);
    const completed = events.find((event) => event.type === "tool.completed");
    expect(completed?.data).toMatchObject({ tool: "write_file", ok: false });
    expect(completed?.data.error).toMatch(/guide mode/);
  });

  it("a call for a tool the run was not offered is refused by the executor and runs nothing", async () => {
    const root = await workspaceRoot(stack, adminWorkspace);
    const chatId = await stack.createChat({ workspaceId: adminWorkspace });
    const runId = await stack.run(chatId, {
      // allow_bash and use_web stay off: neither run_command nor fetch_page is offered.
      input: scenarioInput([
        { tool: "run_command", args: { command: "touch not-offered" } },
        { tool: "fetch_page", args: { url: webUrl } },
        { tool: "drop_database", args: {} },
        { text: "gave up" },
      ]),
    });
    expect(await waitForFinished(stack, runId)).toMatchObject({ status: "completed", output: "gave up", tool_calls: 3 });
    expect(await fileExists(root, "not-offered")).toBe(false);
    expect(webHits).toBe(0);
    const events = await stack.events(runId);
    expect(events.some((event) => event.type === "tool.started")).toBe(false);
    const completed = events.filter((event) => event.type === "tool.completed");
    expect(completed.map((event) => [event.data.tool, event.data.ok])).toEqual([
      ["run_command", false],
      ["fetch_page", false],
      ["drop_database", false],
    ]);
    expect(completed[0]!.data.error).toMatch(/allow_bash/);
    expect(completed[1]!.data.error).toMatch(/use_web/);
    expect(completed[2]!.data.error).toMatch(/no tool named/);
  });

  it("a run started with a list of tools is offered only those, and a call to another is refused and runs nothing", async () => {
    const root = await workspaceRoot(stack, memberWorkspace);
    const chatId = await stack.createChat({ workspaceId: memberWorkspace, token: member.token });
    const marker = `tool-list-${Date.now()}`;
    const runId = await stack.run(
      chatId,
      {
        // run_command is listed but allow_bash is off: a list narrows what the switches allow, never widens it.
        tools: ["read_file", "list_files", "run_command", "list_files"],
        input: scenarioInput([{ tool: "write_file", args: { path: "unlisted.txt", content: "no" } }, { text: "could not" }], marker),
      },
      member.token,
    );
    expect(await waitForFinished(stack, runId, member.token)).toMatchObject({ status: "completed", tools: ["read_file", "list_files", "run_command"] });
    const sent = requestsOf(stack, marker);
    expect(sent[0]!.tools.map((tool) => tool.name).sort()).toEqual(["list_files", "read_file"]);
    const listed = await stack.request("GET", `/api/tools?workspace_id=${memberWorkspace}&tools=read_file,list_files,run_command`, { token: member.token });
    expect(listed.body.tools.map((tool: any) => tool.name).sort()).toEqual(["list_files", "read_file"]);
    expect(await fileExists(root, "unlisted.txt")).toBe(false);
    const completed = (await stack.events(runId, 0, member.token)).find((event) => event.type === "tool.completed");
    expect(completed?.data).toMatchObject({ tool: "write_file", ok: false });
    expect(completed?.data.error).toMatch(/list of tools that does not include write_file/);
    // Without a list: every tool the switches allow, and the run says so.
    const unlimited = await stack.run(await stack.createChat({ token: member.token }), { input: scenarioInput([{ text: "ok" }]) }, member.token);
    expect(await waitForFinished(stack, unlimited, member.token)).toMatchObject({ status: "completed", tools: null });
  });

  it("a list of tools naming an unknown tool, or none, is refused with 400 and creates nothing", async () => {
    const chatId = await stack.createChat({ token: member.token });
    for (const [tools, field] of [
      [["read_file", "reed_file"], "tools"],
      [[], "tools"],
      [["read file"], "tools.0"],
      ["read_file", "tools"],
    ] as const) {
      const response = await stack.request("POST", `/api/chats/${chatId}/runs`, { token: member.token, body: { input: "hi", tools } });
      expect(response.status).toBe(400);
      expect(response.body.error).toMatchObject({ code: "invalid_request", details: { field } });
    }
    const unknown = await stack.request("POST", `/api/chats/${chatId}/runs`, { token: member.token, body: { input: "hi", tools: ["reed_file"] } });
    expect(unknown.body.error.details.unknown).toEqual(["reed_file"]);
    expect((await stack.request("GET", `/api/chats/${chatId}/runs`, { token: member.token })).body.runs).toEqual([]);
    // An MCP server's tool may be listed before its server connects.
    const mcp = await stack.request("POST", `/api/chats/${chatId}/runs`, {
      token: member.token,
      body: { input: scenarioInput([{ text: "ok" }]), tools: ["mcp__later__lookup"] },
    });
    expect(mcp.status).toBe(202);
    expect(mcp.body.tools).toEqual(["mcp__later__lookup"]);
  });

  it("run_command in a chat without a workspace is refused even with allow_bash", async () => {
    const chatId = await stack.createChat();
    const runId = await stack.run(chatId, { allow_bash: true, input: scenarioInput([{ tool: "run_command", args: { command: "echo hi" } }, { text: "no" }]) });
    expect(await waitForFinished(stack, runId)).toMatchObject({ status: "completed" });
    const completed = (await stack.events(runId)).filter((event) => event.type === "tool.completed");
    expect(completed).toHaveLength(1);
    expect(completed[0]!.data).toMatchObject({ tool: "run_command", ok: false });
    expect(completed[0]!.data.error).toMatch(/workspace/);
  });

  it("an administrator switching a tool family off removes it from GET /api/tools, from the model, and from the executor", async () => {
    const root = await workspaceRoot(stack, adminWorkspace);
    expect((await stack.request("PATCH", "/api/settings", { body: { tools_process_enabled: false } })).status).toBe(200);
    try {
      const offered = (await stack.request("GET", `/api/tools?workspace_id=${adminWorkspace}&allow_bash=true`)).body.tools.map((tool: any) => tool.name);
      expect(offered).not.toContain("run_command");
      expect(offered).toContain("read_file");
      const chatId = await stack.createChat({ workspaceId: adminWorkspace });
      const marker = `family-off-${Date.now()}`;
      const runId = await stack.run(chatId, {
        allow_bash: true,
        input: scenarioInput([{ tool: "run_command", args: { command: "touch family-off" } }, { text: "ok" }], marker),
      });
      expect(await waitForFinished(stack, runId)).toMatchObject({ status: "completed" });
      expect(requestsOf(stack, marker)[0]!.tools.map((tool) => tool.name)).not.toContain("run_command");
      expect(await fileExists(root, "family-off")).toBe(false);
      const completed = (await stack.events(runId)).find((event) => event.type === "tool.completed");
      expect(completed?.data).toMatchObject({ tool: "run_command", ok: false });
    } finally {
      await stack.request("PATCH", "/api/settings", { body: { tools_process_enabled: true } });
    }
  });
});

describe("taint", () => {
  let stack: TestStack;
  beforeAll(async () => {
    stack = await startTestStack();
  });
  afterAll(async () => {
    await stack?.close();
  });

  it("is judged as of the start of the round: a call in the same round as the read runs, the next round's pauses", async () => {
    const workspaceId = await stack.createWorkspace();
    await stack.putFile(workspaceId, "notes.md", INJECTION);
    const root = await workspaceRoot(stack, workspaceId);
    const chatId = await stack.createChat({ workspaceId });
    const runId = await stack.run(chatId, {
      allow_bash: true,
      input: scenarioInput([
        {
          calls: [
            { tool: "read_file", args: { path: "notes.md" } },
            { tool: "run_command", args: { command: "touch same-round" } },
          ],
        },
        { tool: "run_command", args: { command: "touch next-round" } },
        { text: "ok" },
      ]),
    });
    const run = await waitForParked(stack, runId);
    expect(run.status).toBe("awaiting_approval");
    expect(run.pending_approvals.map((approval: any) => approval.arguments)).toEqual([{ command: "touch next-round" }]);
    expect(await fileExists(root, "same-round")).toBe(true);
    expect(await fileExists(root, "next-round")).toBe(false);
    expect((await stack.request("POST", `/api/runs/${runId}/cancel`)).status).toBe(202);
  });

  it("before any untrusted material, a write proceeds without asking; after a search it pauses, while reads still proceed", async () => {
    const workspaceId = await stack.createWorkspace();
    await stack.putFile(workspaceId, "notes.md", INJECTION);
    const chatId = await stack.createChat({ workspaceId });
    const runId = await stack.run(chatId, {
      input: scenarioInput([
        { tool: "write_file", args: { path: "early.txt", content: "trusted" } },
        { tool: "search_files", args: { query: "ignore previous" } },
        { tool: "read_file", args: { path: "early.txt" } },
        { tool: "write_file", args: { path: "late.txt", content: "after taint" } },
        { text: "ok" },
      ]),
    });
    const run = await waitForParked(stack, runId);
    expect(run.status).toBe("awaiting_approval");
    expect(run.pending_approvals).toHaveLength(1);
    expect(run.pending_approvals[0]).toMatchObject({ tool: "write_file", effects: ["write"], arguments: { path: "late.txt", content: "after taint" } });
    const completed = (await stack.events(runId)).filter((event) => event.type === "tool.completed").map((event) => [event.data.tool, event.data.ok]);
    expect(completed).toEqual([
      ["write_file", true],
      ["search_files", true],
      ["read_file", true],
    ]);
    expect((await stack.request("GET", `/api/workspaces/${workspaceId}/files/late.txt`)).status).toBe(404);
    expect((await stack.request("POST", `/api/runs/${runId}/cancel`)).status).toBe(202);
  });

  it("carries over to the next run of the chat: the earlier material is in its input", async () => {
    const workspaceId = await stack.createWorkspace();
    await stack.putFile(workspaceId, "notes.md", INJECTION);
    const root = await workspaceRoot(stack, workspaceId);
    const chatId = await stack.createChat({ workspaceId });
    const first = await stack.run(chatId, { input: scenarioInput([{ tool: "list_files", args: {} }, { text: "listed" }]) });
    expect(await waitForFinished(stack, first)).toMatchObject({ status: "completed" });
    const second = await stack.run(chatId, {
      allow_bash: true,
      input: scenarioInput([{ tool: "run_command", args: { command: "touch carried" } }, { text: "ok" }]),
    });
    expect((await waitForParked(stack, second)).status).toBe("awaiting_approval");
    expect(await fileExists(root, "carried")).toBe(false);
    expect((await stack.request("POST", `/api/runs/${second}/cancel`)).status).toBe(202);
  });
});
