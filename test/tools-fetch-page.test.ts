import http, { type IncomingMessage, type ServerResponse } from "node:http";
import net, { type AddressInfo } from "node:net";
import { gzipSync } from "node:zlib";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createFetchPageTool, type FetchPageToolOptions } from "../packages/core/src/tools/web/fetch-page-tool.ts";
import type { HostResolver, ResolvedAddress } from "../packages/core/src/tools/web/ssrf/ssrf-guard.ts";
import type { ToolContext, ToolResult } from "../packages/core/src/tools/tool-definition.ts";

const ARTICLE = `<!doctype html><html><head><title>Local test article</title></head><body>
<nav><a href="/">Home</a></nav><main><article><h1>Guarded fetching</h1>
<p>This page is served by the allow-listed local test server, and its paragraphs should come back as readable text for the model to read.</p>
<p>A second paragraph adds enough words for the readability algorithm to treat the page as an article worth extracting, with a <a href="/plain">relative link</a>.</p>
</article></main><script>document.write("script text must not appear")</script></body></html>`;

/**
 * The test's DNS. Names resolve to loopback only, so that even a broken guard could not send
 * traffic anywhere else; mixed and non-loopback answers are covered by ssrf-guard.test.ts, which opens no socket.
 */
const DNS_RECORDS: Record<string, ResolvedAddress[]> = {
  "evil.test": [{ address: "127.0.0.1", family: 4 }],
  "allowed.test": [{ address: "127.0.0.1", family: 4 }],
  localhost: [
    { address: "127.0.0.1", family: 4 },
    { address: "::1", family: 6 },
  ],
};

const resolvedNames: string[] = [];
const testResolver: HostResolver = async (hostname) => {
  resolvedNames.push(hostname);
  const records = DNS_RECORDS[hostname];
  if (records === undefined) throw Object.assign(new Error(`getaddrinfo ENOTFOUND ${hostname}`), { code: "ENOTFOUND" });
  return records;
};

/** Every host a socket was asked to connect to; an IP other than 127.0.0.1 is refused outright (tests stay local). */
const connectHosts: string[] = [];
const originalConnect = net.Socket.prototype.connect;

let allowedServer: http.Server;
let allowedPort: number;
let forbiddenServer: http.Server;
let forbiddenPort: number;
let forbiddenConnections = 0;

function listen(handler: (request: IncomingMessage, response: ServerResponse) => void): Promise<[http.Server, number]> {
  const server = http.createServer(handler);
  return new Promise((resolve) => server.listen(0, "127.0.0.1", () => resolve([server, (server.address() as AddressInfo).port])));
}

