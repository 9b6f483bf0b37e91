// `npx tsx bench/api-request-cost.ts`: the API process's CPU per request for a few routes, against a real
// agentq (scripts/local-stack.ts): what the HTTP server and express cost before any handler
// (`GET /healthz`: no token, no query), with a token lookup and a small read (`GET /api/me`), and a run's
// creation (`POST /api/chats/:id/runs`, its one-round runs executed by the worker meanwhile). Prints one
// JSON line per route; REQUEST_COST_REQUESTS (default 2,000) requests each, 50 in flight, after as many
// unmeasured ones of the same route. Figures, not assertions: compare two versions interleaved.
import { scenarioInput } from "@agentq/core/testing";
import { cpuMs, startLocalStack } from "../scripts/local-stack.ts";
import { liftBenchLimits, pool, request, requestJson } from "./bench-requests.ts";

const REQUESTS = Number(process.env.REQUEST_COST_REQUESTS ?? 2000);
const CONCURRENCY = 50;

const stack = await startLocalStack({ name: "request_cost", workerConcurrency: CONCURRENCY });
try {
  await liftBenchLimits(stack);

  const workspace = (await requestJson(stack, "POST", "/api/workspaces", { name: "request-cost" })) as { id: string };
  const chats: string[] = [];
  await pool(2 * REQUESTS, CONCURRENCY, async () => {
    chats.push(((await requestJson(stack, "POST", "/api/chats", { workspace_id: workspace.id })) as { id: string }).id);
  });
  const input = scenarioInput([{ text: "done" }]);
  let nextChat = 0;

  const routes: [string, () => Promise<unknown>][] = [
    ["GET /healthz", () => request(stack, "GET", "/healthz")],
    ["GET /api/me", () => requestJson(stack, "GET", "/api/me")],
    // Each run in a chat of its own: a second run of a chat would be refused while the first is active.
    ["POST /api/chats/:id/runs", () => requestJson(stack, "POST", `/api/chats/${chats[nextChat++]}/runs`, { input, tools: ["read_file"] })],
  ];
  for (const [route, send] of routes) {
    await pool(REQUESTS, CONCURRENCY, async () => void (await send()));
    const before = cpuMs(stack.api.pid) ?? 0;
    const started = performance.now();
    await pool(REQUESTS, CONCURRENCY, async () => void (await send()));
    const seconds = (performance.now() - started) / 1000;
    const apiCpuMs = (cpuMs(stack.api.pid) ?? 0) - before;
    console.log(
      JSON.stringify({
        route,
        requests: REQUESTS,
        api_cpu_ms_per_request: Number((apiCpuMs / REQUESTS).toFixed(3)),
        requests_per_s: Math.round(REQUESTS / seconds),
      }),
    );
  }
} finally {
  await stack.close();
}
