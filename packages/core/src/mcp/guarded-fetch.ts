import { request as httpRequest, type IncomingMessage } from "node:http";
import { request as httpsRequest } from "node:https";
import { Readable } from "node:stream";
import { checkUrlBeforeConnect, createGuardedLookup, type HostResolver } from "../tools/web/ssrf/ssrf-guard.ts";
import type { WebFetchAllowEntry } from "../tools/web/ssrf/web-fetch-allow-list.ts";

/** Statuses whose Response may carry no body. */
const NO_BODY = new Set([101, 204, 205, 304]);

/**
 * A `fetch` for the MCP SDK's Streamable HTTP transport that connects only where the SSRF guard
 * allows: the URL is checked, and the socket connects through the guarded lookup, so the addresses
 * checked are exactly the ones connected to (as `fetch_page` does). Redirects are not followed (a
 * 3xx is returned as it is). Bodies are streamed both ways (the transport reads server-sent events).
 */
export function createGuardedFetch(options: {
  allowList: readonly WebFetchAllowEntry[];
  resolve: HostResolver;
}): (input: string | URL | Request, init?: RequestInit) => Promise<Response> {
  return async (input, init = {}) => {
    const url = new URL(input instanceof Request ? input.url : String(input));
    checkUrlBeforeConnect(url, options.allowList);
    const headers: Record<string, string> = {};
    new Headers(init.headers).forEach((value, name) => {
      headers[name] = value;
    });
    const body = init.body === undefined || init.body === null ? undefined : typeof init.body === "string" ? init.body : await new Response(init.body).text();
    const send = url.protocol === "https:" ? httpsRequest : httpRequest;
    const response = await new Promise<IncomingMessage>((resolve, reject) => {
      const request = send(url, {
        method: init.method ?? "GET",
        headers,
        agent: false,
        lookup: createGuardedLookup({ url, allowList: options.allowList, resolve: options.resolve }),
        ...(init.signal ? { signal: init.signal } : {}),
      });
      request.once("response", resolve);
      request.once("error", reject);
      request.end(body);
    });
    const responseHeaders = new Headers();
    for (const [name, value] of Object.entries(response.headers)) {
      if (Array.isArray(value)) for (const item of value) responseHeaders.append(name, item);
      else if (value !== undefined) responseHeaders.set(name, value);
    }
    const status = response.statusCode ?? 502;
    if (NO_BODY.has(status)) {
      response.resume();
      return new Response(null, { status, headers: responseHeaders });
    }
    return new Response(Readable.toWeb(response) as ReadableStream<Uint8Array>, { status, statusText: response.statusMessage ?? "", headers: responseHeaders });
  };
}