beforeAll(async () => {
  net.Socket.prototype.connect = function (this: net.Socket, ...args: unknown[]) {
    const first = args[0];
    const options = (Array.isArray(first) ? first[0] : first) as { host?: string } | number | string;
    const host = typeof options === "object" && options !== null ? (options.host ?? "localhost") : String(args[1] ?? "localhost");
    connectHosts.push(host);
    if (net.isIP(host) !== 0 && host !== "127.0.0.1") throw new Error(`test tried to connect to ${host}`);
    return (originalConnect as (...values: unknown[]) => net.Socket).apply(this, args);
  } as typeof net.Socket.prototype.connect;

  [forbiddenServer, forbiddenPort] = await listen((_request, response) => response.end("forbidden secret"));
  forbiddenServer.on("connection", () => {
    forbiddenConnections += 1;
  });
  [allowedServer, allowedPort] = await listen((request, response) => {
    const url = new URL(request.url ?? "/", "http://127.0.0.1");
    switch (url.pathname) {
      case "/article":
        response.setHeader("content-type", "text/html; charset=utf-8").end(ARTICLE);
        return;
      case "/plain":
        response.setHeader("content-type", "text/plain").end("just plain text\nline two");
        return;
      case "/gzip":
        response.setHeader("content-type", "text/plain; charset=utf-8").setHeader("content-encoding", "gzip");
        response.end(gzipSync(Buffer.from("compressed text arrives decoded")));
        return;
      case "/pdf":
        response.setHeader("content-type", "application/pdf").end("%PDF-1.4");
        return;
      case "/big":
        response.setHeader("content-type", "text/plain");
        response.end("x".repeat(300_000));
        return;
      case "/missing":
        response.statusCode = 404;
        response.setHeader("content-type", "text/html").end("<html><body><p>No such page here</p></body></html>");
        return;
      case "/redirect-ok":
        response.writeHead(302, { location: "/article" }).end();
        return;
      case "/redirect-loop":
        response.writeHead(302, { location: "/redirect-loop" }).end();
        return;
      case "/redirect-forbidden":
        response.writeHead(302, { location: `http://127.0.0.1:${forbiddenPort}/secret` }).end();
        return;
      case "/redirect-evil-name":
        response.writeHead(301, { location: `http://evil.test:${forbiddenPort}/secret` }).end();
        return;
      case "/redirect-metadata":
        response.writeHead(307, { location: "http://169.254.169.254/latest/meta-data/" }).end();
        return;
      case "/redirect-file":
        response.writeHead(302, { location: "file:///etc/passwd" }).end();
        return;
      case "/slow":
        response.setHeader("content-type", "text/plain");
        response.write("partial");
        return; // never ends
      default:
        response.statusCode = 500;
        response.end("unexpected path");
    }
  });
});

afterAll(async () => {
  net.Socket.prototype.connect = originalConnect;
  allowedServer.closeAllConnections();
  forbiddenServer.closeAllConnections();
  await new Promise((resolve) => allowedServer.close(resolve));
  await new Promise((resolve) => forbiddenServer.close(resolve));
});

function context(webFetchAllow: string[], signal = new AbortController().signal): ToolContext {
  return {
    runId: "run_test",
    chatId: "chat_test",
    userId: "user_test",
    workspace: null,
    signal,
    fileReads: { lastReadRevision: async () => undefined, recordRead: async () => {} },
    settings: { webFetchAllow, processNetwork: false },
  };
}

function fetchPage(url: string, allow: string[] = [`127.0.0.1:${allowedPort}`], options: FetchPageToolOptions = {}) {
  return createFetchPageTool({ lookup: testResolver, ...options }).execute({ url }, context(allow));
}

function textOf(result: ToolResult): string {
  return result.ok ? result.output : result.error;
}

