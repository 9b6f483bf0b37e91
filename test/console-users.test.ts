// The Admin page's user list in a real browser against a real API: disabling a user (their token is
// refused at once), enabling them again, changing a role, a new token shown once, and the last admin
// guard said in words.
import type { Page } from "playwright-core";
import { beforeAll, describe, expect, it } from "vitest";
import { saveScreenshot } from "./support/browser.ts";
import { useConsoleSession } from "./support/console-session.ts";
import type { TestStack } from "./support/test-stack.ts";

const session = useConsoleSession();
let stack: TestStack;

beforeAll(() => {
  stack = session.stack;
});

async function openAdmin(token?: string): Promise<Page> {
  const page = await session.open(token);
  await page.getByRole("navigation", { name: "Main" }).getByRole("link", { name: "Admin" }).click();
  await page.getByRole("table", { name: "Users" }).waitFor();
  return page;
}

function userRow(page: Page, name: string) {
  return page.getByRole("table", { name: "Users" }).locator(`tr[data-user="${name}"]`);
}

async function meStatus(token: string): Promise<number> {
  return (await stack.request("GET", "/api/me", { token })).status;
}

describe("the Admin page's users", () => {
  it("lists users, and disabling one refuses their token at once; enabling them lets it work again", async () => {
    const rita = await stack.createUser("rita");
    const page = await openAdmin();
    const row = userRow(page, "rita");
    await row.getByText("enabled").waitFor();
    expect(await row.getByLabel("Role of rita").inputValue()).toBe("user");
    await userRow(page, "admin").getByText("(you)").waitFor();

    await row.getByRole("button", { name: "Disable rita" }).click();
    await row.getByText("disabled", { exact: true }).waitFor();
    expect(await meStatus(rita.token)).toBe(401);

    await row.getByRole("button", { name: "Enable rita" }).click();
    await row.getByText("enabled", { exact: true }).waitFor();
    expect(await meStatus(rita.token)).toBe(200);
  });

  it("changes a user's role", async () => {
    const sam = await stack.createUser("sam");
    const page = await openAdmin();
    await userRow(page, "sam").getByLabel("Role of sam").selectOption("admin");
    await expect.poll(async () => (await stack.request("GET", "/api/users", { token: sam.token })).status).toBe(200);
    await userRow(page, "sam").getByLabel("Role of sam").selectOption("user");
    await expect.poll(async () => (await stack.request("GET", "/api/users", { token: sam.token })).status).toBe(403);
  });

  it("gives a user a new token, shown once after a confirmation: the old token is refused, the new one works", async () => {
    const tess = await stack.createUser("tess");
    const page = await openAdmin();
    const row = userRow(page, "tess");
    await row.getByRole("button", { name: "New token for tess" }).click();
    // Nothing changes until the replacement is confirmed.
    await row.getByRole("button", { name: "Keep" }).click();
    expect(await meStatus(tess.token)).toBe(200);

    await row.getByRole("button", { name: "New token for tess" }).click();
    await row.getByRole("button", { name: "Replace tess's token" }).click();
    const notice = page.getByRole("region", { name: "New token for tess" });
    await notice.getByRole("button", { name: "Copy token" }).waitFor();
    const token = (await notice.locator("code").textContent()) ?? "";
    expect(token).toMatch(/^aq_[A-Za-z0-9_-]{43}$/);
    expect(await meStatus(tess.token)).toBe(401);
    expect(await meStatus(token)).toBe(200);
    await saveScreenshot(page, "console-admin-users");

    await notice.getByRole("button", { name: "Done, hide the token" }).click();
    await notice.waitFor({ state: "detached" });
    expect(await page.content()).not.toContain(token);
  });

  it("says why the last enabled admin cannot disable themselves, and keeps them enabled", async () => {
    const page = await openAdmin();
    await userRow(page, "admin").getByRole("button", { name: "Disable admin" }).click();
    await page.getByRole("alert").filter({ hasText: "last enabled admin" }).waitFor();
    await userRow(page, "admin").getByText("enabled", { exact: true }).waitFor();
    expect(await meStatus(stack.api.adminToken)).toBe(200);
  });
});

describe("one's own token", () => {
  it("an admin who replaces their own token stays signed in with the new one", async () => {
    const uma = await stack.request("POST", "/api/users", { body: { name: "uma", role: "admin" } });
    expect(uma.status).toBe(201);
    const page = await openAdmin(uma.body.token);
    await userRow(page, "uma").getByRole("button", { name: "New token for uma" }).click();
    await userRow(page, "uma").getByRole("button", { name: "Replace uma's token" }).click();
    const notice = page.getByRole("region", { name: "New token for uma" });
    const token = (await notice.locator("code").textContent()) ?? "";
    expect(await meStatus(uma.body.token)).toBe(401);
    expect(await meStatus(token)).toBe(200);
    // Still signed in: the page goes on working with the new token.
    await page.getByRole("navigation", { name: "Main" }).getByRole("link", { name: "Workspaces" }).click();
    await page.getByRole("navigation", { name: "Main" }).getByRole("link", { name: "Admin" }).click();
    await userRow(page, "uma").getByText("(you)").waitFor();
    expect(await page.getByLabel("API token").count()).toBe(0);
  });
});
