import { z } from "zod";
import { AgentqError } from "../../../errors/agentq-error.ts";
import { emailAddressList, emailBody, emailSubject } from "../../../email/email-fields.ts";
import { createEmailDraft, type EmailStoreDependencies, getOwnEmail, listOwnEmails } from "../../../email/email-store.ts";
import { inDoubtMessage, toEmailView } from "../../../email/email-view.ts";
import { type EmailSendDependencies, sendEmail } from "../../../email/send-email.ts";
import { EMAIL_STATUSES, type EmailRecord } from "../../../store/statements/email-statements.ts";
import type { ToolDefinition, ToolResult } from "../../tool-definition.ts";

export interface EmailToolsOptions {
  store: EmailStoreDependencies;
  /** The SMTP side (SMTP_URL, EMAIL_FROM); null: `send_email` is not offered at all. */
  sending: Pick<EmailSendDependencies, "transport" | "from"> | null;
}

const FAMILY = "personal";
const FEATURE = "email";
const emailId = z.string().min(1).max(200).describe("The email_id that draft_email or list_emails gave.");

/** A failure the model can act on (not found, already sent) becomes a tool error; anything else propagates to the executor. */
async function asToolResult(action: () => Promise<ToolResult>): Promise<ToolResult> {
  try {
    return await action();
  } catch (error) {
    if (error instanceof AgentqError) return { ok: false, error: error.message, data: { code: error.code } };
    throw error;
  }
}

function summary(email: EmailRecord): string {
  return `${email.id}  ${email.status}  to ${email.to.join(", ") || "(nobody)"}  "${email.subject}"`;
}

/**
 * The email tools (docs/api.md "Added: email"), family `personal`, feature `email`: drafting is a
 * write; listing and reading taint (mail text is untrusted material); sending is a network effect,
 * so after taint it pauses for a human's approval. Each send happens at most once (email/send-email.ts).
 */
export function createEmailTools(options: EmailToolsOptions): ToolDefinition[] {
  const { store } = options;

  const draftEmail: ToolDefinition<{ to: string[]; subject: string; body: string; cc?: string[] | undefined }> = {
    name: "draft_email",
    family: FAMILY,
    feature: FEATURE,
    description: "Draft a plain-text email (it is not sent: send_email sends it). Returns its email_id.",
    parameters: z.object({
      to: emailAddressList.describe("Recipients: email addresses (an array, or one address)."),
      subject: emailSubject.describe("The subject, one line."),
      body: emailBody.describe("The plain-text body."),
      cc: emailAddressList.optional().describe("Copy recipients (optional)."),
    }),
    effects: ["write"],
    taints: false,
    requiresWorkspace: false,
    execute: (args, context) =>
      asToolResult(async () => {
        const email = await createEmailDraft(store, context.userId, { to: args.to, cc: args.cc ?? [], subject: args.subject, body: args.body });
        return {
          ok: true,
          output: `Drafted email_id: ${email.id} to ${email.to.join(", ")} ("${email.subject}"). It is not sent; send_email sends it.`,
          data: { email_id: email.id },
        };
      }),
  };

  const listEmails: ToolDefinition<{ status?: (typeof EMAIL_STATUSES)[number] | undefined }> = {
    name: "list_emails",
    family: FAMILY,
    feature: FEATURE,
    description: "List your emails (newest first): drafts, sent, failed, or sending. Read one with read_email.",
    parameters: z.object({ status: z.enum(EMAIL_STATUSES).optional().describe("Only emails with this status.") }),
    effects: ["read"],
    taints: true,
    requiresWorkspace: false,
    describeCall: (args) => (args.status === undefined ? "the list of emails" : `the list of ${args.status} emails`),
    execute: (args, context) =>
      asToolResult(async () => {
        const emails = await listOwnEmails(store.sql, context.userId, args.status === undefined ? {} : { status: args.status });
        if (emails.length === 0) return { ok: true, output: "No emails.", data: { email_ids: [] } };
        return { ok: true, output: `${emails.length} email(s):\n${emails.map(summary).join("\n")}`, data: { email_ids: emails.map((email) => email.id) } };
      }),
  };

  const readEmail: ToolDefinition<{ email_id: string }> = {
    name: "read_email",
    family: FAMILY,
    feature: FEATURE,
    description: "Read one of your emails: recipients, subject, body, status.",
    parameters: z.object({ email_id: emailId }),
    effects: ["read"],
    taints: true,
    requiresWorkspace: false,
    describeCall: (args) => `email ${args.email_id}`,
    execute: (args, context) =>
      asToolResult(async () => {
        const view = toEmailView(await getOwnEmail(store.sql, context.userId, args.email_id), store.clock());
        const header = [
          `email_id: ${view.id}`,
          `status: ${view.status}`,
          `to: ${view.to.join(", ")}`,
          ...(view.cc.length > 0 ? [`cc: ${view.cc.join(", ")}`] : []),
          `subject: ${view.subject}`,
          ...(view.sent_at ? [`sent_at: ${view.sent_at}`] : []),
          ...(view.error ? [`error: ${view.error}`] : []),
        ];
        return { ok: true, output: `${header.join("\n")}\n\n${view.body}`, data: { email_id: view.id, status: view.status } };
      }),
  };

  const tools = [draftEmail, listEmails, readEmail];
  const { sending } = options;
  if (sending === null) return tools;

  const sendEmailTool: ToolDefinition<{ email_id: string }> = {
    name: "send_email",
    family: FAMILY,
    feature: FEATURE,
    description:
      "Send a drafted email through the server's SMTP. An email is sent at most once: one already sent (or whose send's outcome is unknown) is never sent again.",
    parameters: z.object({ email_id: emailId }),
    effects: ["network"],
    taints: false,
    requiresWorkspace: false,
    targetEmail: (args) => args.email_id,
    execute: (args, context) =>
      asToolResult(async () => {
        const outcome = await sendEmail({ ...store, ...sending }, context.userId, args.email_id);
        switch (outcome.kind) {
          case "sent":
            return {
              ok: true,
              output: `Sent email_id: ${outcome.email.id} to ${[...outcome.email.to, ...outcome.email.cc].join(", ")} (Message-ID ${outcome.email.messageId}).`,
              data: { email_id: outcome.email.id, message_id: outcome.email.messageId },
            };
          case "failed":
            return {
              ok: false,
              error: `email ${outcome.email.id} was not sent: ${outcome.reason}. Nothing went out; fix the cause and send it again.`,
              data: { email_id: outcome.email.id },
            };
          case "in_doubt":
            return { ok: false, error: outcome.email.error ?? inDoubtMessage(outcome.email), data: { email_id: outcome.email.id } };
          default: {
            const unexpected: never = outcome;
            throw new Error(`unknown send outcome ${JSON.stringify(unexpected)}`);
          }
        }
      }),
  };
  return [...tools, sendEmailTool];
}
