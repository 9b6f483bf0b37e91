import http from "node:http";
import type { AddressInfo } from "node:net";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { ToolContext, ToolResult } from "../packages/core/src/tools/tool-definition.ts";
import { createSearxngBackend } from "../packages/core/src/tools/web/searxng-backend.ts";
import { createWebSearchTool } from "../packages/core/src/tools/web/web-search-tool.ts";

let server: http.Server;
let baseUrl: string;
const receivedQueries: URLSearchParams[] = [];

beforeAll(async () => {
  server = http.createServer((request, response) => {
    const url = new URL(request.url ?? "/", "http://127.0.0.1");
    receivedQueries.push(url.searchParams);
    const query = url.searchParams.get("q") ?? "";
    if (url.pathname === "/searx/search" && url.searchParams.get("format") === "json") {
      if (query === "slow") return; // never answers
      if (query === "garbage") {
        response.setHeader("content-type", "application/json").end('{"nope": true}');
        return;
      }
      if (query === "huge") {
        response.setHeader("content-type", "application/json").end(JSON.stringify({ results: [], padding: "p".repeat(50_000) }));
        return;
      }
      const results = Array.from({ length: 12 }, (_, index) => ({
        title: `Result ${index + 1} for ${query}`,
        url: `https://example.org/${index + 1}`,
        content: `Snippet number ${index + 1}`,
        engine: "fake",
      }));
      response.setHeader("content-type", "application/json").end(JSON.stringify({ query, number_of_results: 12, results }));
      return;
    }
    if (url.pathname === "/noformat/search") {
      response.statusCode = 403;
      response.end("Forbidden");
      return;
    }
    response.statusCode = 404;
    response.end();
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  baseUrl = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});

afterAll(async () => {
  server.closeAllConnections();
  await new Promise((resolve) => server.close(resolve));
});

function context(signal = new AbortController().signal): ToolContext {
  return {
    runId: "run_test",
    chatId: "chat_test",
    userId: "user_test",
    workspace: null,
    signal,
    fileReads: { lastReadRevision: async () => undefined, recordRead: async () => {} },
    settings: { webFetchAllow: [], processNetwork: false },
  };
}

function textOf(result: ToolResult): string {
  return result.ok ? result.output : result.error;
}

describe("web_search", () => {
  it("lists titles, URLs and snippets from SearXNG's JSON API, up to the limit", async () => {
    const tool = createWebSearchTool({ backend: createSearxngBackend({ baseUrl: `${baseUrl}/searx` }), resultLimit: 3 });
    const result = await tool.execute({ query: "durable agents & queues" }, context());
    expect(result.ok).toBe(true);
    const output = textOf(result);
    expect(output).toContain("1. Result 1 for durable agents & queues\n   https://example.org/1\n   Snippet number 1");
    expect(output).toContain("3. Result 3");
    expect(output).not.toContain("4. Result 4");
    const sent = receivedQueries.at(-1);
    expect(sent?.get("q")).toBe("durable agents & queues");
    expect(sent?.get("format")).toBe("json");
  });

  it("says no backend is configured when SEARXNG_URL is not set", async () => {
    const result = await createWebSearchTool({ backend: null }).execute({ query: "anything" }, context());
    expect(result.ok).toBe(false);
    expect(textOf(result)).toContain("no search backend is configured");
    expect(textOf(result)).toContain("SEARXNG_URL");
  });

  it("explains a SearXNG instance that does not serve JSON", async () => {
    const tool = createWebSearchTool({ backend: createSearxngBackend({ baseUrl: `${baseUrl}/noformat/` }) });
    const result = await tool.execute({ query: "x" }, context());
    expect(result.ok).toBe(false);
    expect(textOf(result)).toContain("search.formats");
  });

  it("reports a response that is not SearXNG's format", async () => {
    const tool = createWebSearchTool({ backend: createSearxngBackend({ baseUrl: `${baseUrl}/searx` }) });
    const result = await tool.execute({ query: "garbage" }, context());
    expect(result.ok).toBe(false);
    expect(textOf(result)).toContain("not its JSON results format");
  });

  it("enforces its deadline and size cap", async () => {
    const slow = createWebSearchTool({ backend: createSearxngBackend({ baseUrl: `${baseUrl}/searx`, timeoutMs: 200 }) });
    const startedAt = Date.now();
    expect(textOf(await slow.execute({ query: "slow" }, context()))).toContain("did not answer within 0.2 s");
    expect(Date.now() - startedAt).toBeLessThan(5_000);
    const capped = createWebSearchTool({ backend: createSearxngBackend({ baseUrl: `${baseUrl}/searx`, maxBytes: 10_000 }) });
    expect(textOf(await capped.execute({ query: "huge" }, context()))).toContain("larger than 10000 bytes");
  });

  it("reports an unreachable instance as a tool error", async () => {
    const closed = http.createServer();
    await new Promise<void>((resolve) => closed.listen(0, "127.0.0.1", resolve));
    const port = (closed.address() as AddressInfo).port;
    await new Promise((resolve) => closed.close(resolve));
    const tool = createWebSearchTool({ backend: createSearxngBackend({ baseUrl: `http://127.0.0.1:${port}` }) });
    const result = await tool.execute({ query: "x" }, context());
    expect(result.ok).toBe(false);
    expect(textOf(result)).toContain("could not be reached");
  });

  it("declares a tainting network tool", () => {
    const tool = createWebSearchTool({ backend: null });
    expect(tool.effects).toEqual(["network"]);
    expect(tool.taints).toBe(true);
    expect(tool.parameters.safeParse({ query: "   " }).success).toBe(false);
  });
});