describe("fetch_page SSRF guard", () => {
  // Forms whose refusal must come before any socket exists: the URL alone condemns them.
  const literalForms = () => [
    `http://127.0.0.1:${forbiddenPort}/`,
    `http://127.1:${forbiddenPort}/`,
    `http://2130706433:${forbiddenPort}/`,
    `http://0x7f000001:${forbiddenPort}/`,
    `http://0177.0.0.1:${forbiddenPort}/`,
    `http://0x7f.0.0.1:${forbiddenPort}/`,
    `http://[::1]:${forbiddenPort}/`,
    `http://[::ffff:127.0.0.1]:${forbiddenPort}/`,
    `http://[::ffff:7f00:1]:${forbiddenPort}/`,
    `http://[::127.0.0.1]:${forbiddenPort}/`,
    `http://0.0.0.0:${forbiddenPort}/`,
    `http://[::]:${forbiddenPort}/`,
    "http://169.254.169.254/latest/meta-data/",
    "http://10.0.0.1/",
    "https://10.0.0.1/",
    "http://192.168.1.1/",
    "http://172.16.0.1/",
    "http://100.64.0.1/",
    "http://198.18.0.1/",
    "http://224.0.0.1/",
    "http://255.255.255.255/",
    "http://[fe80::1]/",
    "http://[fc00::1]/",
    "http://[2002:7f00:1::]/",
    "http://[64:ff9b::7f00:1]/",
    "http://[64:ff9b::a9fe:a9fe]/",
    `http://evil@127.0.0.1:${forbiddenPort}/`,
    `http://user:pass@127.0.0.1:${allowedPort}/article`,
    "file:///etc/passwd",
    `gopher://127.0.0.1:${forbiddenPort}/_GET`,
    "ftp://127.0.0.1/",
    "data:text/html,<h1>hi</h1>",
    "javascript:alert(1)",
  ];

  it("refuses every private, loopback and special form before connecting", async () => {
    const forms = literalForms();
    expect(forms.length).toBeGreaterThanOrEqual(20);
    for (const url of forms) {
      const connectsBefore = connectHosts.length;
      const result = await fetchPage(url);
      expect(result.ok, url).toBe(false);
      expect(textOf(result), url).toMatch(/is not allowed|only http and https|embedded credentials/);
      expect(result.data?.code, url).toBe("destination_not_allowed");
      expect(connectHosts.length, `${url} opened a socket`).toBe(connectsBefore);
    }
    expect(forbiddenConnections).toBe(0);
  });

  it("says an admin can allow-list a refused address", async () => {
    const result = await fetchPage("http://10.0.0.1/");
    expect(textOf(result)).toContain("10.0.0.1 is a private address, which is not allowed");
    expect(textOf(result)).toContain("web_fetch_allow");
  });

  it.each([
    ["a name resolving to loopback", "evil.test"],
    ["localhost", "localhost"],
  ])("refuses %s at connect time, without connecting", async (_label, hostname) => {
    const resolvedBefore = resolvedNames.length;
    const result = await fetchPage(`http://${hostname}:${forbiddenPort}/`);
    expect(result.ok).toBe(false);
    expect(textOf(result)).toContain("which is not allowed");
    expect(resolvedNames.slice(resolvedBefore)).toContain(hostname);
    expect(forbiddenConnections).toBe(0);
  });

  it.each([
    ["a non-allowed loopback port", "/redirect-forbidden"],
    ["a name resolving to loopback", "/redirect-evil-name"],
    ["the metadata address", "/redirect-metadata"],
    ["a file: URL", "/redirect-file"],
  ])("re-checks every redirect hop: a redirect to %s is refused", async (_label, path) => {
    const result = await fetchPage(`http://127.0.0.1:${allowedPort}${path}`);
    expect(result.ok).toBe(false);
    expect(result.data?.code).toBe("destination_not_allowed");
    expect(textOf(result)).not.toContain("forbidden secret");
    expect(forbiddenConnections).toBe(0);
  });

  it("does not let an entry for one port open another port of the same address", async () => {
    const result = await fetchPage(`http://127.0.0.1:${forbiddenPort}/`, [`127.0.0.1:${allowedPort}`]);
    expect(result.ok).toBe(false);
    expect(forbiddenConnections).toBe(0);
  });
});

