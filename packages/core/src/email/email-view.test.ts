import { describe, expect, it } from "vitest";
import type { EmailRecord } from "../store/statements/email-statements.ts";
import { SEND_IN_DOUBT_AFTER_MS, toEmailView } from "./email-view.ts";

const startedAt = new Date("2026-12-14T10:00:00.000Z");
const sending: EmailRecord = {
  id: "email_1",
  userId: "user_1",
  to: ["a@example.com"],
  cc: [],
  subject: "s",
  body: "b",
  status: "sending",
  messageId: "<email_1.x@example.com>",
  error: null,
  sendStartedAt: startedAt,
  sentAt: null,
  createdAt: startedAt,
  updatedAt: startedAt,
};

describe("toEmailView", () => {
  it("a send still in progress has no error; past the deadline its outcome is reported unknown, naming the Message-ID", () => {
    expect(toEmailView(sending, new Date(startedAt.getTime() + 1000)).error).toBeNull();
    const abandoned = toEmailView(sending, new Date(startedAt.getTime() + SEND_IN_DOUBT_AFTER_MS + 1));
    expect(abandoned.status).toBe("sending");
    expect(abandoned.error).toMatch(/^outcome unknown: .*<email_1\.x@example\.com>.*never sent again/);
  });

  it("an error the sender recorded is kept as it is", () => {
    expect(
      toEmailView({ ...sending, status: "failed", error: "not sent: 550 no such user" }, new Date(startedAt.getTime() + SEND_IN_DOUBT_AFTER_MS * 2)).error,
    ).toBe("not sent: 550 no such user");
  });
});
