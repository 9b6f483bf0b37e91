import { canonicalDigest } from "../runs/guards/call-signature.ts";

/** What a person approves when a run sends an email: who gets it and what it says. */
export interface EmailContent {
  to: readonly string[];
  cc: readonly string[];
  subject: string;
  body: string;
}

/**
 * The revision a send_email approval binds (its target_revision): a hash of the recipients, subject
 * and body. A draft edited after the call paused has another revision, so the allow is stale.
 */
export function emailContentRevision(email: EmailContent): string {
  return canonicalDigest({ to: [...email.to], cc: [...email.cc], subject: email.subject, body: email.body });
}

/** Longest body shown on an approval (the whole body is what is bound). */
const BODY_PREVIEW_CHARS = 500;

/** The mail as an approval shows it: recipients, subject and the start of the body. */
export interface EmailApprovalPreview {
  to: string[];
  cc: string[];
  subject: string;
  body_preview: string;
}

export function emailApprovalPreview(email: EmailContent): EmailApprovalPreview {
  const body = email.body.length > BODY_PREVIEW_CHARS ? `${email.body.slice(0, BODY_PREVIEW_CHARS)}…` : email.body;
  return { to: [...email.to], cc: [...email.cc], subject: email.subject, body_preview: body };
}
