// The console's administration (issue 13) in a real browser against a real API, worker, Postgres and
// Redis: the services panel lists the worker, a settings change appears in the audit log, and with
// approval_always an untainted call pauses with a card that says an admin asks for every call.
import { beforeAll, describe, expect, it } from "vitest";
import { scenarioInput } from "@agentq/core/testing";
import { saveScreenshot } from "./support/browser.ts";
import { useConsoleSession } from "./support/console-session.ts";
import type { TestStack } from "./support/test-stack.ts";

const session = useConsoleSession();
let stack: TestStack;

beforeAll(() => {
  stack = session.stack;
});

describe("the Admin page", () => {
  it("lists the worker, records a settings change in the audit log, and approval_always makes an untainted write ask", async () => {
    const page = await session.open();
    await page.getByRole("navigation", { name: "Main" }).getByRole("link", { name: "Admin" }).click();
    const workers = page.getByRole("table", { name: "Workers" });
    await workers.getByRole("cell", { name: stack.workers[0]!.workerId }).waitFor();
    await saveScreenshot(page, "console-admin-services");

    await page.getByLabel("approval_always").fill("write_file");
    await page.getByRole("button", { name: "Save settings" }).click();
    const audit = page.getByRole("table", { name: "Audit log" });
    await audit.getByRole("cell", { name: "settings.updated" }).first().waitFor();
    expect((await stack.request("GET", "/api/settings")).body.approval_always).toEqual(["write_file"]);
    await saveScreenshot(page, "console-admin-audit");

    const workspaceId = await stack.createWorkspace();
    const chatId = await stack.createChat({ workspaceId });
    const runId = await stack.run(chatId, { input: scenarioInput([{ tool: "write_file", args: { path: "a.txt", content: "x" } }, { text: "written" }]) });
    await stack.waitForRun(runId, (run) => run.status === "awaiting_approval");
    await page.goto(`${stack.url}/console/chats/${chatId}`);
    const card = page.getByRole("region", { name: "Approval: write_file" });
    await card.getByText("An admin asks for approval of every call of write_file").waitFor();
    await card.getByRole("button", { name: "Allow for this run" }).click();
    await stack.waitForRun(runId);
    await stack.request("PATCH", "/api/settings", { body: { approval_always: [] } });
  });
});
