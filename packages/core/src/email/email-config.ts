import { z } from "zod";

/**
 * Where mail goes out (docs/api.md "Added: email"). Null when `SMTP_URL` is unset: then `send_email`
 * is not offered and the REST send answers `409 email_not_configured`. The URL carries the SMTP
 * password: it is never logged or returned (only `describeSmtpServer` names the server).
 */
export interface EmailConfig {
  /** `smtp://user:password@host:port` (STARTTLS when offered) or `smtps://...` (TLS from the start). */
  smtpUrl: string;
  /** The From address of every mail. */
  from: string;
}

/** Default From when `EMAIL_FROM` is unset. */
export const DEFAULT_EMAIL_FROM = "agentq@localhost";

/** The variables of email, spread into each app's environment schema (the API lists tools, the worker sends). */
export const emailEnvironmentShape = {
  SMTP_URL: z
    .string()
    .refine(
      (value) => {
        try {
          return ["smtp:", "smtps:"].includes(new URL(value).protocol);
        } catch {
          return false;
        }
      },
      // The message must not echo the value: it holds a password.
      { message: "expected a URL starting with smtp:// or smtps://" },
    )
    .optional(),
  EMAIL_FROM: z.email("expected an email address").optional(),
};

export function emailConfigFromEnvironment(parsed: { SMTP_URL?: string | undefined; EMAIL_FROM?: string | undefined }): EmailConfig | null {
  if (parsed.SMTP_URL === undefined) return null;
  return { smtpUrl: parsed.SMTP_URL, from: parsed.EMAIL_FROM ?? DEFAULT_EMAIL_FROM };
}

/** `host:port` of the SMTP server, without credentials: what logs and messages may name. */
export function describeSmtpServer(config: EmailConfig): string {
  const url = new URL(config.smtpUrl);
  return `${url.protocol}//${url.host}`;
}
