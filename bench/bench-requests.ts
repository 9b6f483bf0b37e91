// What the bench workloads share: an API request that throws on an error answer, a bounded pool, and
// the bench user's limits lifted.
import http from "node:http";

/** Where requests go, and as whom. */
export interface BenchClient {
  url: string;
  token: string;
}

/**
 * Keep-alive connections for every request of the bench: the bench shares the machine's two cores with
 * what it measures, so its client is node:http (about a third of fetch's CPU a request) rather than fetch.
 */
const AGENT = new http.Agent({ keepAlive: true, maxSockets: 256 });

/**
 * One API request; its status and parsed JSON answer (undefined for an empty body). A request sent on a
 * kept-alive socket that the server closed as it was reused fails with ECONNRESET before the server read
 * it; it is sent once more on a new socket, as Node's documentation of `request.reusedSocket` advises.
 */
export async function request(client: BenchClient, method: string, path: string, body?: unknown): Promise<{ status: number; json: any }> {
  try {
    return await requestOnce(client, method, path, body);
  } catch (error) {
    if (!(error instanceof ResetReusedSocket)) throw error;
    return requestOnce(client, method, path, body);
  }
}

/** A kept-alive socket that the server had closed when the request went out on it. */
class ResetReusedSocket extends Error {}

/** Where each API lives (`url` parsed once): node:http parses a URL string again on every request. */
const ORIGINS = new Map<string, { host: string; port: number }>();

function originOf(url: string): { host: string; port: number } {
  let origin = ORIGINS.get(url);
  if (!origin) {
    const parsed = new URL(url);
    origin = { host: parsed.hostname, port: Number(parsed.port || 80) };
    ORIGINS.set(url, origin);
  }
  return origin;
}

function requestOnce(client: BenchClient, method: string, path: string, body?: unknown): Promise<{ status: number; json: any }> {
  const payload = body !== undefined ? JSON.stringify(body) : undefined;
  const { host, port } = originOf(client.url);
  return new Promise((resolve, reject) => {
    const outgoing = http.request(
      {
        host,
        port,
        path,
        method,
        agent: AGENT,
        headers: {
          authorization: `Bearer ${client.token}`,
          ...(payload !== undefined ? { "content-type": "application/json", "content-length": Buffer.byteLength(payload) } : {}),
        },
      },
      (response) => {
        const pieces: Buffer[] = [];
        response.on("data", (piece: Buffer) => pieces.push(piece));
        response.on("end", () => {
          const text = pieces.length === 1 ? pieces[0]!.toString("utf8") : Buffer.concat(pieces).toString("utf8");
          resolve({ status: response.statusCode ?? 0, json: text === "" ? undefined : JSON.parse(text) });
        });
        response.on("error", reject);
      },
    );
    outgoing.on("error", (error: NodeJS.ErrnoException) => {
      reject(outgoing.reusedSocket && error.code === "ECONNRESET" ? new ResetReusedSocket(`${method} ${path}: ${error.message}`) : error);
    });
    outgoing.end(payload);
  });
}

/** One API request; its JSON answer, or an error naming the request and the answer. */
export async function requestJson(client: BenchClient, method: string, path: string, body?: unknown): Promise<any> {
  const { status, json } = await request(client, method, path, body);
  if (status < 200 || status >= 300) throw new Error(`${method} ${path}: ${status} ${JSON.stringify(json)}`);
  return json;
}

/** Runs `count` tasks with at most `concurrency` at once. */
export async function pool(count: number, concurrency: number, task: (index: number) => Promise<void>): Promise<void> {
  let next = 0;
  await Promise.all(
    Array.from({ length: Math.min(concurrency, count) }, async () => {
      while (next < count) {
        const index = next;
        next += 1;
        await task(index);
      }
    }),
  );
}

/**
 * The engine workloads run one user's runs at the bench's concurrency: that user may have that many
 * active (max_active_runs, default 20) and the API answers every request (api_rate_limit_per_minute, default 600).
 */
export async function liftBenchLimits(client: BenchClient): Promise<void> {
  await requestJson(client, "PATCH", "/api/settings", { api_rate_limit_per_minute: 0 });
  const me = (await requestJson(client, "GET", "/api/me")) as { id: string };
  await requestJson(client, "PATCH", `/api/users/${me.id}`, { max_active_runs: 100_000 });
  // The API re-reads api_rate_limit_per_minute at most every 5 s (apps/api/src/http/rate-limit.ts): the
  // requests above cached the default, so wait until the lifted limit applies.
  await new Promise((resolve) => setTimeout(resolve, 5500));
}
