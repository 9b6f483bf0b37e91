import type { Clock } from "../clock.ts";
import { NotFoundError } from "../errors/agentq-error.ts";
import type { GenerateId } from "../ids.ts";
import type { SqlRunner } from "../store/sql-pool.ts";
import {
  deleteUnsentEmail,
  type EmailRecord,
  type EmailStatusName,
  insertEmail,
  selectOwnEmail,
  selectOwnEmails,
  updateUnsentEmail,
} from "../store/statements/email-statements.ts";
import { EmailAlreadySentError } from "./email-errors.ts";

/** What the email functions need: the pg pool (the API's under Prisma, or the worker's), time and ids. */
export interface EmailStoreDependencies {
  sql: SqlRunner;
  clock: Clock;
  generateId: GenerateId;
}

/** Most emails one list returns (newest first). */
export const EMAIL_LIST_LIMIT = 200;

export interface EmailDraftInput {
  to: string[];
  cc: string[];
  subject: string;
  body: string;
}

export async function createEmailDraft(dependencies: EmailStoreDependencies, userId: string, input: EmailDraftInput): Promise<EmailRecord> {
  return insertEmail(dependencies.sql, { id: dependencies.generateId("email"), userId, ...input, now: dependencies.clock() });
}

/** The user's email; someone else's is not found (invariant 7). */
export async function getOwnEmail(sql: SqlRunner, userId: string, emailId: string): Promise<EmailRecord> {
  const email = await selectOwnEmail(sql, { userId, emailId });
  if (!email) throw new NotFoundError("email", { email_id: emailId });
  return email;
}

export async function listOwnEmails(sql: SqlRunner, userId: string, filter: { status?: EmailStatusName }): Promise<EmailRecord[]> {
  return selectOwnEmails(sql, { userId, limit: EMAIL_LIST_LIMIT, ...(filter.status === undefined ? {} : { status: filter.status }) });
}

/** Changes the fields given of a draft (or a failed send: nothing of it went out). */
export async function updateEmailDraft(
  dependencies: Pick<EmailStoreDependencies, "sql" | "clock">,
  userId: string,
  emailId: string,
  patch: Partial<EmailDraftInput>,
): Promise<EmailRecord> {
  const updated = await updateUnsentEmail(dependencies.sql, {
    userId,
    emailId,
    to: patch.to ?? null,
    cc: patch.cc ?? null,
    subject: patch.subject ?? null,
    body: patch.body ?? null,
    now: dependencies.clock(),
  });
  if (updated) return updated;
  throw refusal(await getOwnEmail(dependencies.sql, userId, emailId));
}

export async function deleteEmailDraft(sql: SqlRunner, userId: string, emailId: string): Promise<void> {
  if (await deleteUnsentEmail(sql, { userId, emailId })) return;
  throw refusal(await getOwnEmail(sql, userId, emailId));
}

/** Why a conditional change of an email that exists did not apply: it is no longer unsent. */
export function refusal(email: EmailRecord): EmailAlreadySentError {
  return new EmailAlreadySentError(email.id, email.status);
}
