// The console's Documents page in a real browser against a real API: the list, a document rendered
// (raw HTML escaped), an edit and its conflict said in words, the history with a diff, and a download.
import { readFile } from "node:fs/promises";
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

async function createDocument(title: string, content: string): Promise<string> {
  const response = await stack.request("POST", "/api/documents", { body: { title, content } });
  expect(response.status).toBe(201);
  return response.body.id;
}

async function openDocuments(): Promise<Page> {
  const page = await session.open();
  await page.getByRole("navigation", { name: "Main" }).getByRole("link", { name: "Documents" }).click();
  return page;
}

describe("documents page", () => {
  it("lists documents and renders one as Markdown with raw HTML escaped", async () => {
    await createDocument("Garden plan", "# Beds\n\nPlant **tomatoes**.\n\n<script>window.pwned = true</script>");
    const page = await openDocuments();
    await page
      .getByRole("list", { name: "Documents" })
      .getByRole("link", { name: /Garden plan/ })
      .click();
    await page.getByRole("heading", { name: "Beds" }).waitFor();
    await page.getByText("<script>window.pwned = true</script>").waitFor();
    expect(await page.evaluate("window.pwned")).toBeUndefined();
    await saveScreenshot(page, "documents-read");
  });

  it("saves an edit, and says in words when someone else saved first", async () => {
    const documentId = await createDocument("Minutes", "first draft");
    const page = await openDocuments();
    await page
      .getByRole("list", { name: "Documents" })
      .getByRole("link", { name: /Minutes/ })
      .click();
    await page.getByRole("button", { name: "Edit" }).click();
    await page.getByLabel("Content (Markdown)").fill("second draft");
    await page.getByRole("button", { name: "Save" }).click();
    // A save goes back to reading once the list is fresh again: until then the editor (whose text
    // already reads "second draft") is still there, and would close under the next edit.
    await page.getByLabel("Content (Markdown)").waitFor({ state: "detached" });
    await page.getByText("second draft").waitFor();
    await page.getByText(/^Revision 2/).waitFor();

    await page.getByRole("button", { name: "Edit" }).click();
    await page.getByLabel("Content (Markdown)").fill("my third draft");
    // Someone saves in between.
    expect((await stack.request("PUT", `/api/documents/${documentId}`, { body: { content: "their draft", base_revision: 2 } })).status).toBe(200);
    await page.getByRole("button", { name: "Save" }).click();
    await page.getByText("Someone else changed this document").waitFor();
    await page.getByText("now at revision 3", { exact: false }).waitFor();
    // Nothing of theirs was overwritten, and the text typed is still there.
    expect((await stack.request("GET", `/api/documents/${documentId}`)).body.content).toBe("their draft");
    expect(await page.getByLabel("Content (Markdown)").inputValue()).toBe("my third draft");
  });

  it("shows the revision history with a diff between two revisions, and downloads an export", async () => {
    const documentId = await createDocument("Report", "line one\nline two\n");
    expect((await stack.request("PUT", `/api/documents/${documentId}`, { body: { content: "line one\nline 2\n", base_revision: 1 } })).status).toBe(200);
    const page = await openDocuments();
    await page
      .getByRole("list", { name: "Documents" })
      .getByRole("link", { name: /Report/ })
      .click();
    await page.getByRole("button", { name: "History" }).click();
    const diff = page.getByRole("region", { name: "Changes from revision 1 to revision 2" });
    await diff.getByText("- line two").waitFor();
    await diff.getByText("+ line 2").waitFor();
    await saveScreenshot(page, "documents-history");

    const [download] = await Promise.all([page.waitForEvent("download"), page.getByRole("button", { name: "Export Markdown" }).click()]);
    expect(download.suggestedFilename()).toBe("Report.md");
    expect(await readFile((await download.path())!, "utf8")).toBe("line one\nline 2\n");
    // The token never went into a URL.
    expect(download.url()).not.toContain(stack.api.adminToken);
  });
});
