// The Admin page's MCP servers in a real browser against a real API and worker: adding a stdio server
// (the SDK fixture), seeing it connect and its tools, and removing it.
import { fileURLToPath } from "node:url";
import { describe, expect, it } from "vitest";
import { saveScreenshot } from "./support/browser.ts";
import { useConsoleSession } from "./support/console-session.ts";

const FIXTURE = fileURLToPath(new URL("./fixtures/mcp-fixture-server.mjs", import.meta.url));
const session = useConsoleSession();

describe("the Admin page's MCP servers", () => {
  it("adds a stdio server, shows it connected with its tools, never shows its environment again, and removes it", async () => {
    const page = await session.open();
    await page.getByRole("navigation", { name: "Main" }).getByRole("link", { name: "Admin" }).click();
    const form = page.getByRole("form", { name: "Add an MCP server" });
    await form.getByLabel("Server name").fill("fixture");
    await form.getByLabel("Command").fill(process.execPath);
    await form.getByLabel("Arguments").fill(FIXTURE);
    await form.getByLabel("Environment").fill("FIXTURE_TOKEN=console-secret-5521");
    await form.getByRole("button", { name: "Add server" }).click();

    const row = page.getByRole("table", { name: "MCP servers" }).locator('tr[data-mcp-server="fixture"]');
    await row.getByText("connected", { exact: true }).waitFor({ timeout: 30_000 });
    await row.getByRole("button", { name: "Tools of fixture" }).click();
    await page.getByRole("list", { name: "Tools of fixture" }).getByText("mcp__fixture__echo").waitFor();
    expect(await page.content()).not.toContain("console-secret-5521");
    await saveScreenshot(page, "admin-mcp-servers");

    await row.getByRole("button", { name: "Remove fixture", exact: true }).click();
    await row.getByRole("button", { name: "Remove fixture now" }).click();
    await page.getByText("No MCP servers").waitFor();
    expect((await session.stack.request("GET", "/api/mcp/servers")).body.servers).toEqual([]);
  });

  it("says why a registration is refused", async () => {
    const page = await session.open();
    await page.getByRole("navigation", { name: "Main" }).getByRole("link", { name: "Admin" }).click();
    const form = page.getByRole("form", { name: "Add an MCP server" });
    await form.getByLabel("Server name").fill("Bad_Name");
    await form.getByLabel("Command").fill("/usr/bin/true");
    await form.getByRole("button", { name: "Add server" }).click();
    await form.getByRole("alert").getByText(/name/i).waitFor();
  });
});
