// The web console in a real browser (Debian's Chromium) against a real API, worker, Postgres, Redis
// and the fake model server: a person signs in, starts runs, watches them stream and decides approvals.
import type { Page } from "playwright-core";
import { beforeAll, describe, expect, it } from "vitest";
import { scenarioInput } from "@agentq/core/testing";
import { userRunsChannel } from "@agentq/queue";
import { signIn } from "./support/browser.ts";
import { useConsoleSession } from "./support/console-session.ts";
import { createTestRedis } from "./support/redis.ts";
import type { TestStack } from "./support/test-stack.ts";

const session = useConsoleSession();
const open = session.open;
let stack: TestStack;

beforeAll(() => {
  stack = session.stack;
});

async function createWorkspace(name: string, token = stack.api.adminToken): Promise<string> {
  const result = await stack.request("POST", "/api/workspaces", { token, body: { name } });
  expect(result.status).toBe(201);
  return result.body.id;
}

/** Creates a chat through the console's New chat form and waits for its page. */
async function newChat(page: Page, title: string, workspaceName?: string): Promise<string> {
  await page.getByRole("button", { name: "New chat" }).first().click();
  const dialog = page.getByRole("dialog", { name: "New chat" });
  await dialog.getByLabel("Title").fill(title);
  if (workspaceName) await dialog.getByLabel("Workspace").selectOption({ label: workspaceName });
  await dialog.getByRole("button", { name: "Create chat" }).click();
  await page.waitForURL(/\/console\/chats\/[^/]+$/);
  return decodeURIComponent(new URL(page.url()).pathname.split("/").pop()!);
}

async function send(page: Page, input: string): Promise<void> {
  await page.getByLabel("Message").fill(input);
  await page.getByRole("button", { name: "Send" }).click();
}

/** The id of the chat's newest run, from the API, once the console's Send has created one. */
async function latestRunId(chatId: string): Promise<string> {
  let runId: string | undefined;
  await expect
    .poll(async () => {
      const result = await stack.request("GET", `/api/chats/${chatId}/runs?limit=1`);
      expect(result.status).toBe(200);
      runId = result.body.runs[0]?.id;
      return runId;
    })
    .toBeDefined();
  return runId!;
}

/**
 * What the transcript shows the assistant saying ("assistant") or a tool answering ("tool": a result is
 * shown with its call, in the assistant's message). Scoped this way because the person's own message holds
 * the scenario, and with it every text the fake model will say.
 */
function said(page: Page, what: "assistant" | "tool", text: string) {
  const transcript = page.getByRole("list", { name: "Transcript" });
  const items = what === "assistant" ? transcript.locator('[data-role="assistant"]') : transcript.locator('[data-role="assistant"], [data-role="tool"]');
  return items.filter({ hasText: text }).first();
}

/**
 * Waits until an API instance is subscribed to the live channel of the admin's runs (a page follows
 * one). The hub registers a run's listener before it subscribes, so where the run is the only one of
 * the admin's followed (as in a fresh stack's first test), this says that run is followed live.
 */
async function followedLive(): Promise<void> {
  const redis = createTestRedis();
  try {
    const userId = (await stack.request("GET", "/api/me")).body.id as string;
    const channel = userRunsChannel(stack.api.config.queuePrefix, userId);
    await expect.poll(async () => Number((await redis.pubsub("NUMSUB", channel))[1]), { timeout: 15_000 }).toBeGreaterThan(0);
  } finally {
    await redis.quit();
  }
}

function approvalCard(page: Page, tool: string) {
  return page.getByRole("region", { name: `Approval: ${tool}` });
}

