import { z } from "zod";
import { AgentqError } from "../../errors/agentq-error.ts";
import type { ToolContext, ToolDefinition, ToolResult } from "../tool-definition.ts";
import { classifyContentType, decodeBody } from "./decode-body.ts";
import { FetchFailedError } from "./fetch-failed-error.ts";
import { guardedHttpGet, type GuardedHttpResponse } from "./guarded-http-get.ts";
import { htmlToReadableText } from "./html-to-readable-text.ts";
import { systemHostResolver, type HostResolver } from "./ssrf/ssrf-guard.ts";
import { parseWebFetchAllowList } from "./ssrf/web-fetch-allow-list.ts";

export interface FetchPageToolOptions {
  /** Deadline for the whole fetch, redirects included. Default 15 000 ms: a page that slow is rarely worth the wait. */
  timeoutMs?: number;
  /** Bytes of (decoded) body read at most; the rest is dropped with a note. Default 2 MiB. */
  maxBytes?: number;
  /** Redirects followed at most, each one checked by the SSRF guard. Default 5. */
  maxRedirects?: number;
  /** Sent as User-Agent. Default `agentq-fetch-page/0.1`. */
  userAgent?: string;
  /** Characters of page text handed to the model at most. Default 40 000 (about 10k tokens). */
  maxTextChars?: number;
  /** Resolves host names; every answer is checked by the SSRF guard. Default: the system resolver (dns.lookup). */
  lookup?: HostResolver;
}

const fetchPageParameters = z.object({
  url: z.string().min(1).describe("Absolute http:// or https:// URL of the page to read."),
});

type FetchPageArgs = z.infer<typeof fetchPageParameters>;

/**
 * `fetch_page {url}`: reads a web page as text. Every hop goes through the SSRF guard (see
 * ssrf/ssrf-guard.ts); a refusal is a tool error the model can read, never an exception.
 * Fetched pages are untrusted material, so the tool taints the turn.
 */
export function createFetchPageTool(options: FetchPageToolOptions = {}): ToolDefinition<FetchPageArgs> {
  const timeoutMs = options.timeoutMs ?? 15_000;
  const maxBytes = options.maxBytes ?? 2 * 1024 * 1024;
  const maxRedirects = options.maxRedirects ?? 5;
  const userAgent = options.userAgent ?? "agentq-fetch-page/0.1";
  const maxTextChars = options.maxTextChars ?? 40_000;
  const resolve = options.lookup ?? systemHostResolver;

  return {
    name: "fetch_page",
    family: "web",
    description:
      "Fetch a web page (http or https) and return its title and readable text. HTML is converted to text; " +
      "plain text and JSON are returned as is; other content types are refused. Private and local network " +
      "addresses are refused unless an admin allow-listed them.",
    parameters: fetchPageParameters,
    effects: ["network"],
    taints: true,
    requiresWorkspace: false,
    describeCall: (args) => args.url,
    async execute(args: FetchPageArgs, context: ToolContext): Promise<ToolResult> {
      let url: URL;
      try {
        url = new URL(args.url.trim());
      } catch {
        return { ok: false, error: `"${args.url}" is not a valid absolute URL; give one such as https://example.com/page.` };
      }
      const timeout = new AbortController();
      const timer = setTimeout(
        () => timeout.abort(new FetchFailedError(`fetching ${url.href} timed out after ${timeoutMs / 1000} s.`, { url: url.href })),
        timeoutMs,
      );
      try {
        const response = await guardedHttpGet(url, {
          allowList: parseWebFetchAllowList(context.settings.webFetchAllow),
          resolve,
          maxRedirects,
          maxBytes,
          signal: AbortSignal.any([context.signal, timeout.signal]),
          headers: {
            "user-agent": userAgent,
            accept: "text/html,application/xhtml+xml,text/plain;q=0.9,application/json;q=0.8,*/*;q=0.1",
            "accept-encoding": "gzip, deflate, br",
          },
        });
        return await pageResult(url, response, { maxBytes, maxTextChars });
      } catch (error) {
        if (error instanceof AgentqError) {
          return { ok: false, error: error.message, data: { code: error.code, ...error.details } };
        }
        throw error;
      } finally {
        clearTimeout(timer);
      }
    },
  };
}

async function pageResult(requestedUrl: URL, response: GuardedHttpResponse, limits: { maxBytes: number; maxTextChars: number }): Promise<ToolResult> {
  const contentTypeHeader = response.headers["content-type"];
  const kind = classifyContentType(contentTypeHeader, response.body);
  const data = {
    url: requestedUrl.href,
    final_url: response.url.href,
    status: response.status,
    content_type: contentTypeHeader ?? null,
  };
  if (kind.kind === "unsupported") {
    return {
      ok: false,
      error: `fetch_page reads HTML and plain text only; ${response.url.href} is ${kind.mimeType}.`,
      data,
    };
  }
  const decoded = decodeBody(response.body, kind.charset);
  const page = kind.kind === "html" ? await htmlToReadableText(decoded, response.url.href) : { title: "", text: decoded };
  const text = page.text.length > limits.maxTextChars ? page.text.slice(0, limits.maxTextChars) : page.text;
  const notes: string[] = [];
  if (response.truncated) notes.push(`[page cut: only the first ${limits.maxBytes} bytes were read]`);
  if (text.length < page.text.length) {
    notes.push(`[text cut: ${page.text.length - text.length} of ${page.text.length} characters omitted]`);
  }
  const header = [`URL: ${response.url.href}`, ...(page.title ? [`Title: ${page.title}`] : [])].join("\n");
  const body = [header, "", text === "" ? "(the page has no readable text)" : text, ...(notes.length ? ["", ...notes] : [])].join("\n");
  const resultData = { ...data, title: page.title, truncated: response.truncated || text.length < page.text.length };
  if (response.status < 200 || response.status >= 300) {
    // The error page is shown briefly: it helps the model tell a login wall from a missing page.
    const excerpt = body.length > 2_000 ? `${body.slice(0, 2_000)}\n[error page cut]` : body;
    return { ok: false, error: `the server answered HTTP ${response.status} for ${response.url.href}.\n\n${excerpt}`, data: resultData };
  }
  return { ok: true, output: body, data: resultData };
}
