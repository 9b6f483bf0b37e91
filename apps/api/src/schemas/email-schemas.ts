import { z } from "zod";
import { EMAIL_STATUSES } from "@agentq/core";
import { timestamp } from "./common-schemas.ts";

export const emailStatusSchema = z.enum(EMAIL_STATUSES).meta({
  id: "EmailStatus",
  description:
    "`sending`: the send was recorded as started (its `message_id` fixed) and its outcome is not recorded yet; when `error` says " +
    "`outcome unknown`, the sender stopped or the transaction broke mid-flight: the mail may have been delivered and is never sent again. " +
    "`failed`: nothing went out (the server refused it or could not be reached); it may be edited and sent again.",
});

export const emailSchema = z
  .object({
    id: z.string(),
    to: z.array(z.string()),
    cc: z.array(z.string()),
    subject: z.string(),
    body: z.string(),
    status: emailStatusSchema,
    sent_at: timestamp().nullable(),
    message_id: z.string().nullable().meta({ description: "the Message-ID header, fixed when the send starts" }),
    error: z.string().nullable(),
    created_at: timestamp(),
    updated_at: timestamp(),
  })
  .meta({ id: "Email" });

export const emailListSchema = z.object({ emails: z.array(emailSchema) }).meta({ id: "EmailList" });
