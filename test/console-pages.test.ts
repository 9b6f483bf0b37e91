// The console's other pages in a real browser (Debian's Chromium) against a real API, worker,
// Postgres and Redis: signing in and out, workspaces and their files, the tools a run would get,
// grants, the approvals inbox, administration, and a phone-sized screen.
import type { Page } from "playwright-core";
import { beforeAll, describe, expect, it } from "vitest";
import { scenarioInput } from "@agentq/core/testing";
import { saveScreenshot } from "./support/browser.ts";

import { useConsoleSession } from "./support/console-session.ts";
import type { TestStack } from "./support/test-stack.ts";

const session = useConsoleSession();
const open = session.open;
const openPage = session.openPage;
let stack: TestStack;

beforeAll(() => {
  stack = session.stack;
});

async function navigate(page: Page, name: string): Promise<void> {
  await page.getByRole("navigation", { name: "Main" }).getByRole("link", { name }).click();
}

/** A chat with a run paused on write_file after a read: the common starting point of the approval pages. */
async function pausedRun(token = stack.api.adminToken): Promise<{ workspaceId: string; chatId: string; runId: string }> {
  const workspaceId = await stack.createWorkspace(token);
  await stack.putFile(workspaceId, "notes.txt", "hello", token);
  const chatId = await stack.createChat({ workspaceId, token });
  const runId = await stack.run(
    chatId,
    {
      input: scenarioInput([
        { tool: "read_file", args: { path: "notes.txt" } },
        { tool: "write_file", args: { path: "out.txt", content: "x" } },
        { text: "finished" },
      ]),
    },
    token,
  );
  await stack.waitForRun(runId, (run) => run.status === "awaiting_approval", 20_000, token);
  return { workspaceId, chatId, runId };
}

describe("signing in and out", () => {
  it("refuses a bad token in words, keeps the token out of the URL, and forgets it on sign out", async () => {
    const { page } = await openPage();
    await page.goto(`${stack.url}/`);
    await page.getByLabel("API token").fill("aq_not-a-real-token");
    await page.getByRole("button", { name: "Sign in" }).click();
    await page.getByText("That token was not accepted", { exact: false }).waitFor();

    await page.getByLabel("API token").fill(stack.api.adminToken);
    await page.getByRole("button", { name: "Sign in" }).click();
    await page.getByRole("button", { name: "Sign out" }).waitFor();
    expect(page.url()).not.toContain(stack.api.adminToken);
    expect(await page.evaluate<number>("localStorage.length")).toBe(0);

    await page.getByRole("button", { name: "Sign out" }).click();
    await page.getByLabel("API token").waitFor();
    expect(await page.evaluate<string>('Object.values(sessionStorage).join(" ")')).not.toContain(stack.api.adminToken);
    // A reload after signing out does not sign back in.
    await page.reload();
    await page.getByLabel("API token").waitFor();
  });
});

describe("workspaces", () => {
  it("creates a workspace, shows its file tree, edits a file, and says so when a save would overwrite someone else's change", async () => {
    const page = await open();
    await navigate(page, "Workspaces");
    await page.getByLabel("Workspace name").fill("docs-ws");
    await page.getByRole("button", { name: "Create workspace" }).click();
    await page
      .getByRole("list", { name: "Your workspaces" })
      .getByRole("link", { name: /docs-ws/ })
      .click();
    const workspaceId = decodeURIComponent(new URL(page.url()).pathname.split("/").pop()!);
    await stack.putFile(workspaceId, "guide/intro.md", "Hello");

    await page.reload();
    await page.getByRole("button", { name: "guide" }).click();
    await page.getByRole("button", { name: /intro\.md/ }).click();
    const content = page.getByLabel("File content");
    await expect.poll(() => content.inputValue()).toBe("Hello");
    await content.fill("Hello, edited in the console");
    await page.getByRole("button", { name: "Save", exact: true }).click();
    await page.getByText("Saved.", { exact: false }).waitFor();
    const saved = await stack.request("GET", `/api/workspaces/${workspaceId}/files/guide/intro.md`);
    expect(saved.body.content).toBe("Hello, edited in the console");
    await saveScreenshot(page, "workspace");

    // Someone else changes the file; the next save from this editor must not silently replace it.
    await stack.putFile(workspaceId, "guide/intro.md", "Changed elsewhere");
    await content.fill("My late edit");
    await page.getByRole("button", { name: "Save", exact: true }).click();
    await page.getByText("This file changed since you opened it").waitFor();
    expect((await stack.request("GET", `/api/workspaces/${workspaceId}/files/guide/intro.md`)).body.content).toBe("Changed elsewhere");
    await page.getByRole("button", { name: "Reload" }).click();
    await expect.poll(() => content.inputValue()).toBe("Changed elsewhere");
  });
});

