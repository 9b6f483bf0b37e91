import { createServer, type IncomingMessage, type ServerResponse } from "node:http";
import type { AddressInfo, Socket } from "node:net";
import { parseAnthropicRequest, parseOpenAIRequest, type FakeProviderRequest } from "./fake-provider-request.ts";
import type { FakeProviderResponse, NormalizedToolCall } from "./fake-provider-response.ts";
import { planAnthropicResponse } from "./plan-anthropic-response.ts";
import { planOpenAIResponse, type WirePlan } from "./plan-openai-response.ts";

export type FakeProviderResponder = (request: FakeProviderRequest) => FakeProviderResponse | Promise<FakeProviderResponse>;

export interface FakeProviderServerOptions {
  /** Answers requests when the queue is empty. Default: none (an unscripted request gets a 400 saying so). */
  respond?: FakeProviderResponder;
  /** Port on 127.0.0.1. Default 0 (any free port). */
  port?: number;
  /**
   * How many requests `requests` keeps (oldest dropped first). Default 1000: enough for any test,
   * bounded for the demo and the benchmark, which send many thousands.
   */
  recordLimit?: number;
  /** Answer 400 to `stream_options`, like older llama.cpp and LM Studio servers. Default false. */
  rejectStreamOptions?: boolean;
}

export interface FakeProviderServer {
  /** `http://127.0.0.1:<port>` */
  url: string;
  /** `<url>/v1`, the base URL an OpenAI client is given. */
  openaiBaseURL: string;
  /** `<url>`, the base URL an Anthropic client is given (the SDK appends `/v1/messages`). */
  anthropicBaseURL: string;
  /** The most recent requests, oldest first (up to `recordLimit`). */
  requests: FakeProviderRequest[];
  /** Every request received, including those no longer in `requests`. */
  readonly requestCount: number;
  /** Every TCP connection accepted (a client that reuses its keep-alive connections opens few). */
  readonly connectionCount: number;
  /** Queues answers; each request takes the next one before the responder is asked. */
  enqueue(...responses: FakeProviderResponse[]): void;
  /** Replaces the responder (a function of the request) used once the queue is empty. */
  script(responder: FakeProviderResponder | undefined): void;
  /** Lets every response held on `name` (`holdUntil`) go on, and those that ask for it later. */
  release(name: string): void;
  /** Responses waiting on `name` now. */
  held(name: string): number;
  /** Stops listening and drops open connections, stalled streams included. */
  close(): Promise<void>;
}

/**
 * A real HTTP server on 127.0.0.1 that speaks both provider wire formats as the real services do:
 * OpenAI `POST /v1/chat/completions` (SSE `data:` chunks ending with `data: [DONE]`, or one JSON)
 * and Anthropic `POST /v1/messages` (named SSE events, or one JSON). Used by tests, `npm run demo`
 * and the benchmark, so it adds no delay unless a response asks for one.
 */
