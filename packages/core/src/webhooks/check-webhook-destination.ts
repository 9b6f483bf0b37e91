import type { LookupAddress } from "node:dns";
import { AgentqError } from "../errors/agentq-error.ts";
import { DestinationNotAllowedError } from "../tools/web/ssrf/destination-not-allowed-error.ts";
import { bareHostname, checkUrlBeforeConnect, createGuardedLookup, type HostResolver } from "../tools/web/ssrf/ssrf-guard.ts";
import { parseWebFetchAllowList } from "../tools/web/ssrf/web-fetch-allow-list.ts";

/** How a refusal of the SSRF guard reads for a webhook. */
export const WEBHOOK_REFUSAL_SUBJECT = "webhooks cannot be sent to";

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
      lookup(bareHostname(parsed), { all: true }, (error, addresses) => (error ? reject(error) : resolve(addresses))),
    );
  } catch (error) {
    if (error instanceof DestinationNotAllowedError) throw error.as(WEBHOOK_REFUSAL_SUBJECT);
    if (error instanceof AgentqError) throw error;
    // Not resolvable now: see above.
  }
}