describe("a page whose file cannot be fetched", () => {
  it("says to reload the page instead of going blank, keeps the navigation, and the reload brings the page", async () => {
    const page = await open();
    // As in a tab opened before the console was updated: the Tools page's file is no longer there.
    const pageFile = "**/console/assets/ToolsPage-*.js";
    await page.route(pageFile, (route) => route.abort());
    await navigate(page, "Tools");
    const alert = page.getByRole("alert");
    await alert.getByText("could not be loaded", { exact: false }).waitFor();
    // Trying again in the same tab cannot fetch it (the browser keeps the failed import): no such button.
    expect(await alert.getByRole("button", { name: "Try again" }).count()).toBe(0);
    await page.getByRole("navigation", { name: "Main" }).getByRole("link", { name: "Chats" }).waitFor();
    await page.unroute(pageFile);
    await alert.getByRole("button", { name: "Reload the page" }).click();
    await page.getByRole("list", { name: "Offered tools" }).waitFor();
  });
});

describe("tools", () => {
  it("lists what a run with the chosen switches would be offered", async () => {
    // Not an admin: an admin's runs are also offered the admin tools, whatever the switches.
    const user = await stack.createUser("tools-page-user");
    await stack.createWorkspace(user.token);
    const page = await open(user.token);
    await navigate(page, "Tools");
    const tools = page.getByRole("list", { name: "Offered tools" });
    const offered = (name: string) => tools.getByText(name, { exact: true });
    await page.getByLabel("Use web").check();
    await offered("fetch_page").waitFor();
    await offered("web_search").waitFor();
    // allow_web_search: false wins over use_web: true (API.md): no web tool at all (the families that
    // need no workspace, personal and documents, stay).
    await page.getByLabel("Allow web search").uncheck();
    await offered("web_search").waitFor({ state: "detached" });
    await offered("draft_email").waitFor();
    await offered("list_documents").waitFor();
    expect(await offered("fetch_page").count()).toBe(0);
    await page.getByLabel("Allow web search").check();
    await offered("web_search").waitFor();
    await page.getByLabel("Use web").uncheck();
    await offered("web_search").waitFor({ state: "detached" });
    expect(await offered("read_file").count()).toBe(0);
    // With a workspace, the file tools join.
    await page.getByLabel("Workspace").selectOption({ index: 1 });
    await offered("read_file").waitFor();
  });
});

describe("approvals", () => {
  it("lists pending approvals in the inbox, and a decision there resumes the run", async () => {
    const { runId } = await pausedRun();
    const page = await open();
    await navigate(page, "Approvals");
    const card = page.getByRole("region", { name: "Approval: write_file" });
    await card.waitFor();
    await saveScreenshot(page, "approvals-inbox");
    await card.getByRole("button", { name: "Allow for this run" }).click();
    const run = await stack.waitForRun(runId);
    expect(run.status).toBe("completed");
    await expect.poll(() => card.count()).toBe(0);
  });

  it("Allow for this chat creates a grant that the chat's Grants tab lists and revokes", async () => {
    const { chatId, runId } = await pausedRun();
    const page = await open();
    await page.goto(`${stack.url}/console/chats/${chatId}`);
    await page.getByRole("region", { name: "Approval: write_file" }).getByRole("button", { name: "Allow for this chat" }).click();
    await stack.waitForRun(runId);
    await page.getByRole("navigation", { name: "Chat sections" }).getByRole("link", { name: "Grants" }).click();
    await page.getByRole("button", { name: "Revoke write_file grant" }).click();
    await expect
      .poll(async () => (await stack.request("GET", `/api/chats/${chatId}/grants`)).body.grants.filter((grant: any) => !grant.revoked_at).length)
      .toBe(0);
    await page.getByRole("navigation", { name: "Chat sections" }).getByRole("link", { name: "Approval history" }).click();
    await page.getByText("write_file").first().waitFor();
  });
});

