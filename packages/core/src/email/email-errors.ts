import { AgentqError, ConflictError } from "../errors/agentq-error.ts";

/** The email is no longer a draft: its send has started (or it went out), so it cannot change, go or be sent again. */
export class EmailAlreadySentError extends ConflictError {
  constructor(emailId: string, status: string) {
    super(
      "email_already_sent",
      status === "sending"
        ? "this email's send has started and its outcome is not recorded (in progress, or in doubt if the sender stopped): it is never sent again; check the recipient's mailbox"
        : "this email has been sent: it cannot be changed, deleted or sent again; draft a new one",
      { email_id: emailId, status },
    );
  }
}

/** No SMTP server is configured (`SMTP_URL` unset). */
export class EmailNotConfiguredError extends AgentqError {
  constructor() {
    super("email_not_configured", "sending email is not configured on this server: an administrator sets SMTP_URL (and EMAIL_FROM)");
  }
}
