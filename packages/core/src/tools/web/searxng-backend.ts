import { z } from "zod";
import type { SearchBackend, SearchOptions, SearchResult } from "./search-backend.ts";
import { SearchBackendError } from "./search-backend-error.ts";

export interface SearxngBackendOptions {
  /** The instance's base URL (`SEARXNG_URL`), e.g. `http://searxng:8080` or `https://host/searx/`. */
  baseUrl: string;
  /** Deadline for one search. Default 10 000 ms: SearXNG waits on upstream engines, but a model should not. */
  timeoutMs?: number;
  /** Bytes of JSON read at most. Default 1 MiB, far above a normal page of results. */
  maxBytes?: number;
}

const searxngResponse = z.looseObject({
  results: z.array(
    z.looseObject({
      url: z.string(),
      title: z.string().nullish(),
      content: z.string().nullish(),
    }),
  ),
});

const SNIPPET_MAX_CHARS = 500;

/**
 * SearXNG's JSON API (`GET <base>/search?q=...&format=json`). The URL comes from an admin, so it is
 * not subject to fetch_page's SSRF guard (a self-hosted SearXNG usually lives on a private network);
 * it still gets a deadline and a size cap. The instance must list `json` in `search.formats`.
 */
export function createSearxngBackend(options: SearxngBackendOptions): SearchBackend {
  const timeoutMs = options.timeoutMs ?? 10_000;
  const maxBytes = options.maxBytes ?? 1024 * 1024;
  const base = new URL(options.baseUrl.endsWith("/") ? options.baseUrl : `${options.baseUrl}/`);

  return {
    name: "SearXNG",
    async search(query: string, searchOptions: SearchOptions): Promise<SearchResult[]> {
      const url = new URL("search", base);
      url.searchParams.set("q", query);
      url.searchParams.set("format", "json");
      const signal = AbortSignal.any([searchOptions.signal, AbortSignal.timeout(timeoutMs)]);
      let response: Response;
      try {
        response = await fetch(url, { signal, headers: { accept: "application/json" }, redirect: "error" });
      } catch (error) {
        throw failure(error, signal, searchOptions.signal, timeoutMs);
      }
      if (response.status === 403) {
        await response.body?.cancel();
        throw new SearchBackendError(
          "the SearXNG instance refused the JSON format (HTTP 403): an admin must add `json` to search.formats in its settings.yml.",
          { status: 403 },
        );
      }
      if (!response.ok) {
        await response.body?.cancel();
        throw new SearchBackendError(`the SearXNG instance answered HTTP ${response.status}.`, { status: response.status });
      }
      let parsed: z.infer<typeof searxngResponse>;
      try {
        parsed = searxngResponse.parse(JSON.parse(await readLimited(response, maxBytes)));
      } catch (error) {
        if (error instanceof SearchBackendError) throw error;
        if (signal.aborted) throw failure(error, signal, searchOptions.signal, timeoutMs);
        throw new SearchBackendError("the SearXNG instance returned a response that is not its JSON results format.", {}, { cause: error });
      }
      return parsed.results.slice(0, searchOptions.limit).map((result) => ({
        title: (result.title ?? "").trim() || result.url,
        url: result.url,
        snippet: truncate((result.content ?? "").trim(), SNIPPET_MAX_CHARS),
      }));
    },
  };
}

async function readLimited(response: Response, maxBytes: number): Promise<string> {
  if (response.body === null) return "";
  const reader = response.body.getReader();
  const chunks: Uint8Array[] = [];
  let size = 0;
  for (;;) {
    const { done, value } = await reader.read();
    if (done) break;
    size += value.byteLength;
    if (size > maxBytes) {
      await reader.cancel();
      throw new SearchBackendError(`the SearXNG response is larger than ${maxBytes} bytes.`, { maxBytes });
    }
    chunks.push(value);
  }
  return Buffer.concat(chunks).toString("utf8");
}

function failure(error: unknown, signal: AbortSignal, callerSignal: AbortSignal, timeoutMs: number): SearchBackendError {
  if (callerSignal.aborted) return new SearchBackendError("the search was cancelled.", {}, { cause: error });
  if (signal.aborted) return new SearchBackendError(`the SearXNG instance did not answer within ${timeoutMs / 1000} s.`, {}, { cause: error });
  const message = error instanceof Error ? (error.cause instanceof Error ? error.cause.message : error.message) : String(error);
  return new SearchBackendError(`the SearXNG instance could not be reached: ${message}.`, {}, { cause: error });
}

function truncate(text: string, maxChars: number): string {
  return text.length > maxChars ? `${text.slice(0, maxChars)}…` : text;
}