describe("jobs", () => {
  it("lists a run's background jobs with their status, shows their output, and stops a running one", async () => {
    const workspaceId = await stack.createWorkspace();
    const chatId = await stack.createChat({ workspaceId });
    const runId = await stack.run(chatId, {
      allow_bash: true,
      input: scenarioInput([
        {
          calls: [
            { tool: "start_job", args: { command: "echo hello-from-the-job", name: "greeter" } },
            { tool: "start_job", args: { command: "sleep 300", name: "sleeper" } },
          ],
        },
        { text: "started" },
      ]),
    });
    expect((await stack.waitForRun(runId)).status).toBe("completed");

    const page = await open();
    await navigate(page, "Jobs");
    const jobs = page.getByRole("list", { name: "Jobs" });
    const greeter = jobs.getByRole("listitem").filter({ hasText: "greeter" });
    await greeter.getByText(/exited · exit 0/).waitFor({ timeout: 15_000 });
    await greeter.getByRole("button", { name: "Show output" }).click();
    // Exactly the output (the job's command line shows the same words after "echo").
    await greeter.getByText("hello-from-the-job", { exact: true }).waitFor();

    const sleeper = jobs.getByRole("listitem").filter({ hasText: "sleeper" });
    await sleeper.getByRole("button", { name: "Stop" }).click();
    await sleeper.getByText("stopped").waitFor({ timeout: 15_000 });
  });
});

describe("administration", () => {
  it("shows each setting's stored value after a change brought into range, and creates a user whose token is shown once", async () => {
    const page = await open();
    await navigate(page, "Admin");
    const rounds = page.getByLabel("agent_max_rounds");
    await rounds.fill("999");
    await page.getByRole("button", { name: "Save settings" }).click();
    await page.getByText("999 was stored as 200", { exact: false }).waitFor();
    expect((await stack.request("GET", "/api/settings")).body.agent_max_rounds).toBe(200);

    await page.getByLabel("Name", { exact: true }).fill("console-made-user");
    await page.getByRole("button", { name: "Create user" }).click();
    await page.getByRole("button", { name: "Copy token" }).waitFor();
    const created = page.getByRole("region", { name: "console-made-user (user) was created" });
    const token = await created.locator("code").textContent();
    expect(token).toBeTruthy();
    const me = await stack.request("GET", "/api/me", { token: token! });
    expect(me.body.name).toBe("console-made-user");
    await stack.request("PATCH", "/api/settings", { body: { agent_max_rounds: 20 } });
  });

  it("offers no administration to a user who is not an admin", async () => {
    const user = await stack.createUser("plain-user");
    const page = await open(user.token);
    await page.getByRole("navigation", { name: "Main" }).getByRole("link", { name: "Chats" }).waitFor();
    expect(await page.getByRole("navigation", { name: "Main" }).getByRole("link", { name: "Admin" }).count()).toBe(0);
  });
});

describe("a phone-sized screen", () => {
  it("folds the navigation behind the Menu button and still decides approvals", async () => {
    const { chatId, runId } = await pausedRun();
    const page = await open(stack.api.adminToken, { width: 375, height: 760 });
    await page.getByRole("button", { name: "Menu" }).click();
    await navigate(page, "Chats");
    await page.goto(`${stack.url}/console/chats/${chatId}`);
    const card = page.getByRole("region", { name: "Approval: write_file" });
    await card.waitFor();
    await card.getByRole("button", { name: "Deny" }).click();
    expect((await stack.waitForRun(runId)).status).toBe("completed");
  });
});
