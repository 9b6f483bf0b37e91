import { AgentqError } from "../../../errors/agentq-error.ts";

/**
 * The SSRF guard refused a destination. fetch_page turns it into a tool error (`ok: false`), never
 * into an exception that reaches the run; the message is written for the model and the user.
 */
export class DestinationNotAllowedError extends AgentqError {
  constructor(message: string, details: { url: string; hostname?: string; address?: string; reason: string }) {
    super("destination_not_allowed", message, details);
  }

  static forAddress(url: string, hostname: string, address: string, range: string): DestinationNotAllowedError {
    const shown = hostname === address ? address : `${hostname} (${address})`;
    return new DestinationNotAllowedError(
      `fetch_page refused ${url}: ${shown} is a ${range} address, which is not allowed. ` +
        "If this destination is meant to be reachable, an admin can add it to the web_fetch_allow setting.",
      { url, hostname, address, reason: range },
    );
  }
}
