import { type Clock, systemClock } from "../clock.ts";
import { type GenerateId, generateId as defaultGenerateId } from "../ids.ts";
import type { SqlRunner } from "../store/sql-pool.ts";
import type { EmailToolsOptions } from "../tools/personal/email/email-tools.ts";
import type { EmailConfig } from "./email-config.ts";
import { createSmtpEmailTransport } from "./smtp-email-transport.ts";

/** What the email tools and routes share in one process: the store, and the SMTP side when configured. */
export type EmailServices = EmailToolsOptions;

export function createEmailServices(input: { config: EmailConfig | null; sql: SqlRunner; clock?: Clock; generateId?: GenerateId }): EmailServices {
  return {
    store: { sql: input.sql, clock: input.clock ?? systemClock, generateId: input.generateId ?? defaultGenerateId },
    sending: input.config === null ? null : { transport: createSmtpEmailTransport(input.config), from: input.config.from },
  };
}