export async function startFakeProviderServer(options: FakeProviderServerOptions = {}): Promise<FakeProviderServer> {
  const queue: FakeProviderResponse[] = [];
  const requests: FakeProviderRequest[] = [];
  const recordLimit = options.recordLimit ?? 1000;
  let responder = options.respond;
  let requestCount = 0;
  let callSequence = 0;
  const nextCallId = (api: string): string => {
    callSequence += 1;
    return api === "openai" ? `call_fake${callSequence}` : `toolu_fake${callSequence}`;
  };
  const sockets = new Set<Socket>();
  /** Latches: released names, and the responses waiting on the others. */
  const released = new Set<string>();
  const waiting = new Map<string, Set<() => void>>();
  const holdUntil = (name: string, pending: PendingResponse): Promise<void> => {
    if (released.has(name) || pending.gone) return Promise.resolve();
    return new Promise((resolve) => {
      const waiters = waiting.get(name) ?? new Set();
      waiting.set(name, waiters);
      const done = () => {
        waiters.delete(done);
        pending.wake = undefined;
        resolve();
      };
      waiters.add(done);
      pending.wake = done;
    });
  };
  /**
   * Responses that wait (a hold, a delay, a stall, slow chunks), so that close() ends their waits. A
   * set rather than an AbortSignal that each of them listens on: the benchmark's SLOW holds 500 at
   * once, and an EventTarget looks through its listeners on every add and remove.
   */
  const pendingResponses = new Set<PendingResponse>();
  let connectionCount = 0;

  const server = createServer((incoming, outgoing) => {
    handle(incoming, outgoing).catch((error: unknown) => {
      if (!outgoing.headersSent) sendJson(outgoing, 500, { error: { message: `fake provider failed: ${String(error)}`, type: "server_error" } });
      else outgoing.destroy();
    });
  });
  server.on("connection", (socket) => {
    connectionCount += 1;
    sockets.add(socket);
    socket.on("close", () => sockets.delete(socket));
  });
  // Keep-alive like real providers, so clients reuse connections and the benchmark is not bound by connects.
  server.keepAliveTimeout = 30_000;

  async function handle(incoming: IncomingMessage, outgoing: ServerResponse): Promise<void> {
    const path = (incoming.url ?? "/").split("?")[0] ?? "/";
    if (incoming.method === "GET" && path === "/v1/models") {
      sendJson(outgoing, 200, { object: "list", data: [{ id: "fake-model", object: "model", created: 0, owned_by: "agentq" }] });
      return;
    }
    const api =
      incoming.method === "POST" && path === "/v1/chat/completions"
        ? "openai"
        : incoming.method === "POST" && path === "/v1/messages"
          ? "anthropic"
          : undefined;
    if (!api) {
      await readBody(incoming);
      sendJson(outgoing, 404, { error: { message: `fake provider: no route ${incoming.method} ${path}`, type: "not_found" } });
      return;
    }
    let body: Record<string, unknown>;
    try {
      const parsed: unknown = JSON.parse(await readBody(incoming));
      if (!parsed || typeof parsed !== "object" || Array.isArray(parsed)) throw new Error("the body is not a JSON object");
      body = parsed as Record<string, unknown>;
    } catch (error) {
      sendJson(outgoing, 400, { error: { message: `fake provider: invalid JSON body (${String(error)})`, type: "invalid_request_error" } });
      return;
    }
    const request = api === "openai" ? parseOpenAIRequest(path, body, incoming.headers) : parseAnthropicRequest(path, body, incoming.headers);
    requestCount += 1;
    requests.push(request);
    if (requests.length > recordLimit) requests.splice(0, requests.length - recordLimit);

    let response: FakeProviderResponse;
    if (api === "openai" && options.rejectStreamOptions && body.stream_options !== undefined) {
      response = { error: { status: 400, message: "Unrecognized request argument supplied: stream_options" } };
    } else {
      const next = queue.shift() ?? (responder ? await responder(request) : undefined);
      response = next ?? { error: { status: 400, message: "fake provider: no scripted response left for this request (enqueue one or set a responder)" } };
    }
    const calls: NormalizedToolCall[] = (response.toolCalls ?? []).map((call) => ({
      id: call.id ?? nextCallId(api),
      name: call.name,
      argumentsText: typeof call.arguments === "string" ? call.arguments : JSON.stringify(call.arguments ?? {}),
    }));
    const plan = api === "openai" ? planOpenAIResponse(request, response, calls, requestCount) : planAnthropicResponse(request, response, calls, requestCount);
    await send(outgoing, plan, response);
  }

  async function send(outgoing: ServerResponse, plan: WirePlan, response: FakeProviderResponse): Promise<void> {
    const stallAt = response.stallAfterEvents ?? (response.stallMs !== undefined || response.stallUntil !== undefined || response.hangUp ? 0 : undefined);
    if (response.holdUntil === undefined && !response.delayMs && stallAt === undefined && !response.chunkDelayMs) {
      // Nothing to wait for, before or between parts: the whole body in one write with the headers, as
      // a fast provider's would arrive, instead of a packet per part that the client reads one by one.
      // The bytes are the same (the same chunked SSE body); only their grouping into packets differs,
      // which TCP never promised to keep.
      outgoing.writeHead(plan.status, plan.headers);
      outgoing.end(plan.parts.join(""));
      return;
    }
    const pending: PendingResponse = { gone: false, wake: undefined };
    const onGone = () => endWait(pending);
    outgoing.on("close", onGone);
    pendingResponses.add(pending);
    try {
      if (response.holdUntil !== undefined) await holdUntil(response.holdUntil, pending);
      if (response.delayMs) await wait(response.delayMs, pending);
      if (pending.gone) return;
      outgoing.writeHead(plan.status, plan.headers);
      if (stallAt === undefined && !response.chunkDelayMs) {
        outgoing.end(plan.parts.join(""));
        return;
      }
      outgoing.flushHeaders();
      for (let index = 0; index <= plan.parts.length; index += 1) {
        if (index === stallAt) {
          if (response.hangUp) {
            // end(), not destroy(): what was written reaches the client first, then the body stops short.
            outgoing.socket?.end();
            return;
          }
          if (response.stallUntil !== undefined) await holdUntil(response.stallUntil, pending);
          else await wait(response.stallMs ?? Number.POSITIVE_INFINITY, pending);
        }
        if (pending.gone || index === plan.parts.length) break;
        if (response.chunkDelayMs && index > 0) await wait(response.chunkDelayMs, pending);
        if (pending.gone) break;
        outgoing.write(plan.parts[index]);
      }
      if (!pending.gone) outgoing.end();
    } finally {
      outgoing.off("close", onGone);
      pendingResponses.delete(pending);
    }
  }

  await new Promise<void>((resolve, reject) => {
    server.once("error", reject);
    server.listen(options.port ?? 0, "127.0.0.1", () => {
      server.off("error", reject);
      resolve();
    });
  });
  const { port } = server.address() as AddressInfo;
  const url = `http://127.0.0.1:${port}`;

  return {
    url,
    openaiBaseURL: `${url}/v1`,
    anthropicBaseURL: url,
    requests,
    get connectionCount() {
      return connectionCount;
    },
    get requestCount() {
      return requestCount;
    },
    enqueue(...responses) {
      queue.push(...responses);
    },
    script(next) {
      responder = next;
    },
    release(name) {
      released.add(name);
      for (const done of [...(waiting.get(name) ?? [])]) done();
      waiting.delete(name);
    },
    held(name) {
      return waiting.get(name)?.size ?? 0;
    },
    async close() {
      for (const pending of pendingResponses) endWait(pending);
      const closed = new Promise<void>((resolve) => server.close(() => resolve()));
      for (const socket of sockets) socket.destroy();
      await closed;
    },
  };
}

