import type { Transporter } from "nodemailer";
import type { EmailConfig } from "./email-config.ts";

/** One message as it goes out: plain text, the Message-ID fixed by the claim. */
export interface OutgoingEmail {
  from: string;
  to: string[];
  cc: string[];
  subject: string;
  text: string;
  messageId: string;
}

/** How a failed SMTP transaction ended for the message. */
export type EmailDeliveryFailure = { kind: "not_sent"; reason: string } | { kind: "in_doubt"; reason: string };

/** What sends mail (SMTP here; tests may give another). `deliver` resolves once the server accepted the message. */
export interface EmailTransport {
  deliver(message: OutgoingEmail): Promise<{ ok: true } | { ok: false; failure: EmailDeliveryFailure }>;
  close(): void;
}

/**
 * Bounds of one SMTP transaction (nodemailer's defaults are minutes): a send that has not ended after
 * the sum of these has no live sender any more, so a row still `sending` by then is in doubt.
 */
const CONNECTION_TIMEOUT_MS = 15_000;
const GREETING_TIMEOUT_MS = 15_000;
const SOCKET_TIMEOUT_MS = 60_000;

/** Errors after which the server has certainly not accepted the message (it refused, or was never reached). */
const NOT_SENT_CODES = new Set(["EDNS", "ETLS", "EAUTH", "ENOAUTH", "EENVELOPE", "ECONFIG", "EREQUIRETLS", "EFILEACCESS", "EURLACCESS", "EMAXRECIPIENTS"]);

/**
 * Sorts a nodemailer error: a server reply (a 4xx/5xx `responseCode`, to any command including the
 * final dot), a connection that never opened, or a refusal before the message was handed over means
 * nothing was sent. Anything else (a socket that broke or timed out while the message was in flight)
 * may have been accepted: in doubt.
 */
export function classifyDeliveryError(error: unknown): EmailDeliveryFailure {
  const fields = (typeof error === "object" && error !== null ? error : {}) as { code?: unknown; responseCode?: unknown; command?: unknown; message?: unknown };
  const reason = typeof fields.message === "string" ? fields.message : String(error);
  if (typeof fields.responseCode === "number" && fields.responseCode >= 400) return { kind: "not_sent", reason };
  if (typeof fields.code === "string" && NOT_SENT_CODES.has(fields.code)) return { kind: "not_sent", reason };
  if (fields.command === "CONN") return { kind: "not_sent", reason };
  return { kind: "in_doubt", reason };
}

/**
 * An SMTP transport over nodemailer. The mail is built from text the model wrote: file and URL access
 * are disabled, so no attachment or alternative can make the worker read a file or fetch a URL.
 * nodemailer is loaded at the first delivery: most processes never send one, and its modules held
 * about 2 MB of heap in each (issue 11: what each process keeps alive costs every collection).
 */
export function createSmtpEmailTransport(config: EmailConfig): EmailTransport {
  let transporter: Promise<Transporter> | undefined;
  const connect = async (): Promise<Transporter> => {
    const { default: nodemailer } = await import("nodemailer");
    return nodemailer.createTransport({
      url: config.smtpUrl,
      disableFileAccess: true,
      disableUrlAccess: true,
      connectionTimeout: CONNECTION_TIMEOUT_MS,
      greetingTimeout: GREETING_TIMEOUT_MS,
      socketTimeout: SOCKET_TIMEOUT_MS,
      // The password is in the URL: never let nodemailer log the transaction.
      logger: false,
      debug: false,
    });
  };
  return {
    async deliver(message) {
      try {
        transporter ??= connect();
        await (await transporter).sendMail({
          from: message.from,
          to: message.to,
          cc: message.cc,
          subject: message.subject,
          text: message.text,
          messageId: message.messageId,
        });
        return { ok: true };
      } catch (error) {
        return { ok: false, failure: classifyDeliveryError(error) };
      }
    },
    close() {
      // Nothing to close before the first delivery; after it, the transport it made (once it is made).
      void transporter?.then(
        (made) => made.close(),
        () => undefined,
      );
    },
  };
}
