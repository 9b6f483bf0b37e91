// Email (docs/api.md "Added: email"): drafts over REST, per user; sending through a real SMTP server
// started by the test (each mail parsed back and counted there); the send_email tool under the policy
// (a tainted run pauses before it sends); an email goes out at most once.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { scenarioInput } from "@agentq/core/testing";
import { startTestStack, type TestStack } from "./support/test-stack.ts";
import { requestJson, startTestApi, type TestApi } from "./support/test-api.ts";
import { decide, eventually, injectedChat, readThen, waitForFinished, waitForParked } from "./support/approval-test-helpers.ts";
import { startTestSmtpServer, type TestSmtpServer } from "./support/test-smtp-server.ts";

const FROM = "agent@agentq.test";

describe("email", () => {
  let smtp: TestSmtpServer;
  let stack: TestStack;

  beforeAll(async () => {
    smtp = await startTestSmtpServer();
    const email = { smtpUrl: smtp.url, from: FROM };
    stack = await startTestStack({ api: { email }, worker: { email } });
  });
  afterAll(async () => {
    await stack?.close();
    await smtp?.close();
  });

  const draft = async (body: Record<string, unknown>, token?: string) => {
    const result = await stack.request("POST", "/api/emails", { token, body });
    expect(result.status).toBe(201);
    return result.body;
  };
  const mailsWithSubject = (subject: string) => smtp.received.filter((mail) => mail.parsed.subject === subject);

  it("drafts: create (one address as a string), list by status, read, change only the fields named, delete", async () => {
    const created = await draft({ to: "ann@example.com", cc: ["bob@example.com", "cy@example.com"], subject: "Plan", body: "Hello Ann" });
    expect(created).toMatchObject({
      to: ["ann@example.com"],
      cc: ["bob@example.com", "cy@example.com"],
      subject: "Plan",
      body: "Hello Ann",
      status: "draft",
      sent_at: null,
      message_id: null,
      error: null,
    });
    expect(created.id).toMatch(/^email_/);

    const patched = await stack.request("PATCH", `/api/emails/${created.id}`, { body: { subject: "Plan v2" } });
    expect(patched.status).toBe(200);
    expect(patched.body).toMatchObject({ subject: "Plan v2", body: "Hello Ann", to: ["ann@example.com"], cc: ["bob@example.com", "cy@example.com"] });
    expect((await stack.request("GET", `/api/emails/${created.id}`)).body).toMatchObject({ subject: "Plan v2", status: "draft" });

    const drafts = await stack.request("GET", "/api/emails?status=draft");
    expect(drafts.status).toBe(200);
    expect(drafts.body.emails.map((email: any) => email.id)).toContain(created.id);
    expect((await stack.request("GET", "/api/emails?status=sent")).body.emails.map((email: any) => email.id)).not.toContain(created.id);

    expect((await stack.request("DELETE", `/api/emails/${created.id}`)).status).toBe(204);
    expect((await stack.request("GET", `/api/emails/${created.id}`)).status).toBe(404);
    expect((await stack.request("DELETE", `/api/emails/${created.id}`)).status).toBe(404);
  });

  it("bad input is 400 invalid_request naming the field", async () => {
    const cases: [Record<string, unknown>, string][] = [
      [{ to: "not an address", subject: "s", body: "b" }, "to"],
      [{ to: ["a@example.com", "nope"], subject: "s", body: "b" }, "to"],
      [{ to: "a@example.com", subject: "two\nlines", body: "b" }, "subject"],
      [{ to: "a@example.com", subject: "s" }, "body"],
      [{ to: "a@example.com", subject: "s", body: "b", bcc: "x@example.com" }, "bcc"],
    ];
    for (const [body, field] of cases) {
      const result = await stack.request("POST", "/api/emails", { body });
      expect(result.status, JSON.stringify(body)).toBe(400);
      expect(result.body.error.code).toBe("invalid_request");
      expect(JSON.stringify(result.body.error)).toContain(field);
    }
    expect((await stack.request("GET", "/api/emails?status=archived")).status).toBe(400);
    const created = await draft({ to: "a@example.com", subject: "s", body: "b" });
    const badPatch = await stack.request("PATCH", `/api/emails/${created.id}`, { body: { cc: ["bad"] } });
    expect(badPatch.status).toBe(400);
    expect(JSON.stringify(badPatch.body.error)).toContain("cc");
  });

  it("someone else's email is 404 on every route, and never in their list", async () => {
    const other = await stack.createUser(`mail-other-${Date.now()}`);
    const mine = await draft({ to: "a@example.com", subject: "private", body: "mine" });
    for (const [method, path, body] of [
      ["GET", `/api/emails/${mine.id}`, undefined],
      ["PATCH", `/api/emails/${mine.id}`, { subject: "theirs" }],
      ["DELETE", `/api/emails/${mine.id}`, undefined],
      ["POST", `/api/emails/${mine.id}/send`, undefined],
    ] as const) {
      const result = await stack.request(method, path, { token: other.token, ...(body ? { body } : {}) });
      expect(result.status, `${method} ${path}`).toBe(404);
      expect(result.body.error.code).toBe("not_found");
    }
    expect((await stack.request("GET", "/api/emails", { token: other.token })).body.emails).toEqual([]);
    expect((await stack.request("GET", `/api/emails/${mine.id}`)).body).toMatchObject({ subject: "private", status: "draft" });
    expect(mailsWithSubject("private")).toHaveLength(0);
  });

  it("the REST send delivers one mail; a double send (concurrent, then again) sends nothing more, and a sent email cannot change", async () => {
    const created = await draft({ to: ["dee@example.com"], cc: "eve@example.com", subject: "Double", body: "Only once, please." });
    const [first, second] = await Promise.all([
      stack.request("POST", `/api/emails/${created.id}/send`),
      stack.request("POST", `/api/emails/${created.id}/send`),
    ]);
    const statuses = [first.status, second.status].sort();
    expect(statuses).toEqual([202, 409]);
    const accepted = first.status === 202 ? first : second;
    const refused = first.status === 202 ? second : first;
    expect(accepted.body).toMatchObject({ id: created.id, status: "sending" });
    expect(accepted.body.message_id).toMatch(/^<email_.+@agentq\.test>$/);
    expect(refused.body.error.code).toBe("email_already_sent");

    await eventually("the email recorded as sent", async () => (await stack.request("GET", `/api/emails/${created.id}`)).body.status === "sent");
    const sent = (await stack.request("GET", `/api/emails/${created.id}`)).body;
    expect(sent.sent_at).not.toBeNull();
    expect(sent.error).toBeNull();

    const again = await stack.request("POST", `/api/emails/${created.id}/send`);
    expect(again.status).toBe(409);
    expect(again.body.error.code).toBe("email_already_sent");
    for (const [method, body] of [
      ["PATCH", { subject: "changed" }],
      ["DELETE", undefined],
    ] as const) {
      const result = await stack.request(method, `/api/emails/${created.id}`, body ? { body } : {});
      expect(result.status).toBe(409);
      expect(result.body.error.code).toBe("email_already_sent");
    }

    const mails = mailsWithSubject("Double");
    expect(mails).toHaveLength(1);
    const [mail] = mails;
    expect(mail!.parsed.text?.trim()).toBe("Only once, please.");
    expect(mail!.parsed.messageId).toBe(sent.message_id);
    expect(mail!.parsed.from?.value[0]?.address).toBe(FROM);
    expect(mail!.recipients.sort()).toEqual(["dee@example.com", "eve@example.com"]);
    // The SMTP password appears in no answer.
    expect(JSON.stringify([accepted.body, sent, (await stack.request("GET", "/api/emails")).body])).not.toContain(smtp.password);
  });

  it("a send the server refuses is recorded failed with the reason; nothing went out, so it can be fixed and sent again", async () => {
    const created = await draft({ to: "nobody@refused.example", subject: "Refused first", body: "second try works" });
    expect((await stack.request("POST", `/api/emails/${created.id}/send`)).status).toBe(202);
    await eventually("the send recorded as failed", async () => (await stack.request("GET", `/api/emails/${created.id}`)).body.status === "failed");
    const failed = (await stack.request("GET", `/api/emails/${created.id}`)).body;
    expect(failed.error).toMatch(/^not sent: .*no such mailbox/);
    expect(failed.sent_at).toBeNull();
    expect(mailsWithSubject("Refused first")).toHaveLength(0);

    expect((await stack.request("PATCH", `/api/emails/${created.id}`, { body: { to: "real@example.com" } })).status).toBe(200);
    expect((await stack.request("POST", `/api/emails/${created.id}/send`)).status).toBe(202);
    await eventually("the second send recorded as sent", async () => (await stack.request("GET", `/api/emails/${created.id}`)).body.status === "sent");
    expect((await stack.request("GET", `/api/emails/${created.id}`)).body.error).toBeNull();
    expect(mailsWithSubject("Refused first")).toHaveLength(1);
    expect(mailsWithSubject("Refused first")[0]!.recipients).toEqual(["real@example.com"]);
  });

  it("draft_email in a run creates a draft and names it as email_id", async () => {
    const chatId = await stack.createChat();
    const runId = await stack.run(chatId, {
      input: scenarioInput([
        { tool: "draft_email", args: { to: "fay@example.com", subject: "From the model", body: "Drafted by a run" } },
        { text: "drafted" },
      ]),
    });
    expect(await waitForFinished(stack, runId)).toMatchObject({ status: "completed", output: "drafted" });
    const completed = (await stack.events(runId)).find((event) => event.type === "tool.completed");
    expect(completed!.data).toMatchObject({ tool: "draft_email", ok: true });
    const emailId = /email_id: (email_\S+)/.exec(JSON.stringify(completed!.data))?.[1];
    expect(emailId).toBeDefined();
    expect((await stack.request("GET", `/api/emails/${emailId}`)).body).toMatchObject({ to: ["fay@example.com"], subject: "From the model", status: "draft" });
    expect(mailsWithSubject("From the model")).toHaveLength(0);
  });

  it("an untainted send_email sends one mail (parsed back: to, subject, body) and a second call sends nothing", async () => {
    const created = await draft({ to: "gus@example.com", subject: "Untainted", body: "Sent by the agent.\nSecond line." });
    const chatId = await stack.createChat();
    const runId = await stack.run(chatId, {
      input: scenarioInput([{ tool: "send_email", args: { email_id: created.id } }, { tool: "send_email", args: { email_id: created.id } }, { text: "sent" }]),
    });
    expect(await waitForFinished(stack, runId)).toMatchObject({ status: "completed", output: "sent" });
    const results = (await stack.events(runId)).filter((event) => event.type === "tool.completed").map((event) => event.data);
    expect(results[0]).toMatchObject({ tool: "send_email", ok: true });
    expect(results[1]).toMatchObject({ tool: "send_email", ok: false });
    expect(JSON.stringify(results[1])).toContain("cannot be changed, deleted or sent again");

    const mails = mailsWithSubject("Untainted");
    expect(mails).toHaveLength(1);
    expect(mails[0]!.parsed.to).toMatchObject({ value: [{ address: "gus@example.com" }] });
    expect(mails[0]!.parsed.text?.trim()).toBe("Sent by the agent.\nSecond line.");
    expect((await stack.request("GET", `/api/emails/${created.id}`)).body.status).toBe("sent");
  });

  it("after a read_file the send pauses: deny sends nothing, allow_task sends exactly one", async () => {
    const denied = await draft({ to: "hal@example.com", subject: "Denied", body: "must not go" });
    const allowed = await draft({ to: "ivy@example.com", subject: "Allowed", body: "may go" });

    const first = await injectedChat(stack);
    const deniedRun = await stack.run(first.chatId, { input: readThen({ tool: "send_email", args: { email_id: denied.id } }, { text: "gave up" }) });
    const parked = await waitForParked(stack, deniedRun);
    expect(parked.status).toBe("awaiting_approval");
    expect(parked.pending_approvals[0]).toMatchObject({ tool: "send_email" });
    expect(mailsWithSubject("Denied")).toHaveLength(0);
    expect((await decide(stack, parked.pending_approvals[0].id, "deny")).status).toBe(202);
    expect(await waitForFinished(stack, deniedRun)).toMatchObject({ status: "completed" });
    expect(mailsWithSubject("Denied")).toHaveLength(0);
    expect((await stack.request("GET", `/api/emails/${denied.id}`)).body.status).toBe("draft");

    const second = await injectedChat(stack);
    const allowedRun = await stack.run(second.chatId, { input: readThen({ tool: "send_email", args: { email_id: allowed.id } }, { text: "sent it" }) });
    const parkedAgain = await waitForParked(stack, allowedRun);
    expect(parkedAgain.status).toBe("awaiting_approval");
    expect(mailsWithSubject("Allowed")).toHaveLength(0);
    expect((await decide(stack, parkedAgain.pending_approvals[0].id, "allow_task")).status).toBe(202);
    expect(await waitForFinished(stack, allowedRun)).toMatchObject({ status: "completed", output: "sent it" });
    expect(mailsWithSubject("Allowed")).toHaveLength(1);
    expect((await stack.request("GET", `/api/emails/${allowed.id}`)).body.status).toBe("sent");
  });

  it("a paused send shows the mail and is bound to it: after an edit of the draft the allow is 409 approval_stale, a deny still goes", async () => {
    const created = await draft({ to: ["kim@example.com"], cc: ["lou@example.com"], subject: "Bound", body: "The version the person reads." });
    const { chatId } = await injectedChat(stack);
    const runId = await stack.run(chatId, { input: readThen({ tool: "send_email", args: { email_id: created.id } }, { text: "stopped" }) });
    const parked = await waitForParked(stack, runId);
    const shown = { to: ["kim@example.com"], cc: ["lou@example.com"], subject: "Bound", body_preview: "The version the person reads." };
    expect(parked.pending_approvals[0]).toMatchObject({ tool: "send_email", email: shown });
    const required = (await stack.events(runId)).find((event) => event.type === "approval.required");
    expect(required?.data.email).toEqual(shown);
    const stored = await stack.prisma.approval.findUniqueOrThrow({ where: { id: parked.pending_approvals[0].id } });
    expect(stored).toMatchObject({ targetEmailId: created.id, targetRevision: expect.stringMatching(/^[0-9a-f]{64}$/) });

    expect((await stack.request("PATCH", `/api/emails/${created.id}`, { body: { to: ["mallory@example.com"] } })).status).toBe(200);
    // What the card shows follows the draft; what was approved would not be what is sent: stale.
    expect((await stack.getRun(runId)).pending_approvals[0].email.to).toEqual(["mallory@example.com"]);
    const allow = await decide(stack, parked.pending_approvals[0].id, "allow_task");
    expect(allow.status).toBe(409);
    expect(allow.body.error).toMatchObject({ code: "approval_stale", details: { email_id: created.id } });
    expect((await decide(stack, parked.pending_approvals[0].id, "deny")).status).toBe(202);
    expect(await waitForFinished(stack, runId)).toMatchObject({ status: "completed" });
    expect(mailsWithSubject("Bound")).toHaveLength(0);
  });

  it("the worker re-checks the mail before it sends: an edit between the accepted allow and the resume sends nothing", async () => {
    const created = await draft({ to: ["nat@example.com"], subject: "Rechecked", body: "approved text" });
    const { chatId } = await injectedChat(stack);
    const runId = await stack.run(chatId, { input: readThen({ tool: "send_email", args: { email_id: created.id } }, { text: "over" }) });
    const parked = await waitForParked(stack, runId);
    // No worker takes the resumed run until the draft has changed behind the accepted decision.
    for (const worker of stack.workers) await worker.close();
    expect((await decide(stack, parked.pending_approvals[0].id, "allow_task")).status).toBe(202);
    expect((await stack.request("PATCH", `/api/emails/${created.id}`, { body: { body: "changed after the allow" } })).status).toBe(200);
    await stack.startWorker();
    expect(await waitForFinished(stack, runId)).toMatchObject({ status: "completed", output: "over" });
    const send = (await stack.events(runId)).find((event) => event.type === "tool.completed" && event.data.tool === "send_email");
    expect(send?.data).toMatchObject({ ok: false });
    expect(String(send?.data.error)).toMatch(/changed after the call was approved/);
    expect(mailsWithSubject("Rechecked")).toHaveLength(0);
    expect((await stack.request("GET", `/api/emails/${created.id}`)).body.status).toBe("draft");
  });

  it("list_emails and read_email taint: a send after them pauses for approval", async () => {
    const created = await draft({ to: "jo@example.com", subject: "After reading mail", body: "x" });
    const chatId = await stack.createChat();
    const runId = await stack.run(chatId, {
      input: scenarioInput([{ tool: "read_email", args: { email_id: created.id } }, { tool: "send_email", args: { email_id: created.id } }, { text: "ok" }]),
    });
    const parked = await waitForParked(stack, runId);
    expect(parked.status).toBe("awaiting_approval");
    expect(mailsWithSubject("After reading mail")).toHaveLength(0);
    expect((await stack.request("POST", `/api/runs/${runId}/cancel`)).status).toBe(202);
  });

  it("GET /api/tools lists the email tools with their effects", async () => {
    const tools = (await stack.request("GET", "/api/tools")).body.tools as any[];
    const byName = new Map(tools.map((tool) => [tool.name, tool]));
    for (const name of ["draft_email", "list_emails", "read_email", "send_email"]) expect(byName.has(name), name).toBe(true);
    expect(byName.get("send_email")).toMatchObject({ family: "personal", effects: ["network"] });
  });
});