function readBody(incoming: IncomingMessage): Promise<string> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    incoming.on("data", (chunk: Buffer) => chunks.push(chunk));
    incoming.on("end", () => resolve(Buffer.concat(chunks).toString("utf8")));
    incoming.on("error", reject);
  });
}

function sendJson(outgoing: ServerResponse, status: number, body: unknown): void {
  const text = JSON.stringify(body);
  outgoing.writeHead(status, { "content-type": "application/json", "content-length": Buffer.byteLength(text) });
  outgoing.end(text);
}

/**
 * A response that waits: whether its client went away or the server closed (`gone`), and the wait to
 * end at once when that happens (`wake`; a response waits on one thing at a time).
 */
interface PendingResponse {
  gone: boolean;
  wake: (() => void) | undefined;
}

/** The response is gone (its client left, or the server closes): whatever it waits for ends now. */
function endWait(pending: PendingResponse): void {
  pending.gone = true;
  pending.wake?.();
}

/** Resolves after `milliseconds`, or at once when the response is gone; Infinity waits until it is. */
function wait(milliseconds: number, pending: PendingResponse): Promise<void> {
  if (pending.gone) return Promise.resolve();
  return new Promise((resolve) => {
    const done = () => {
      if (timer) clearTimeout(timer);
      pending.wake = undefined;
      resolve();
    };
    const timer = Number.isFinite(milliseconds) ? setTimeout(done, milliseconds) : undefined;
    pending.wake = done;
  });
}
