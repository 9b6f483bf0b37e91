import { stat } from "node:fs/promises";
import path from "node:path";
import express, { type RequestHandler, type Response, Router } from "express";

/** Where the console is served (vite's `base`). */
export const CONSOLE_PATH = "/console/";

/**
 * No inline script or style (the build makes every one a file), nothing from other origins, no
 * framing. `connect-src 'self'` covers the same-origin WebSocket (ws:/wss: of the page's host) in
 * CSP Level 3 browsers: test/api-console-static.test.ts checks it in Chromium.
 */
export const CONSOLE_CONTENT_SECURITY_POLICY = [
  "default-src 'self'",
  "script-src 'self'",
  "style-src 'self'",
  "img-src 'self' data:",
  "connect-src 'self'",
  "frame-ancestors 'none'",
  "base-uri 'none'",
  "form-action 'self'",
].join("; ");

/** Vite names every asset after its content hash: a year, immutable. */
const ASSET_CACHE_CONTROL = "public, max-age=31536000, immutable";

const BUILD_MISSING_PAGE = `<!doctype html>
<html lang="en">
<head><meta charset="utf-8"><title>agentq console not built</title></head>
<body>
<h1>The agentq console is not built yet</h1>
<p>Run <code>npm run build:console</code> in the agentq checkout, then reload this page.</p>
<p>The API itself is running: see <a href="/api/openapi.json">/api/openapi.json</a>.</p>
</body>
</html>
`;

const securityHeaders: RequestHandler = (_request, response, next) => {
  response.setHeader("Content-Security-Policy", CONSOLE_CONTENT_SECURITY_POLICY);
  response.setHeader("X-Content-Type-Options", "nosniff");
  response.setHeader("Referrer-Policy", "no-referrer");
  next();
};

/**
 * The web console from the API process (no second server): `/` redirects to `/console/`, the
 * build's files are served under `/console/`, and any other `/console/...` path gets `index.html`
 * (the console routes on the client). Without a build, `/console/` says how to make one (503)
 * instead of a blank page. `directory` is apps/console/dist unless configured (CONSOLE_DIR).
 */
export function serveConsole(directory: string): Router {
  const router = Router({ strict: true, caseSensitive: true });
  const indexPath = path.join(directory, "index.html");

  router.get("/", (_request, response) => response.redirect(302, CONSOLE_PATH));
  router.get("/console", (_request, response) => response.redirect(302, CONSOLE_PATH));
  router.use("/console", securityHeaders);
  router.use(
    "/console",
    express.static(directory, {
      index: false,
      cacheControl: false,
      redirect: false,
      dotfiles: "ignore",
      setHeaders: (response, filePath) => {
        const relative = path.relative(directory, filePath).split(path.sep).join("/");
        response.setHeader("Cache-Control", relative.startsWith("assets/") ? ASSET_CACHE_CONTROL : "no-cache");
      },
    }),
  );
  // Looked up per request: a build made while the API runs is served without a restart.
  router.get("/console/{*clientPath}", async (request, response, next) => {
    // A missing asset is a 404, not the page: a script tag must not get HTML (a stale page asking for
    // an older build's file fails plainly).
    if (request.path.startsWith("/console/assets/")) {
      next();
      return;
    }
    if (await isFile(indexPath)) {
      response.sendFile(indexPath, { cacheControl: false, headers: { "Cache-Control": "no-cache" } });
      return;
    }
    sendBuildMissing(response);
  });
  return router;
}

function sendBuildMissing(response: Response): void {
  response.status(503).setHeader("Cache-Control", "no-store").type("html").send(BUILD_MISSING_PAGE);
}

async function isFile(filePath: string): Promise<boolean> {
  return stat(filePath).then(
    (stats) => stats.isFile(),
    () => false,
  );
}
