// The console's Mail page in a real browser against a real API, worker and a local SMTP server:
// drafts are created, edited, deleted and sent; sent mail shows its status; a bad address is explained.
import type { Page } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { saveScreenshot } from "./support/browser.ts";
import { useConsoleSession } from "./support/console-session.ts";
import { waitUntil } from "./support/wait-until.ts";
import { injectedChat, readThen, waitForParked } from "./support/approval-test-helpers.ts";
import { startTestSmtpServer, type TestSmtpServer } from "./support/test-smtp-server.ts";

let smtp: TestSmtpServer | undefined;
const session = useConsoleSession(async () => {
  smtp = await startTestSmtpServer();
  const email = { smtpUrl: smtp.url, from: "console@agentq.test" };
  return { api: { email }, worker: { email } };
});

beforeAll(() => {
  expect(smtp).toBeDefined();
});
afterAll(async () => {
  await smtp?.close();
});

async function openMail(): Promise<Page> {
  const page = await session.open();
  await page.getByRole("navigation", { name: "Main" }).getByRole("link", { name: "Mail" }).click();
  await page.getByRole("heading", { name: "Mail" }).waitFor();
  return page;
}

async function writeDraft(page: Page, fields: { to: string; subject: string; body: string }): Promise<void> {
  const form = page.getByRole("form", { name: "New draft" });
  await form.getByLabel("To").fill(fields.to);
  await form.getByLabel("Subject").fill(fields.subject);
  await form.getByLabel("Body").fill(fields.body);
  await form.getByRole("button", { name: "Save draft" }).click();
}

describe("the Mail page", () => {
  it("creates, edits, deletes and sends drafts; the sent one shows as sent and reaches the SMTP server once", async () => {
    const page = await openMail();
    await writeDraft(page, { to: "ann@example.com, bob@example.com", subject: "Console hello", body: "Written in the browser." });
    const drafts = page.getByRole("list", { name: "Drafts" });
    await drafts.getByRole("listitem", { name: "Console hello" }).waitFor();
    // The form is empty again for the next draft.
    expect(await page.getByRole("form", { name: "New draft" }).getByLabel("Subject").inputValue()).toBe("");

    await drafts.getByRole("listitem", { name: "Console hello" }).getByRole("button", { name: "Edit" }).click();
    const edit = page.getByRole("form", { name: "Edit draft" });
    expect(await edit.getByLabel("To").inputValue()).toBe("ann@example.com, bob@example.com");
    await edit.getByLabel("Subject").fill("Console hello, edited");
    await edit.getByRole("button", { name: "Save changes" }).click();
    await drafts.getByRole("listitem", { name: "Console hello, edited" }).waitFor();

    await writeDraft(page, { to: "gone@example.com", subject: "Throwaway", body: "delete me" });
    await drafts.getByRole("listitem", { name: "Throwaway" }).getByRole("button", { name: "Delete" }).click();
    await drafts.getByRole("listitem", { name: "Throwaway" }).waitFor({ state: "detached" });

    await drafts.getByRole("listitem", { name: "Console hello, edited" }).getByRole("button", { name: "Send" }).click();
    const sent = page.getByRole("list", { name: "Sent mail" }).getByRole("listitem", { name: "Console hello, edited" });
    await sent.getByText("sent", { exact: true }).waitFor({ timeout: 20_000 });
    await sent.getByText(/Message-ID </).waitFor();
    await saveScreenshot(page, "console-mail");

    await waitUntil("the mail at the SMTP server", () => (smtp!.received.some((mail) => mail.parsed.subject === "Console hello, edited") ? true : undefined));
    const received = smtp!.received.filter((mail) => mail.parsed.subject === "Console hello, edited");
    expect(received).toHaveLength(1);
    expect(received[0]!.recipients.sort()).toEqual(["ann@example.com", "bob@example.com"]);
    expect(received[0]!.parsed.text?.trim()).toBe("Written in the browser.");
    expect(smtp!.received.some((mail) => mail.parsed.subject === "Throwaway")).toBe(false);
  });

  it("a paused send_email's card shows the mail it would send: recipients, subject and body", async () => {
    const { stack } = session;
    const draft = await stack.request("POST", "/api/emails", {
      body: { to: ["quinn@example.com"], cc: ["rae@example.com"], subject: "Quarterly <numbers>", body: "Hello Quinn,\n<b>not bold</b>, the figures follow." },
    });
    const { chatId } = await injectedChat(stack);
    const runId = await stack.run(chatId, { input: readThen({ tool: "send_email", args: { email_id: draft.body.id } }, { text: "done" }) });
    await waitForParked(stack, runId);
    const page = await session.open();
    await page.getByRole("navigation", { name: "Main" }).getByRole("link", { name: "Approvals" }).click();
    const mail = page.getByRole("region", { name: "Approval: send_email" }).getByRole("region", { name: "The email it would send" });
    await mail.waitFor();
    await expect.poll(() => mail.textContent()).toContain("quinn@example.com");
    const text = (await mail.textContent()) ?? "";
    expect(text).toContain("rae@example.com");
    expect(text).toContain("Quarterly <numbers>");
    // Shown as text: the body's markup is not rendered.
    expect(text).toContain("<b>not bold</b>, the figures follow.");
    expect(await mail.locator("b").count()).toBe(0);
    await saveScreenshot(page, "approval-send-email");
  });

  it("a bad address is explained and nothing is saved", async () => {
    const page = await openMail();
    await writeDraft(page, { to: "not-an-address", subject: "Bad", body: "x" });
    await page.getByRole("alert").filter({ hasText: /to/i }).first().waitFor();
    const emails = (await session.stack.request("GET", "/api/emails")).body.emails as { subject: string }[];
    expect(emails.some((email) => email.subject === "Bad")).toBe(false);
  });
});
