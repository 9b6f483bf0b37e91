// Team operations in the console, in a real browser against a real API: the Admin users table shows
// each user's usage and limits and saves new limits; every user sees their own usage in the header.
import type { Page } from "playwright-core";
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

async function openAdmin(): Promise<Page> {
  const page = await session.open();
  await page.getByRole("navigation", { name: "Main" }).getByRole("link", { name: "Admin" }).click();
  await page.getByRole("table", { name: "Users" }).waitFor();
  return page;
}

describe("limits and usage in the console", () => {
  it("the Users table shows usage and the limits that apply, and saves a user's own limits", async () => {
    const uma = await stack.createUser("uma");
    const chatId = await stack.createChat({ token: uma.token });
    await stack.waitForRun(await stack.run(chatId, { input: scenarioInput([{ text: "hi" }]) }, uma.token), undefined, 20_000, uma.token);
    const page = await openAdmin();
    const row = page.getByRole("table", { name: "Users" }).locator('tr[data-user="uma"]');
    await row.getByText("0/20 active").waitFor();
    await row.getByText("1 runs", { exact: true }).waitFor();

    await row.getByLabel("Max active runs of uma").fill("3");
    await row.getByLabel("Runs per day of uma").fill("50");
    await row.getByRole("button", { name: "Save limits of uma" }).click();
    await row.getByText("0/3 active").waitFor();
    await row.getByText("1 / 50 runs").waitFor();
    const stored = (await stack.request("GET", "/api/users")).body.users.find((user: { id: string }) => user.id === uma.id);
    expect(stored).toMatchObject({ max_active_runs: 3, runs_per_day: 50, tokens_per_day: null });

    // Emptied: back to the deployment's setting.
    await row.getByLabel("Max active runs of uma").fill("");
    await row.getByRole("button", { name: "Save limits of uma" }).click();
    await row.getByText("0/20 active").waitFor();
    await saveScreenshot(page, "console-admin-limits");
  });

  it("a user sees their own usage in the header", async () => {
    const vic = await stack.createUser("vic");
    await stack.request("PATCH", `/api/users/${vic.id}`, { body: { runs_per_day: 7 } });
    const chatId = await stack.createChat({ token: vic.token });
    await stack.waitForRun(await stack.run(chatId, { input: scenarioInput([{ text: "hi" }]) }, vic.token), undefined, 20_000, vic.token);
    const page = await session.open(vic.token);
    const usage = page.getByLabel("Your usage today");
    await usage.getByText("1 / 7 runs today").waitFor();
    await usage.getByText("0/20 active").waitFor();
  });
});
