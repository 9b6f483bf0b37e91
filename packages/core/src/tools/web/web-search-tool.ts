import { z } from "zod";
import type { ToolContext, ToolDefinition, ToolResult } from "../tool-definition.ts";
import type { SearchBackend } from "./search-backend.ts";
import { SearchBackendError } from "./search-backend-error.ts";

export interface WebSearchToolOptions {
  /** The engine to ask; `null` when none is configured (no `SEARXNG_URL`): the tool then says so. */
  backend: SearchBackend | null;
  /** Results returned at most. Default 8: enough to choose pages to fetch, short enough to read. */
  resultLimit?: number;
}

const webSearchParameters = z.object({
  query: z.string().trim().min(1).max(500).describe("What to search the web for."),
});

type WebSearchArgs = z.infer<typeof webSearchParameters>;

/**
 * `web_search {query}`: titles, URLs and snippets from the configured engine. Snippets are text
 * written by strangers, so results taint the turn.
 */
export function createWebSearchTool(options: WebSearchToolOptions): ToolDefinition<WebSearchArgs> {
  const resultLimit = options.resultLimit ?? 8;
  return {
    name: "web_search",
    family: "web",
    description: "Search the web. Returns a numbered list of results (title, URL, snippet); use fetch_page to read one.",
    parameters: webSearchParameters,
    effects: ["network"],
    taints: true,
    requiresWorkspace: false,
    describeCall: (args) => args.query,
    async execute(args: WebSearchArgs, context: ToolContext): Promise<ToolResult> {
      const backend = options.backend;
      if (backend === null) {
        return {
          ok: false,
          error: "web search is not available: no search backend is configured (an admin must set SEARXNG_URL).",
          data: { code: "search_not_configured" },
        };
      }
      try {
        const results = await backend.search(args.query, { signal: context.signal, limit: resultLimit });
        if (results.length === 0) {
          return { ok: true, output: `No results for "${args.query}".`, data: { query: args.query, results: [] } };
        }
        const lines = results.map((result, index) => `${index + 1}. ${result.title}\n   ${result.url}${result.snippet ? `\n   ${result.snippet}` : ""}`);
        return {
          ok: true,
          output: `Results for "${args.query}" (${backend.name}):\n\n${lines.join("\n\n")}`,
          data: { query: args.query, results },
        };
      } catch (error) {
        if (error instanceof SearchBackendError) {
          return { ok: false, error: `web search failed: ${error.message}`, data: { code: error.code, ...error.details } };
        }
        throw error;
      }
    },
  };
}
