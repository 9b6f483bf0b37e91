// The README's quick start in a real browser: the built-in `agentq/demo` model (no model server) read
// from the console, with its approval decided there. `AGENTQ_SCREENSHOTS=1` saves the README's screenshots.
import { describe, expect, it } from "vitest";
import { saveScreenshot } from "./support/browser.ts";
import { useConsoleSession } from "./support/console-session.ts";

const session = useConsoleSession();

describe("the quick start with the demo model, in the console", () => {
  it.each([
    { width: 1280, height: 800, suffix: "" },
    { width: 390, height: 844, suffix: "-phone" },
  ])("shows a run's approval and its answer at $width px, with no model server", async ({ width, height, suffix }) => {
    const { stack } = session;
    const workspaceName = `team-plan${suffix}`;
    const workspaceId = (await stack.request("POST", "/api/workspaces", { body: { name: workspaceName } })).body.id;
    await stack.putFile(workspaceId, "plan.md", "# Our plan\nShip the console.\nThen the documents.\n");
    const page = await session.open(stack.api.adminToken, { width, height });

    await page.getByRole("button", { name: "New chat" }).first().click();
    const dialog = page.getByRole("dialog", { name: "New chat" });
    await dialog.getByLabel("Title").fill("Summarise the plan");
    await dialog.getByLabel("Workspace").selectOption({ label: workspaceName });
    await dialog.getByRole("button", { name: "Create chat" }).click();
    await page.getByLabel("Message").waitFor();

    // The deployment's default here is the fake provider; the person names the demo model.
    if (await page.getByRole("button", { name: "Options" }).isVisible()) await page.getByRole("button", { name: "Options" }).click();
    await page.getByLabel("Model").fill("agentq/demo");
    await page.getByLabel("Message").fill("Summarise the plan and keep a note of it.");
    await page.getByRole("button", { name: "Send" }).click();

    const card = page.getByRole("region", { name: "Approval: write_file" });
    await card.waitFor();
    await expect.poll(() => card.textContent()).toContain("plan.md");
    await saveScreenshot(page, `demo-approval${suffix}`);

    await card.getByRole("button", { name: "Allow for this run" }).click();
    await page.getByText("Status: completed").first().waitFor();
    const note = await stack.request("GET", `/api/workspaces/${workspaceId}/files/agentq-demo-notes.md`);
    expect(note.status).toBe(200);
    expect(note.body.content).toContain("plan.md");
    await saveScreenshot(page, `demo-completed${suffix}`);
  });
});
