// The console's webhooks page in a real browser against a real API, worker, Postgres and Redis: a
// private URL refused with the guard's message, a webhook added with its secret shown once, a run's
// event delivered to a local receiver and listed with its status.
import { createServer } from "node:http";
import type { AddressInfo } from "node:net";
import { scenarioInput } from "@agentq/core/testing";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { saveScreenshot } from "./support/browser.ts";
import { useConsoleSession } from "./support/console-session.ts";
import type { TestStack } from "./support/test-stack.ts";

const session = useConsoleSession();
let stack: TestStack;
const received: string[] = [];
const receiver = createServer((request, response) => {
  request.resume();
  request.on("end", () => {
    received.push(String(request.headers["webhook-id"]));
    response.end();
  });
});

beforeAll(async () => {
  stack = session.stack;
  await new Promise<void>((resolve) => receiver.listen(0, "127.0.0.1", resolve));
});
afterAll(() => {
  receiver.close();
});

describe("the webhooks page", () => {
  it("adds a webhook, shows its secret once, and lists a run's delivery as succeeded", async () => {
    const url = `http://127.0.0.1:${(receiver.address() as AddressInfo).port}/events`;
    const page = await session.open();
    await page.getByRole("navigation", { name: "Main" }).getByRole("link", { name: "Webhooks" }).click();
    const form = page.getByRole("form", { name: "New webhook" });
    await form.getByLabel("URL").fill(url);
    await form.getByLabel("Description").fill("CI bot");
    await form.getByRole("button", { name: "Add webhook" }).click();
    await form.getByText("webhooks cannot be sent to").waitFor();
    expect((await stack.request("GET", "/api/webhooks")).body.webhooks).toEqual([]);

    await stack.request("PATCH", "/api/settings", { body: { web_fetch_allow: ["127.0.0.1"] } });
    await form.getByRole("button", { name: "Add webhook" }).click();
    const notice = page.getByRole("region", { name: `Webhook to ${url} added` });
    const secret = (await notice.locator("code").textContent()) ?? "";
    expect(secret).toMatch(/^whsec_/);
    await saveScreenshot(page, "webhooks-secret");
    await notice.getByRole("button", { name: "Done, hide the signing secret" }).click();
    await page.getByText(secret).waitFor({ state: "detached" });

    const [webhook] = (await stack.request("GET", "/api/webhooks")).body.webhooks;
    expect(webhook).toMatchObject({ url, description: "CI bot", events: ["approval.required", "run.completed", "run.failed"] });

    const chatId = await stack.createChat();
    const runId = await stack.run(chatId, { input: scenarioInput([{ text: "hello" }]) });
    await stack.waitForRun(runId);
    const list = page.getByRole("list", { name: "Your webhooks" });
    await list.getByRole("button", { name: `Deliveries to ${url}` }).click();
    const row = list.getByRole("row").filter({ hasText: "run.completed" });
    await row.getByText("succeeded").waitFor({ timeout: 15_000 });
    await row.getByText("HTTP 200").waitFor();
    expect(received).toHaveLength(1);
    await list.scrollIntoViewIfNeeded();
    await saveScreenshot(page, "webhooks-deliveries");

    await list.getByRole("button", { name: `Delete the webhook to ${url}` }).click();
    await page.getByText("No webhooks yet").waitFor();
  });
});
