import { afterAll, beforeAll, describe, expect, it } from "vitest";
import WebSocket from "ws";
import { rawRequest, requestJson, startTestApi, type TestApi } from "./support/test-api.ts";

/** Opens a WebSocket at `path` and resolves with the upgrade's outcome (`open`, or the refusal's status). */
function connect(api: TestApi, path: string): Promise<string> {
  return new Promise((resolve) => {
    const socket = new WebSocket(`${api.url.replace("http", "ws")}${path}`);
    socket.once("open", () => {
      socket.send(JSON.stringify({ type: "subscribe", run_id: "run_nope", after: 0 }));
      socket.once("message", () => {
        socket.close();
        resolve("open");
      });
    });
    socket.once("unexpected-response", (_request, response) => {
      resolve(String(response.statusCode));
      socket.terminate();
    });
    socket.once("error", () => resolve("error"));
  });
}

describe("the API never logs a token passed in a URL", () => {
  let api: TestApi;
  let secret: string;
  beforeAll(async () => {
    // Debug level: the request-start lines are written too.
    api = await startTestApi({ config: { logLevel: "debug" } });
    const user = await requestJson(`${api.url}/api/users`, { token: api.adminToken, body: { name: "redaction-user" } });
    secret = user.body.token;
  });
  afterAll(async () => {
    await api?.close();
  });

  it("neither the WebSocket upgrade nor HTTP requests with ?token= leave the token in any log line", async () => {
    const encoded = encodeURIComponent(secret);
    const wrongSecret = `${secret}-but-wrong`;
    expect(await connect(api, `/api/ws?token=${encoded}`)).toBe("open");
    // The name percent-encoded (URLSearchParams decodes it, so it authenticates), and a refused token.
    expect(await connect(api, `/api/ws?tok%65n=${encoded}`)).toBe("open");
    expect(await connect(api, `/api/ws?token=${encodeURIComponent(wrongSecret)}`)).toBe("401");

    // The routes that take ?token= (the event stream), one that does not (401), one with a bearer as well,
    // a request that fails to parse, the console, and a 404.
    const paths = [
      `/api/runs/run_nope/events?after=0&token=${encoded}`,
      `/api/calendar.ics?token=${encoded}`,
      `/api/me?token=${encoded}`,
      `/api/runs/run_%E0%A4%A/events?token=${encoded}`,
      `/console/chats?token=${encoded}`,
      `/api/nowhere?token=${encoded}&x=1`,
      `/api/runs/run_nope/events?TOKEN=${encoded}&token[]=${encoded}`,
    ];
    for (const path of paths) await rawRequest(api.url, { path, headers: path.startsWith("/api/runs/run_nope") ? { authorization: `Bearer ${secret}` } : {} });
    const events = await rawRequest(api.url, { path: `/api/runs/run_nope/events?token=${encoded}` });
    expect(events.status).toBe(404);

    // Lines are written when responses finish: wait for the last request's.
    const deadline = Date.now() + 5000;
    while (!api.logs.some((line) => line.includes('"statusCode":404') && line.includes("/api/runs/run_nope/events")) && Date.now() < deadline) {
      await new Promise((resolve) => setTimeout(resolve, 20));
    }
    const logs = api.logs.join("");
    // The requests were logged (the test is not vacuous), with the token's value replaced.
    expect(logs).toContain("/api/runs/run_nope/events?token=[REDACTED]");
    expect(logs).toContain("/api/me?token=[REDACTED]");
    expect(logs).toContain("/api/calendar.ics?token=[REDACTED]");
    for (const form of [secret, encoded, secret.slice(3, 24), wrongSecret]) expect(logs).not.toContain(form);
  });
});
