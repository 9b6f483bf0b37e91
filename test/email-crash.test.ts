// A worker killed with SIGKILL in the middle of send_email: after the SMTP server has the mail and
// before the result is committed. Recovery never sends it again (docs/design.md invariant 3): the
// call is answered "outcome unknown", the email stays `sending` (in doubt), and a new send is refused.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { scenarioInput } from "@agentq/core/testing";
import { startTestStack, type TestStack } from "./support/test-stack.ts";
import { aliveWorkers, crash, expectWellFormedTranscript, holderOf, spawnReadyWorkers } from "./faults-helpers.ts";
import { startTestSmtpServer, type TestSmtpServer } from "./support/test-smtp-server.ts";

const FROM = "agent@agentq.test";

describe("a worker killed during send_email", () => {
  let smtp: TestSmtpServer;
  let stack: TestStack;

  beforeAll(async () => {
    smtp = await startTestSmtpServer();
    const email = { smtpUrl: smtp.url, from: FROM };
    stack = await startTestStack({ workers: 0, api: { email }, worker: { email } });
    await spawnReadyWorkers(stack, 2, { SMTP_URL: smtp.url, EMAIL_FROM: FROM });
  }, 240_000);
  afterAll(async () => {
    await stack?.close();
    await smtp?.close();
  });

  it("killed after the SMTP server received the mail, before the result committed: the mail is not sent again and the run says the outcome is unknown", async () => {
    const created = await stack.request("POST", "/api/emails", { body: { to: "lee@example.com", subject: "Crash", body: "exactly once" } });
    expect(created.status).toBe(201);
    const emailId: string = created.body.id;
    const chatId = await stack.createChat();

    let runId = "";
    let killed: number | undefined;
    // The worker dies while the server holds the message's data and has not answered yet: the
    // worker can have committed nothing after it, whatever the machine's load.
    smtp.beforeAccept = async () => {
      smtp.beforeAccept = undefined;
      const holder = await holderOf(stack, runId, aliveWorkers(stack));
      killed = holder.pid;
      await crash(holder);
    };
    runId = await stack.run(chatId, {
      input: scenarioInput([
        { tool: "send_email", args: { email_id: emailId } },
        // The model tries again after the unknown outcome: refused, nothing sent.
        { tool: "send_email", args: { email_id: emailId } },
        { text: "reported" },
      ]),
    });

    const run = await stack.waitForRun(runId, undefined, 120_000);
    expect(killed).toBeDefined();
    expect(run).toMatchObject({ status: "completed", output: "reported" });

    const results = (await stack.events(runId)).filter((event) => event.type === "tool.completed").map((event) => event.data);
    expect(results).toHaveLength(2);
    expect(results[0]).toMatchObject({ tool: "send_email", ok: false });
    expect(results[0]!.error).toMatch(/outcome unknown/);
    expect(results[1]).toMatchObject({ tool: "send_email", ok: false });
    expect(results[1]!.error).toMatch(/outcome is not recorded/);
    await expectWellFormedTranscript(stack, chatId);

    // One mail at the server: received once, never resent.
    expect(smtp.received.filter((mail) => mail.parsed.subject === "Crash")).toHaveLength(1);
    // The user sees the send in doubt: still `sending` with its Message-ID; a REST send is refused too.
    const email = (await stack.request("GET", `/api/emails/${emailId}`)).body;
    expect(email).toMatchObject({ status: "sending", sent_at: null });
    expect(email.message_id).toBe(smtp.received.find((mail) => mail.parsed.subject === "Crash")!.parsed.messageId);
    const again = await stack.request("POST", `/api/emails/${emailId}/send`);
    expect(again.status).toBe(409);
    expect(again.body.error.code).toBe("email_already_sent");
    expect(smtp.received.filter((mail) => mail.parsed.subject === "Crash")).toHaveLength(1);
  }, 240_000);
});
