import type { LookupAddress } from "node:dns";
import { AgentqError } from "../errors/agentq-error.ts";
import { DestinationNotAllowedError } from "../tools/web/ssrf/destination-not-allowed-error.ts";
import { checkUrlBeforeConnect, createGuardedLookup, type HostResolver } from "../tools/web/ssrf/ssrf-guard.ts";
import { parseWebFetchAllowList } from "../tools/web/ssrf/web-fetch-allow-list.ts";

/**
 * The SSRF guard applied to a webhook URL when it is registered: a private, loopback or link-local
 * destination is refused unless `web_fetch_allow` admits it. A host that does not resolve now is
 * accepted (DNS may be down for a moment); every delivery connects through the same guard again, so
 * an address that changes later is judged when it is used.
 */
export async function checkWebhookDestination(url: string, options: { webFetchAllow: readonly string[]; resolve: HostResolver }): Promise<void> {
  const parsed = new URL(url);
  const allowList = parseWebFetchAllowList(options.webFetchAllow);
  const lookup = createGuardedLookup({ url: parsed, allowList, resolve: options.resolve });
  try {
    checkUrlBeforeConnect(parsed, allowList);
    await new Promise<string | LookupAddress[]>((resolve, reject) =>
      lookup(parsed.hostname.replace(/^\[|\]$/g, ""), { all: true }, (error, addresses) => (error ? reject(error) : resolve(addresses))),
    );
  } catch (error) {
    if (error instanceof DestinationNotAllowedError) throw forWebhooks(error);
    if (error instanceof AgentqError) throw error;
    // Not resolvable now: see above.
  }
}

/** The guard's refusal, worded for a webhook rather than for fetch_page. */
export function forWebhooks(error: DestinationNotAllowedError): DestinationNotAllowedError {
  const reason = error.message.replace(/^fetch_page refused \S+: /, "");
  const details = (error.details ?? {}) as { url: string; reason: string };
  return new DestinationNotAllowedError(`webhooks cannot be sent to ${details.url}: ${reason}`, details);
}