describe("fetch_page", () => {
  it("fetches the allow-listed local server and converts its HTML to text", async () => {
    const connectsBefore = connectHosts.length;
    const result = await fetchPage(`http://127.0.0.1:${allowedPort}/article`);
    // Also proves the socket observer used by the refusal tests sees real connections.
    expect(connectHosts.slice(connectsBefore)).toContain("127.0.0.1");
    expect(result.ok).toBe(true);
    const output = textOf(result);
    expect(output).toContain("Title: Local test article");
    expect(output).toContain("served by the allow-listed local test server");
    expect(output).toContain(`http://127.0.0.1:${allowedPort}/plain`);
    expect(output).not.toContain("<p>");
    expect(output).not.toContain("script text must not appear");
    expect(result.data?.status).toBe(200);
  });

  it("reaches a private destination through a host-name entry or a CIDR entry", async () => {
    const byName = await fetchPage(`http://allowed.test:${allowedPort}/plain`, [`allowed.test:${allowedPort}`]);
    expect(textOf(byName)).toContain("just plain text");
    const byRange = await fetchPage(`http://127.0.0.1:${allowedPort}/plain`, ["127.0.0.0/8"]);
    expect(textOf(byRange)).toContain("just plain text");
  });

  it("passes plain text through and decodes gzip", async () => {
    expect(textOf(await fetchPage(`http://127.0.0.1:${allowedPort}/plain`))).toContain("just plain text\nline two");
    expect(textOf(await fetchPage(`http://127.0.0.1:${allowedPort}/gzip`))).toContain("compressed text arrives decoded");
  });

  it("follows an allowed redirect", async () => {
    const result = await fetchPage(`http://127.0.0.1:${allowedPort}/redirect-ok`);
    expect(result.ok).toBe(true);
    expect(result.data?.final_url).toBe(`http://127.0.0.1:${allowedPort}/article`);
    expect(textOf(result)).toContain("Guarded fetching".toUpperCase());
  });

  it("stops after the redirect limit", async () => {
    const result = await fetchPage(`http://127.0.0.1:${allowedPort}/redirect-loop`, undefined, { maxRedirects: 2 });
    expect(result.ok).toBe(false);
    expect(textOf(result)).toContain("stopped after 2 redirects");
  });

  it("refuses content types it cannot read", async () => {
    const result = await fetchPage(`http://127.0.0.1:${allowedPort}/pdf`);
    expect(result.ok).toBe(false);
    expect(textOf(result)).toContain("application/pdf");
  });

  it("caps the body and the text, saying so", async () => {
    const bodyCut = await fetchPage(`http://127.0.0.1:${allowedPort}/big`, undefined, { maxBytes: 10_000 });
    expect(textOf(bodyCut)).toContain("[page cut: only the first 10000 bytes were read]");
    expect(textOf(bodyCut)).toContain("x".repeat(10_000));
    expect(textOf(bodyCut)).not.toContain("x".repeat(10_001));
    const textCut = await fetchPage(`http://127.0.0.1:${allowedPort}/big`, undefined, { maxTextChars: 1_000 });
    expect(textOf(textCut)).toContain("[text cut: 299000 of 300000 characters omitted]");
  });

  it("reports an HTTP error status as a tool error with the page's text", async () => {
    const result = await fetchPage(`http://127.0.0.1:${allowedPort}/missing`);
    expect(result.ok).toBe(false);
    expect(textOf(result)).toContain("HTTP 404");
    expect(textOf(result)).toContain("No such page here");
  });

  it("gives up at the deadline", async () => {
    const startedAt = Date.now();
    const result = await fetchPage(`http://127.0.0.1:${allowedPort}/slow`, undefined, { timeoutMs: 300 });
    expect(result.ok).toBe(false);
    expect(textOf(result)).toContain("timed out after 0.3 s");
    expect(Date.now() - startedAt).toBeLessThan(5_000);
  });

  it("stops when the run is cancelled", async () => {
    const controller = new AbortController();
    const pending = createFetchPageTool({ lookup: testResolver }).execute(
      { url: `http://127.0.0.1:${allowedPort}/slow` },
      context([`127.0.0.1:${allowedPort}`], controller.signal),
    );
    setTimeout(() => controller.abort(), 100);
    const result = await pending;
    expect(result.ok).toBe(false);
    expect(textOf(result)).toContain("cancelled");
  });

  it("answers an unparseable URL with a tool error", async () => {
    const result = await fetchPage("not a url");
    expect(result.ok).toBe(false);
    expect(textOf(result)).toContain("not a valid absolute URL");
  });

  it("declares a tainting network tool that needs no workspace", () => {
    const tool = createFetchPageTool();
    expect(tool.effects).toEqual(["network"]);
    expect(tool.taints).toBe(true);
    expect(tool.requiresWorkspace).toBe(false);
  });
});
