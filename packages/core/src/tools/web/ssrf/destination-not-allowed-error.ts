import { AgentqError } from "../../../errors/agentq-error.ts";

type DestinationDetails = { url: string; hostname?: string; address?: string; reason: string };

/** Who refused, at the head of the message: the guard serves fetch_page, MCP servers and webhooks. */
const DEFAULT_SUBJECT = "fetch_page refused";

/**
 * The SSRF guard refused a destination. fetch_page turns it into a tool error (`ok: false`), never
 * into an exception that reaches the run; the message is written for the model and the user.
 * `refusal` says why, without saying who refused: `as` words the same refusal for another sender.
 */
export class DestinationNotAllowedError extends AgentqError {
  readonly refusal: string;
  readonly destination: DestinationDetails;

  constructor(refusal: string, details: DestinationDetails, subject = DEFAULT_SUBJECT) {
    super("destination_not_allowed", `${subject} ${details.url}: ${refusal}`, details);
    this.refusal = refusal;
    this.destination = details;
  }

  static forAddress(url: string, hostname: string, address: string, range: string): DestinationNotAllowedError {
    const shown = hostname === address ? address : `${hostname} (${address})`;
    return new DestinationNotAllowedError(
      `${shown} is a ${range} address, which is not allowed. If this destination is meant to be reachable, an admin can add it to the web_fetch_allow setting.`,
      { url, hostname, address, reason: range },
    );
  }

  /** The same refusal with another subject ("webhooks cannot be sent to"). */
  as(subject: string): DestinationNotAllowedError {
    return new DestinationNotAllowedError(this.refusal, this.destination, subject);
  }
}