describe("email: the API's shutdown", () => {
  it("waits for a REST send in flight: the mail arrives once and is recorded sent before Postgres closes", async () => {
    const smtp = await startTestSmtpServer();
    const email = { smtpUrl: smtp.url, from: FROM };
    const stack = await startTestStack({ workers: 0, api: { email } });
    try {
      // The SMTP server holds the message a second before it accepts it: the API is told to stop meanwhile.
      let arrived: () => void = () => undefined;
      const inSmtp = new Promise<void>((resolve) => {
        arrived = resolve;
      });
      smtp.beforeAccept = async () => {
        arrived();
        await new Promise((resolve) => setTimeout(resolve, 1000));
      };
      const created = await stack.request("POST", "/api/emails", { body: { to: ["fay@example.com"], subject: "Drained", body: "Sent during shutdown." } });
      expect((await stack.request("POST", `/api/emails/${created.body.id}/send`)).status).toBe(202);
      await inSmtp;
      await stack.api.server.close();
      expect(smtp.received.filter((mail) => mail.parsed.subject === "Drained")).toHaveLength(1);
      const row = await stack.prisma.email.findUniqueOrThrow({ where: { id: created.body.id } });
      expect(row.status).toBe("sent");
    } finally {
      await stack.close();
      await smtp.close();
    }
  });
});

describe("email without SMTP_URL", () => {
  let api: TestApi;
  beforeAll(async () => {
    api = await startTestApi({ config: { email: null } });
  });
  afterAll(async () => {
    await api?.close();
  });

  it("drafts work, the REST send is 409 email_not_configured and send_email is not offered", async () => {
    const call = (method: string, path: string, body?: unknown) =>
      requestJson(`${api.url}${path}`, { method, token: api.adminToken, ...(body === undefined ? {} : { body }) });
    const created = await call("POST", "/api/emails", { to: "kim@example.com", subject: "s", body: "b" });
    expect(created.status).toBe(201);
    const sent = await call("POST", `/api/emails/${created.body.id}/send`);
    expect(sent.status).toBe(409);
    expect(sent.body.error.code).toBe("email_not_configured");
    expect((await call("GET", `/api/emails/${created.body.id}`)).body.status).toBe("draft");
    const names = ((await call("GET", "/api/tools")).body.tools as any[]).map((tool) => tool.name);
    expect(names).toContain("draft_email");
    expect(names).not.toContain("send_email");
  });
});
