import { mkdir, mkdtemp, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { CONSOLE_CONTENT_SECURITY_POLICY } from "../apps/api/src/console/serve-console.ts";
import { openConsolePage, sharedBrowser } from "./support/browser.ts";
import { startTestApi, type TestApi } from "./support/test-api.ts";

// The console served by the API process (docs/api.md, "Added for the web console"), from a fake build
// in a temporary directory.

const INDEX_HTML = `<!doctype html><html><head><title>fake console</title>
<script type="module" src="/console/assets/ws-check-abc123.js"></script>
<script>document.title = "inline script ran";</script>
</head><body><div id="root">fake console</div></body></html>`;

// Opens the same-origin WebSocket the console uses (token from the URL's fragment, never sent to the server).
const WS_CHECK_JS = `const token = new URLSearchParams(location.hash.slice(1)).get("token");
const socket = new WebSocket(\`ws://\${location.host}/api/ws?token=\${encodeURIComponent(token)}\`);
socket.onopen = () => { document.title = "websocket open"; socket.close(); };
socket.onerror = () => { document.title = "websocket refused"; };
`;

function expectConsoleHeaders(response: Response): void {
  expect(response.headers.get("content-security-policy")).toBe(CONSOLE_CONTENT_SECURITY_POLICY);
  expect(response.headers.get("content-security-policy")).not.toContain("unsafe-inline");
  expect(response.headers.get("x-content-type-options")).toBe("nosniff");
  expect(response.headers.get("referrer-policy")).toBe("no-referrer");
}

describe("the console served by the API", () => {
  let api: TestApi;
  let consoleDirectory: string;
  beforeAll(async () => {
    consoleDirectory = await mkdtemp(path.join(tmpdir(), "agentq-console-"));
    await mkdir(path.join(consoleDirectory, "assets"));
    await writeFile(path.join(consoleDirectory, "index.html"), INDEX_HTML);
    await writeFile(path.join(consoleDirectory, "assets", "ws-check-abc123.js"), WS_CHECK_JS);
    await writeFile(path.join(consoleDirectory, "favicon.svg"), "<svg xmlns='http://www.w3.org/2000/svg'/>");
    api = await startTestApi({ config: { consoleDirectory } });
  });
  afterAll(async () => {
    await api?.close();
    await rm(consoleDirectory, { recursive: true, force: true });
  });

  it("GET / and /console redirect (302) to /console/", async () => {
    for (const from of ["/", "/console"]) {
      const response = await fetch(`${api.url}${from}`, { redirect: "manual" });
      expect({ from, status: response.status, location: response.headers.get("location") }).toEqual({ from, status: 302, location: "/console/" });
    }
  });

  it("serves index.html at /console/ with no-cache and the security headers", async () => {
    const response = await fetch(`${api.url}/console/`);
    expect(response.status).toBe(200);
    expect(response.headers.get("content-type")).toMatch(/^text\/html/);
    expect(response.headers.get("cache-control")).toBe("no-cache");
    expectConsoleHeaders(response);
    expect(await response.text()).toBe(INDEX_HTML);
  });

  it("answers any other /console/ path that is not a file with index.html (client-side routing)", async () => {
    for (const clientPath of ["/console/chats", "/console/chats/chat_123/runs/run_9", "/console/index.html"]) {
      const response = await fetch(`${api.url}${clientPath}`);
      expect({ clientPath, status: response.status }).toEqual({ clientPath, status: 200 });
      expect(response.headers.get("cache-control")).toBe("no-cache");
      expectConsoleHeaders(response);
      expect(await response.text()).toBe(INDEX_HTML);
    }
  });

  it("serves assets immutable, other files no-cache, and a missing asset is 404 (never the page)", async () => {
    const asset = await fetch(`${api.url}/console/assets/ws-check-abc123.js`);
    expect(asset.status).toBe(200);
    expect(asset.headers.get("content-type")).toMatch(/javascript/);
    expect(asset.headers.get("cache-control")).toBe("public, max-age=31536000, immutable");
    expectConsoleHeaders(asset);
    const icon = await fetch(`${api.url}/console/favicon.svg`);
    expect(icon.status).toBe(200);
    expect(icon.headers.get("cache-control")).toBe("no-cache");
    const missing = await fetch(`${api.url}/console/assets/gone-123.js`);
    expect(missing.status).toBe(404);
    expect(missing.headers.get("content-type")).toMatch(/json/);
  });

  it("in Chromium, the policy blocks inline script and lets the page open its same-origin WebSocket", async () => {
    const { page, context, consoleErrors } = await openConsolePage(await sharedBrowser());
    try {
      await page.goto(`${api.url}/console/#token=${encodeURIComponent(api.adminToken)}`);
      // The script sets the title once the socket opens or fails.
      const deadline = Date.now() + 10_000;
      while (!(await page.title()).startsWith("websocket") && Date.now() < deadline) await new Promise((resolve) => setTimeout(resolve, 50));
      expect(await page.title()).toBe("websocket open");
      expect(consoleErrors.join("\n")).toMatch(/Content Security Policy/);
      expect(consoleErrors.filter((line) => /connect-src/.test(line))).toEqual([]);
    } finally {
      await context.close();
    }
  });
});

describe("the console before it is built", () => {
  let api: TestApi;
  let emptyDirectory: string;
  beforeAll(async () => {
    emptyDirectory = await mkdtemp(path.join(tmpdir(), "agentq-console-empty-"));
    api = await startTestApi({ config: { consoleDirectory: path.join(emptyDirectory, "dist") } });
  });
  afterAll(async () => {
    await api?.close();
    await rm(emptyDirectory, { recursive: true, force: true });
  });

  it("answers /console/ (and client paths) with 503 and a page saying to run npm run build:console", async () => {
    for (const consolePath of ["/console/", "/console/chats/x"]) {
      const response = await fetch(`${api.url}${consolePath}`);
      expect({ consolePath, status: response.status }).toEqual({ consolePath, status: 503 });
      expect(response.headers.get("content-type")).toMatch(/^text\/html/);
      expectConsoleHeaders(response);
      expect(await response.text()).toContain("npm run build:console");
    }
    // The API itself is unaffected.
    expect((await fetch(`${api.url}/api/openapi.json`)).status).toBe(200);
  });
});
