import type { EmailRecord } from "../store/statements/email-statements.ts";

/**
 * How long a live send can last at most (the SMTP transport's timeouts, with margin): a row still
 * `sending` after this has lost its sender, and its outcome is unknown.
 */
export const SEND_IN_DOUBT_AFTER_MS = 5 * 60_000;

/** The wire shape of an email (API.md "Personal data": `Email`). */
export interface EmailView {
  id: string;
  to: string[];
  cc: string[];
  subject: string;
  body: string;
  status: EmailRecord["status"];
  sent_at: string | null;
  message_id: string | null;
  error: string | null;
  created_at: string;
  updated_at: string;
}

/** The message of a send whose sender stopped before recording its outcome. */
export function inDoubtMessage(email: EmailRecord): string {
  return `outcome unknown: the send started at ${email.sendStartedAt?.toISOString() ?? "an unknown time"} and its sender stopped before recording the result; it may have been delivered (Message-ID ${email.messageId ?? "unknown"}) and is never sent again`;
}

export function toEmailView(email: EmailRecord, now: Date): EmailView {
  const abandoned =
    email.status === "sending" &&
    email.error === null &&
    email.sendStartedAt !== null &&
    now.getTime() - email.sendStartedAt.getTime() > SEND_IN_DOUBT_AFTER_MS;
  return {
    id: email.id,
    to: email.to,
    cc: email.cc,
    subject: email.subject,
    body: email.body,
    status: email.status,
    sent_at: email.sentAt?.toISOString() ?? null,
    message_id: email.messageId,
    error: abandoned ? inDoubtMessage(email) : email.error,
    created_at: email.createdAt.toISOString(),
    updated_at: email.updatedAt.toISOString(),
  };
}