describe("the web console", () => {
  it("signs in, creates a chat on a workspace, and streams the answer of a run as it is written", async () => {
    await createWorkspace("streaming-ws");
    // Through the sign-in form, as a person does (the other tests open the console signed in).
    const { page } = await session.openPage();
    await signIn(page, stack.url, stack.api.adminToken);
    const chatId = await newChat(page, "Streaming", "streaming-ws");
    const chat = await stack.request("GET", `/api/chats/${chatId}`);
    expect(chat.body.title).toBe("Streaming");
    expect(chat.body.workspace_id).not.toBeNull();

    // Deltas are live only (never replayed): the model says nothing until the API follows the run for
    // this page, then stops after a few pieces until the test lets it go on, so what the page shows
    // then came from live deltas.
    await send(
      page,
      scenarioInput([
        { text: "Streaming answer: the quick brown fox jumps over the lazy dog.", holdUntil: "subscribed", stallAfterEvents: 4, stallUntil: "streaming" },
      ]),
    );
    const runId = await latestRunId(chatId);
    await followedLive();
    stack.provider.release("subscribed");
    const streaming = page.getByRole("log", { name: "Streaming answer" });
    await streaming.getByText("Streaming", { exact: false }).waitFor({ timeout: 15_000 });
    expect((await stack.getRun(runId)).status).toBe("running");
    expect(await streaming.textContent()).not.toContain("lazy dog");
    stack.provider.release("streaming");
    await said(page, "assistant", "the quick brown fox jumps over the lazy dog.").waitFor({ timeout: 15_000 });
    await page.getByText("Status: completed").first().waitFor();
  });

  it("shows a paused call's card live; Allow for this run runs it and the answer follows", async () => {
    const workspaceId = await createWorkspace("allow-ws");
    await stack.putFile(workspaceId, "notes.txt", "meeting at noon");
    const page = await open();
    const chatId = await newChat(page, "Allow", "allow-ws");
    await send(
      page,
      scenarioInput([
        { tool: "read_file", args: { path: "notes.txt" } },
        { tool: "write_file", args: { path: "summary.txt", content: "noon" } },
        { text: "Written the summary." },
      ]),
    );
    const card = approvalCard(page, "write_file");
    await card.waitFor();
    // Why it paused: the read of notes.txt made the turn untrusted.
    await expect.poll(() => card.textContent()).toContain("notes.txt");
    await expect.poll(() => card.textContent()).toContain("summary.txt");
    await card.getByRole("button", { name: "Allow for this run" }).click();
    await said(page, "assistant", "Written the summary.").waitFor();
    await page.getByText("Status: completed").first().waitFor();
    expect(await fileContent(workspaceId, "summary.txt")).toBe("noon");
    expect(await latestRunId(chatId)).toBeTruthy();
  });

  it("Deny answers the call with a denial and the run goes on to its answer", async () => {
    const workspaceId = await createWorkspace("deny-ws");
    await stack.putFile(workspaceId, "notes.txt", "x");
    const page = await open();
    const chatId = await newChat(page, "Deny", "deny-ws");
    await send(
      page,
      scenarioInput([
        { tool: "read_file", args: { path: "notes.txt" } },
        { tool: "write_file", args: { path: "out.txt", content: "y" } },
        { text: "Understood, not writing." },
      ]),
    );
    const card = approvalCard(page, "write_file");
    await card.getByRole("button", { name: "Deny" }).click();
    await said(page, "assistant", "Understood, not writing.").waitFor();
    const run = await stack.getRun(await latestRunId(chatId));
    expect(run.status).toBe("completed");
    const denial = (await stack.events(run.id)).find((event) => event.type === "tool.completed" && event.data.tool === "write_file");
    expect(denial?.data.ok).toBe(false);
    await said(page, "tool", denial!.data.error).waitFor();
  });

  it("Edit arguments refuses arguments that do not fit the tool's schema, and runs the edited call", async () => {
    const workspaceId = await createWorkspace("edit-ws");
    await stack.putFile(workspaceId, "notes.txt", "x");
    const page = await open();
    const chatId = await newChat(page, "Edit", "edit-ws");
    await send(
      page,
      scenarioInput([
        { tool: "read_file", args: { path: "notes.txt" } },
        { tool: "write_file", args: { path: "draft.txt", content: "first" } },
        { text: "Done editing." },
      ]),
    );
    const card = approvalCard(page, "write_file");
    await card.getByRole("button", { name: "Edit arguments" }).click();
    const editor = card.getByLabel("Arguments");
    await editor.fill('{"path": 42}');
    await card.getByRole("button", { name: "Allow for this run" }).click();
    // Checked in the browser against the tool's schema: the field says what is wrong, nothing was sent.
    await expect.poll(() => editor.getAttribute("aria-invalid")).toBe("true");
    expect((await stack.getRun(await latestRunId(chatId))).status).toBe("awaiting_approval");
    await editor.fill(JSON.stringify({ path: "edited.txt", content: "second" }));
    await card.getByRole("button", { name: "Allow for this run" }).click();
    await said(page, "assistant", "Done editing.").waitFor();
    expect(await fileContent(workspaceId, "edited.txt")).toBe("second");
    expect(await fileContent(workspaceId, "draft.txt")).toBeUndefined();
  });

  it("after a reload mid-run shows every event once and follows the run live", async () => {
    const page = await open();
    const chatId = await newChat(page, "Reload");
    await send(
      page,
      scenarioInput([
        { text: "first round, then a tool", tool: "list_files" },
        { text: "After the reload.", holdUntil: "reload-test" },
      ]),
    );
    const runId = await latestRunId(chatId);
    await stack.waitForEvent(runId, (event) => event.type === "round.started" && event.data.round === 2);
    await page.reload();
    await page.getByRole("button", { name: "Sign out" }).waitFor();
    stack.provider.release("reload-test");
    await said(page, "assistant", "After the reload.").waitFor();
    await page.getByText("Status: completed").first().waitFor();
    const events = await stack.events(runId);
    const timeline = page.getByRole("list", { name: "Run events" });
    await expect.poll(() => timeline.getByRole("listitem").count()).toBe(events.length);
    const seqs = await timeline.getByRole("listitem").evaluateAll((items) => items.map((item) => Number(item.getAttribute("data-seq"))));
    expect(seqs).toEqual(events.map((event) => event.seq));
  });

  it("starts a run limited to the tools named under Options, and its panel lists them", async () => {
    await createWorkspace("tool-list-ws");
    const page = await open();
    const chatId = await newChat(page, "Tool list", "tool-list-ws");
    await page.getByLabel("Tools").fill("read_file, list_files");
    await send(page, scenarioInput([{ text: "listed" }]));
    const runId = await latestRunId(chatId);
    await page.getByText("Status: completed").first().waitFor({ timeout: 15_000 });
    expect((await stack.getRun(runId)).tools).toEqual(["read_file", "list_files"]);
    const [request] = stack.provider.requests.filter((sent) => sent.messages.some((message) => message.content?.includes("listed")));
    expect(request?.tools.map((tool) => tool.name).sort()).toEqual(["list_files", "read_file"]);
    await page.getByText("read_file, list_files").first().waitFor();
    // A misspelt name: the API's refusal is shown, and nothing is created.
    await page.getByLabel("Tools").fill("reed_file");
    await send(page, "another");
    await page.getByRole("alert").getByText("reed_file").waitFor();
    expect((await stack.request("GET", `/api/chats/${chatId}/runs`)).body.runs).toHaveLength(1);
  });

  it("shows a second user none of the first user's chats", async () => {
    const first = await open();
    await newChat(first, "Admin's private chat");
    const other = await stack.createUser("other-user");
    const page = await open(other.token);
    await page
      .getByText(/No chats yet/)
      .first()
      .waitFor();
    expect(await page.getByText("Admin's private chat").count()).toBe(0);
  });

  it("shows HTML from a tool result as text and runs none of it", async () => {
    const workspaceId = await createWorkspace("xss-ws");
    const payload = `<img src=x onerror=alert(1)><script>alert(2)</script><b>bold?</b>`;
    await stack.putFile(workspaceId, "page.html", payload);
    const page = await open();
    await newChat(page, "XSS", "xss-ws");
    await send(page, scenarioInput([{ tool: "read_file", args: { path: "page.html" } }, { text: `The file says ${payload}` }]));
    await page.getByText("Status: completed").first().waitFor();
    await said(page, "tool", "<img src=x onerror=alert(1)>").waitFor();
    await said(page, "assistant", "<script>alert(2)</script>").waitFor();
    expect(await page.locator("img[src=x], main script, b:text('bold?')").count()).toBe(0);
    // afterEach checks that no dialog opened.
  });

  it("a stale approval (the file changed while waiting) says so in words", async () => {
    const workspaceId = await createWorkspace("stale-ws");
    await stack.putFile(workspaceId, "plan.txt", "v1");
    const page = await open();
    await newChat(page, "Stale", "stale-ws");
    await send(
      page,
      scenarioInput([
        { tool: "read_file", args: { path: "plan.txt" } },
        { tool: "edit_file", args: { path: "plan.txt", old_text: "v1", new_text: "v2" } },
        { text: "ok" },
      ]),
    );
    const card = approvalCard(page, "edit_file");
    await card.waitFor();
    await stack.putFile(workspaceId, "plan.txt", "changed by someone else");
    await card.getByRole("button", { name: "Allow for this run" }).click();
    await expect.poll(() => page.getByRole("alert").allTextContents()).toEqual(expect.arrayContaining([expect.stringMatching(/changed/i)]));
  });
});

/** A workspace file's content through the API, or undefined when it does not exist. */
async function fileContent(workspaceId: string, path: string): Promise<string | undefined> {
  const result = await stack.request("GET", `/api/workspaces/${workspaceId}/files/${path}`);
  if (result.status === 404) return undefined;
  expect(result.status).toBe(200);
  return result.body.content;
}
