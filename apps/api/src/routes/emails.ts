import { z } from "zod";
import {
  claimEmailForSending,
  createEmailDraft,
  deleteEmailDraft,
  deliverClaimedEmail,
  emailAddressList,
  emailBody,
  EmailNotConfiguredError,
  emailSubject,
  getOwnEmail,
  listOwnEmails,
  systemClock,
  toEmailView,
  updateEmailDraft,
} from "@agentq/core";
import { defineRoute } from "../http/api-route.ts";
import { emailListSchema, emailSchema, emailStatusSchema } from "../schemas/email-schemas.ts";

const addresses = emailAddressList.meta({ description: "email addresses: an array, or one address as a string" });

const createEmailBody = z
  .strictObject({
    to: addresses,
    cc: addresses.optional(),
    subject: emailSubject,
    body: emailBody,
  })
  .meta({ id: "CreateEmailRequest" });

const updateEmailBody = z
  .strictObject({
    to: addresses.optional(),
    cc: addresses.optional(),
    subject: emailSubject.optional(),
    body: emailBody.optional(),
  })
  .meta({ id: "UpdateEmailRequest" });

const EMAIL_ID = "the email's id";
const NOT_DRAFT = "`email_already_sent`: the email has been sent, or its send has started (its outcome may be unknown)";

/** Email drafts and sending (docs/api.md "Added: email"): the caller's own only. */
export const emailRoutes = [
  defineRoute({
    method: "post",
    path: "/api/emails",
    operationId: "createEmail",
    summary: "Draft an email",
    body: createEmailBody,
    responses: { 201: { description: "the draft", schema: emailSchema } },
    handler: async ({ dependencies, user, body }) => {
      const email = await createEmailDraft(dependencies.runs.email.store, user.id, { to: body.to, cc: body.cc ?? [], subject: body.subject, body: body.body });
      return { status: 201, body: toEmailView(email, systemClock()) };
    },
  }),
  defineRoute({
    method: "get",
    path: "/api/emails",
    operationId: "listEmails",
    summary: "The caller's emails, newest first (at most 200)",
    query: z.object({ status: emailStatusSchema.optional() }),
    responses: { 200: { description: "the emails", schema: emailListSchema } },
    handler: async ({ dependencies, user, query }) => {
      const emails = await listOwnEmails(dependencies.runs.email.store.sql, user.id, query.status === undefined ? {} : { status: query.status });
      const now = systemClock();
      return { status: 200, body: { emails: emails.map((email) => toEmailView(email, now)) } };
    },
  }),
  defineRoute({
    method: "get",
    path: "/api/emails/:id",
    operationId: "getEmail",
    summary: "An email",
    parameters: { id: EMAIL_ID },
    responses: { 200: { description: "the email", schema: emailSchema } },
    handler: async ({ dependencies, user, params }) => ({
      status: 200,
      body: toEmailView(await getOwnEmail(dependencies.runs.email.store.sql, user.id, params.id), systemClock()),
    }),
  }),
  defineRoute({
    method: "patch",
    path: "/api/emails/:id",
    operationId: "updateEmail",
    summary: "Change a draft (only the fields given)",
    parameters: { id: EMAIL_ID },
    body: updateEmailBody,
    responses: { 200: { description: "the draft", schema: emailSchema } },
    errors: { 409: NOT_DRAFT },
    handler: async ({ dependencies, user, params, body }) => {
      const email = await updateEmailDraft(dependencies.runs.email.store, user.id, params.id, {
        ...(body.to === undefined ? {} : { to: body.to }),
        ...(body.cc === undefined ? {} : { cc: body.cc }),
        ...(body.subject === undefined ? {} : { subject: body.subject }),
        ...(body.body === undefined ? {} : { body: body.body }),
      });
      return { status: 200, body: toEmailView(email, systemClock()) };
    },
  }),
  defineRoute({
    method: "delete",
    path: "/api/emails/:id",
    operationId: "deleteEmail",
    summary: "Delete a draft",
    parameters: { id: EMAIL_ID },
    responses: { 204: { description: "deleted" } },
    errors: { 409: NOT_DRAFT },
    handler: async ({ dependencies, user, params }) => {
      await deleteEmailDraft(dependencies.runs.email.store.sql, user.id, params.id);
      return { status: 204 };
    },
  }),
  defineRoute({
    method: "post",
    path: "/api/emails/:id/send",
    operationId: "sendEmail",
    summary: "Send a draft",
    description:
      "The send is recorded as started (status `sending`, its `message_id` fixed) before the answer; this API process then " +
      "delivers it over SMTP and records `sent` or `failed`. A second send of the same email is `409 email_already_sent`: an email goes out at most once.",
    parameters: { id: EMAIL_ID },
    responses: { 202: { description: "the email, its send started", schema: emailSchema } },
    errors: { 409: `${NOT_DRAFT}; \`email_not_configured\`: the server has no SMTP_URL` },
    handler: async ({ dependencies, user, params }) => {
      const { email, logger } = { email: dependencies.runs.email, logger: dependencies.logger };
      if (email.sending === null) {
        // Someone else's email stays a 404 even here.
        await getOwnEmail(email.store.sql, user.id, params.id);
        throw new EmailNotConfiguredError();
      }
      const sendDependencies = { ...email.store, ...email.sending };
      const claimed = await claimEmailForSending(sendDependencies, user.id, params.id);
      // Delivered after the answer, in this process: the claim is committed, so a crash from here on
      // leaves the email `sending` (in doubt), never sent twice. A graceful shutdown waits for it.
      dependencies.background
        .track(deliverClaimedEmail(sendDependencies, claimed))
        .then((outcome) => logger.info({ email_id: claimed.id, outcome: outcome.kind }, "email send ended"))
        .catch((error: unknown) => logger.error({ err: error, email_id: claimed.id }, "email send could not record its outcome; it stays in doubt"));
      return { status: 202, body: toEmailView(claimed, systemClock()) };
    },
  }),
];
