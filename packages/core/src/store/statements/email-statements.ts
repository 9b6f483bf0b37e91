import { z } from "zod";
import { queryParsed, type SqlRunner } from "../sql-pool.ts";

// Emails (email/email-store.ts, email/send-email.ts): the API and the worker's tools both use these,
// in plain SQL so the worker never loads Prisma for them. Every statement is scoped to the owner.

export const EMAIL_STATUSES = ["draft", "sending", "sent", "failed"] as const;
export type EmailStatusName = (typeof EMAIL_STATUSES)[number];

export const emailRow = z.object({
  id: z.string(),
  userId: z.string(),
  to: z.array(z.string()),
  cc: z.array(z.string()),
  subject: z.string(),
  body: z.string(),
  status: z.enum(EMAIL_STATUSES),
  messageId: z.string().nullable(),
  error: z.string().nullable(),
  sendStartedAt: z.date().nullable(),
  sentAt: z.date().nullable(),
  createdAt: z.date(),
  updatedAt: z.date(),
});
export type EmailRecord = z.output<typeof emailRow>;

const EMAIL_COLUMNS = `id, user_id AS "userId", to_addresses AS "to", cc_addresses AS "cc", subject, body, status::text AS status,
  message_id AS "messageId", error, send_started_at AS "sendStartedAt", sent_at AS "sentAt", created_at AS "createdAt", updated_at AS "updatedAt"`;

/** Statuses in which nothing has gone out: the email may still change, go, or be sent. */
const UNSENT = `status IN ('draft', 'failed')`;

export async function insertEmail(
  runner: SqlRunner,
  input: { id: string; userId: string; to: string[]; cc: string[]; subject: string; body: string; now: Date },
): Promise<EmailRecord> {
  const [row] = await queryParsed(
    runner,
    `INSERT INTO emails (id, user_id, to_addresses, cc_addresses, subject, body, created_at, updated_at)
     VALUES ($1, $2, $3, $4, $5, $6, $7, $7) RETURNING ${EMAIL_COLUMNS}`,
    [input.id, input.userId, input.to, input.cc, input.subject, input.body, input.now],
    emailRow,
  );
  return row!;
}

export async function selectOwnEmail(runner: SqlRunner, input: { userId: string; emailId: string }): Promise<EmailRecord | undefined> {
  const [row] = await queryParsed(runner, `SELECT ${EMAIL_COLUMNS} FROM emails WHERE id = $1 AND user_id = $2`, [input.emailId, input.userId], emailRow);
  return row;
}

/** The user's emails, newest first, optionally of one status. */
export async function selectOwnEmails(runner: SqlRunner, input: { userId: string; status?: EmailStatusName; limit: number }): Promise<EmailRecord[]> {
  return queryParsed(
    runner,
    `SELECT ${EMAIL_COLUMNS} FROM emails WHERE user_id = $1 AND ($2::text IS NULL OR status::text = $2)
     ORDER BY created_at DESC, id DESC LIMIT $3`,
    [input.userId, input.status ?? null, input.limit],
    emailRow,
  );
}

/** Changes an unsent email's fields (null: unchanged); undefined when it is not the user's or no longer unsent. */
export async function updateUnsentEmail(
  runner: SqlRunner,
  input: { userId: string; emailId: string; to: string[] | null; cc: string[] | null; subject: string | null; body: string | null; now: Date },
): Promise<EmailRecord | undefined> {
  const [row] = await queryParsed(
    runner,
    `UPDATE emails SET to_addresses = COALESCE($3, to_addresses), cc_addresses = COALESCE($4, cc_addresses),
       subject = COALESCE($5, subject), body = COALESCE($6, body), updated_at = $7
     WHERE id = $1 AND user_id = $2 AND ${UNSENT} RETURNING ${EMAIL_COLUMNS}`,
    [input.emailId, input.userId, input.to, input.cc, input.subject, input.body, input.now],
    emailRow,
  );
  return row;
}

/** Deletes an unsent email; false when it is not the user's or no longer unsent. */
export async function deleteUnsentEmail(runner: SqlRunner, input: { userId: string; emailId: string }): Promise<boolean> {
  const rows = await queryParsed(
    runner,
    `DELETE FROM emails WHERE id = $1 AND user_id = $2 AND ${UNSENT} RETURNING id`,
    [input.emailId, input.userId],
    z.object({ id: z.string() }),
  );
  return rows.length === 1;
}

/**
 * Records a send as started, with its Message-ID, BEFORE the SMTP transaction: the one conditional
 * update that makes a send happen at most once. Two senders (a double click, two workers, a retry)
 * race on it and one wins; undefined for the others (and for an email that is not the user's).
 */
export async function claimEmailSend(
  runner: SqlRunner,
  input: { userId: string; emailId: string; messageId: string; now: Date },
): Promise<EmailRecord | undefined> {
  const [row] = await queryParsed(
    runner,
    `UPDATE emails SET status = 'sending', message_id = $3, send_started_at = $4, error = NULL, updated_at = $4
     WHERE id = $1 AND user_id = $2 AND ${UNSENT} RETURNING ${EMAIL_COLUMNS}`,
    [input.emailId, input.userId, input.messageId, input.now],
    emailRow,
  );
  return row;
}

/**
 * Records how a claimed send ended: `sent`, `failed` (the server refused it or could not be reached:
 * nothing went out, the email may be sent again), or still `sending` with an error (in doubt: the
 * transaction broke after the message may have been accepted). Only the claim with this Message-ID
 * may record it.
 */
export async function recordEmailSendOutcome(
  runner: SqlRunner,
  input: { emailId: string; messageId: string; status: "sent" | "failed" | "sending"; error: string | null; now: Date },
): Promise<EmailRecord | undefined> {
  const [row] = await queryParsed(
    runner,
    `UPDATE emails SET status = $3::"EmailStatus", error = $4, sent_at = CASE WHEN $3 = 'sent' THEN $5::timestamptz ELSE NULL END, updated_at = $5
     WHERE id = $1 AND message_id = $2 AND status = 'sending' RETURNING ${EMAIL_COLUMNS}`,
    [input.emailId, input.messageId, input.status, input.error, input.now],
    emailRow,
  );
  return row;
}
