import { randomBytes } from "node:crypto";
import type { Clock } from "../clock.ts";
import type { SqlRunner } from "../store/sql-pool.ts";
import { claimEmailSend, type EmailRecord, recordEmailSendOutcome } from "../store/statements/email-statements.ts";
import { getOwnEmail, refusal } from "./email-store.ts";
import type { EmailTransport } from "./smtp-email-transport.ts";

export interface EmailSendDependencies {
  sql: SqlRunner;
  clock: Clock;
  transport: EmailTransport;
  /** The From address (EMAIL_FROM). */
  from: string;
}

export type EmailSendOutcome =
  | { kind: "sent"; email: EmailRecord }
  /** The server refused it or could not be reached: nothing went out; the email may be sent again. */
  | { kind: "failed"; email: EmailRecord; reason: string }
  /** The transaction broke while the message was in flight: it may have been delivered. Never resent. */
  | { kind: "in_doubt"; email: EmailRecord; reason: string };

/** A Message-ID of our own, fixed before the SMTP transaction, on the From address's domain. */
export function newMessageId(emailId: string, from: string): string {
  const domain = from.includes("@") ? from.slice(from.lastIndexOf("@") + 1) : "localhost";
  return `<${emailId}.${randomBytes(8).toString("hex")}@${domain}>`;
}

/**
 * Step 1 of a send: records it as started, its Message-ID fixed, in Postgres (one conditional update,
 * committed before any SMTP traffic). Whoever loses the race (a double click, a retry, a second
 * worker) gets `email_already_sent`; someone else's email is not found.
 */
export async function claimEmailForSending(
  dependencies: Pick<EmailSendDependencies, "sql" | "clock" | "from">,
  userId: string,
  emailId: string,
): Promise<EmailRecord> {
  const claimed = await claimEmailSend(dependencies.sql, { userId, emailId, messageId: newMessageId(emailId, dependencies.from), now: dependencies.clock() });
  if (claimed) return claimed;
  throw refusal(await getOwnEmail(dependencies.sql, userId, emailId));
}

/**
 * Step 2: the SMTP transaction of a claimed email, then its outcome recorded. A process that dies in
 * between leaves the email `sending`: in doubt, which nothing resolves by sending again.
 */
export async function deliverClaimedEmail(dependencies: EmailSendDependencies, claimed: EmailRecord): Promise<EmailSendOutcome> {
  const messageId = claimed.messageId;
  if (claimed.status !== "sending" || messageId === null) throw new Error(`email ${claimed.id} was not claimed for sending`);
  const delivery = await dependencies.transport.deliver({
    from: dependencies.from,
    to: claimed.to,
    cc: claimed.cc,
    subject: claimed.subject,
    text: claimed.body,
    messageId,
  });
  const now = dependencies.clock();
  if (delivery.ok) {
    const email = await recordEmailSendOutcome(dependencies.sql, { emailId: claimed.id, messageId, status: "sent", error: null, now });
    return { kind: "sent", email: email ?? claimed };
  }
  const { failure } = delivery;
  if (failure.kind === "not_sent") {
    const error = `not sent: ${failure.reason}`;
    const email = await recordEmailSendOutcome(dependencies.sql, { emailId: claimed.id, messageId, status: "failed", error, now });
    return { kind: "failed", email: email ?? claimed, reason: failure.reason };
  }
  const error = `outcome unknown: the SMTP transaction broke while the message was in flight (${failure.reason}); it may have been delivered and is not sent again`;
  const email = await recordEmailSendOutcome(dependencies.sql, { emailId: claimed.id, messageId, status: "sending", error, now });
  return { kind: "in_doubt", email: email ?? claimed, reason: failure.reason };
}

/** Both steps, for a caller that waits for the outcome (the send_email tool). */
export async function sendEmail(dependencies: EmailSendDependencies, userId: string, emailId: string): Promise<EmailSendOutcome> {
  return deliverClaimedEmail(dependencies, await claimEmailForSending(dependencies, userId, emailId));
}
