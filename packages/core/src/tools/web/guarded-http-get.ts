import http, { type IncomingHttpHeaders, type IncomingMessage } from "node:http";
import https from "node:https";
import type { Readable } from "node:stream";
import zlib from "node:zlib";
import { AgentqError } from "../../errors/agentq-error.ts";
import { FetchFailedError } from "./fetch-failed-error.ts";
import { checkUrlBeforeConnect, createGuardedLookup, type HostResolver, type ResolvedAddress } from "./ssrf/ssrf-guard.ts";
import type { WebFetchAllowEntry } from "./ssrf/web-fetch-allow-list.ts";

export interface GuardedHttpGetOptions {
  allowList: readonly WebFetchAllowEntry[];
  resolve: HostResolver;
  maxRedirects: number;
  /** Cap on the decoded body; the rest is not read and `truncated` says so. */
  maxBytes: number;
  signal: AbortSignal;
  headers: Record<string, string>;
  /** Observes every address the guard let through, right before a socket connects to it. */
  onAddressesAllowed?: (addresses: ResolvedAddress[]) => void;
}

export interface GuardedHttpResponse {
  /** The URL of the last hop, after redirects. */
  url: URL;
  status: number;
  headers: IncomingHttpHeaders;
  body: Buffer;
  truncated: boolean;
  redirects: number;
}

const REDIRECT_STATUSES = new Set([301, 302, 303, 307, 308]);

/**
 * GET a URL with the SSRF guard applied to every hop: redirects are followed by hand so each new
 * location is checked (scheme, literal address) and connected through the guarded lookup.
 * A fresh agent per hop means no pooled socket to an earlier host is ever reused.
 */
export async function guardedHttpGet(startUrl: URL, options: GuardedHttpGetOptions): Promise<GuardedHttpResponse> {
  let url = startUrl;
  for (let redirects = 0; ; redirects += 1) {
    checkUrlBeforeConnect(url, options.allowList);
    const response = await requestOnce(url, options);
    const location = response.headers.location;
    if (REDIRECT_STATUSES.has(response.statusCode ?? 0) && location !== undefined) {
      response.destroy();
      if (redirects >= options.maxRedirects) {
        throw new FetchFailedError(`fetch_page stopped after ${options.maxRedirects} redirects (last one to ${location}).`, {
          url: url.href,
        });
      }
      try {
        url = new URL(location, url);
      } catch {
        throw new FetchFailedError(`the server redirected to an invalid URL: ${location}`, { url: url.href });
      }
      continue;
    }
    const { body, truncated } = await readBody(response, url, options.maxBytes, options.signal);
    return { url, status: response.statusCode ?? 0, headers: response.headers, body, truncated, redirects };
  }
}

function requestOnce(url: URL, options: GuardedHttpGetOptions): Promise<IncomingMessage> {
  const transport = url.protocol === "https:" ? https : http;
  const lookup = createGuardedLookup({
    url,
    allowList: options.allowList,
    resolve: options.resolve,
    ...(options.onAddressesAllowed ? { onAddressesAllowed: options.onAddressesAllowed } : {}),
  });
  return new Promise((resolve, reject) => {
    const request = transport.request(url, {
      method: "GET",
      headers: options.headers,
      // A private agent: no keep-alive pool shared with other requests, and `lookup` reaches the socket.
      agent: false,
      lookup,
      signal: options.signal,
    });
    request.once("response", resolve);
    request.once("error", (error) => reject(toFetchError(error, url, options.signal)));
    request.end();
  });
}

async function readBody(response: IncomingMessage, url: URL, maxBytes: number, signal: AbortSignal): Promise<{ body: Buffer; truncated: boolean }> {
  const stream = decodedStream(response);
  const chunks: Buffer[] = [];
  let size = 0;
  let truncated = false;
  try {
    for await (const chunk of stream) {
      const buffer = chunk as Buffer;
      if (size + buffer.length > maxBytes) {
        chunks.push(buffer.subarray(0, maxBytes - size));
        size = maxBytes;
        truncated = true;
        break;
      }
      chunks.push(buffer);
      size += buffer.length;
    }
  } catch (error) {
    throw toFetchError(error, url, signal);
  } finally {
    response.destroy();
    if (stream !== response) stream.destroy();
  }
  return { body: Buffer.concat(chunks, size), truncated };
}

/** Decompresses as the body streams in, so the size cap applies to what is decoded (no zip bombs). */
function decodedStream(response: IncomingMessage): Readable {
  const encoding = (response.headers["content-encoding"] ?? "identity").trim().toLowerCase();
  switch (encoding) {
    case "identity":
    case "":
      return response;
    case "gzip":
    case "x-gzip":
      return response.pipe(zlib.createGunzip());
    case "deflate":
      return response.pipe(zlib.createInflate());
    case "br":
      return response.pipe(zlib.createBrotliDecompress());
    default:
      response.destroy();
      throw new FetchFailedError(`the server answered with an unsupported content encoding: ${encoding}`);
  }
}

function toFetchError(error: unknown, url: URL, signal: AbortSignal): Error {
  if (error instanceof AgentqError) return error;
  if (signal.aborted) {
    const reason: unknown = signal.reason;
    if (reason instanceof AgentqError) return reason;
    return new FetchFailedError(`fetching ${url.href} was cancelled.`, { url: url.href }, { cause: error });
  }
  const code = (error as NodeJS.ErrnoException).code;
  const message = error instanceof Error ? error.message : String(error);
  return new FetchFailedError(
    `could not fetch ${url.href}: ${code === "ENOTFOUND" ? `the host ${url.hostname} was not found` : message}.`,
    { url: url.href, code },
    { cause: error },
  );
}
