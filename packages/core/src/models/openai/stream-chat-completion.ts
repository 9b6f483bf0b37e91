import http from "node:http";
import https from "node:https";

/** The part of a Chat Completions stream chunk the client reads; every field optional (servers differ). */
export interface ChatCompletionChunk {
  choices?: {
    index?: number | null;
    delta?: { content?: string | null; tool_calls?: import("./openai-tool-call-accumulator.ts").OpenAIToolCallDelta[] | null } | null;
    finish_reason?: string | null;
  }[];
  usage?: { prompt_tokens?: number | null; completion_tokens?: number | null } | null;
  error?: unknown;
}

/**
 * A provider's refusal, in the shape the SDKs' errors have (`status`, `headers.get`, `error`: the
 * parsed body), so toModelProviderError treats both alike.
 */
export class ChatCompletionHttpError extends Error {
  readonly status: number | undefined;
  readonly headers: { get(name: string): string | null };
  readonly error: unknown;

  constructor(status: number | undefined, headers: http.IncomingHttpHeaders, body: unknown, text: string) {
    super(status === undefined ? text : `${status} ${text}`);
    this.name = "ChatCompletionHttpError";
    this.status = status;
    this.headers = {
      get: (name) => {
        const value = headers[name.toLowerCase()];
        return Array.isArray(value) ? (value[0] ?? null) : (value ?? null);
      },
    };
    this.error = body;
  }
}

/** Longest error body read from a refusing provider (the rest is dropped). 64 KiB. */
const MAX_ERROR_BODY_BYTES = 64 * 1024;

export interface ChatCompletionTransport {
  /**
   * POSTs `body` (the JSON request, already serialized) to `<baseURL>/chat/completions` and yields the
   * stream's chunks as they arrive. A non-2xx answer throws ChatCompletionHttpError; an aborted
   * `signal` destroys the request and throws its reason.
   */
  stream(body: string, signal: AbortSignal): AsyncGenerator<ChatCompletionChunk>;
}

/**
 * Every connection stays open for the next request once its response has ended, until the provider
 * closes it. Node keeps at most 256 idle ones by default: a worker whose slots all wait on a slow
 * model (SLOW: 500 requests at once) closed the rest after each round and opened them again for the
 * next, a TCP (or TLS) handshake per request on both sides. A connection is idle only because a
 * request of this worker used it, so their number is bounded by the worker's concurrency.
 */
const KEEP_ALIVE_AGENT = { keepAlive: true, maxFreeSockets: Number.POSITIVE_INFINITY } as const;

/**
 * Chat Completions streaming over node:http with keep-alive connections: a round's request is one
 * write and its server-sent events are parsed as they arrive. This is the worker's hottest outbound
 * call (every round of every run): the SDK's fetch, web streams and SSE decoding cost a run about
 * three times what this does (bench: 1.8 against 0.7 ms of CPU a request, client and fake server).
 */
export function createChatCompletionTransport(options: { baseURL: string; apiKey: string | undefined }): ChatCompletionTransport {
  const url = new URL(`${options.baseURL}/chat/completions`);
  const secure = url.protocol === "https:";
  const agent = secure ? new https.Agent(KEEP_ALIVE_AGENT) : new http.Agent(KEEP_ALIVE_AGENT);
  const request = secure ? https.request : http.request;
  const headers: http.OutgoingHttpHeaders = {
    "content-type": "application/json",
    accept: "text/event-stream",
    ...(options.apiKey ? { authorization: `Bearer ${options.apiKey}` } : {}),
  };

  return {
    async *stream(body, signal) {
      signal.throwIfAborted();
      const outgoing = request(url, { method: "POST", agent, headers: { ...headers, "content-length": Buffer.byteLength(body) } });
      const onAbort = () => outgoing.destroy(signal.reason instanceof Error ? signal.reason : new Error(String(signal.reason)));
      signal.addEventListener("abort", onAbort, { once: true });
      // A stream read to its end hands its connection back to the agent for the next request; one
      // abandoned (an abort, an error, a consumer that stopped) is destroyed with its connection.
      let finished = false;
      try {
        const response = await new Promise<http.IncomingMessage>((resolve, reject) => {
          outgoing.once("response", resolve);
          outgoing.once("error", reject);
          outgoing.end(body);
        });
        response.setEncoding("utf8");
        const status = response.statusCode ?? 0;
        if (status < 200 || status >= 300) throw await refusal(response);
        yield* serverSentChunks(response);
        await readToEnd(response);
        finished = response.complete;
      } catch (error) {
        signal.throwIfAborted();
        throw error;
      } finally {
        signal.removeEventListener("abort", onAbort);
        if (!finished && !outgoing.destroyed) outgoing.destroy();
      }
    },
  };
}

/** How long a response may take to end after `[DONE]` before its connection is given up. */
const END_AFTER_DONE_MS = 1000;

/**
 * After `[DONE]` the provider still ends the HTTP response (the chunked terminator, usually in the
 * same packet): read to its end, so the keep-alive connection is back with the agent before the next
 * request, rather than destroyed (a new TCP connection per model request cost the worker about 0.3 ms
 * a request, and the server as much). A response that does not end soon is destroyed.
 */
async function readToEnd(response: http.IncomingMessage): Promise<void> {
  if (response.complete) return;
  let giveUp: NodeJS.Timeout | undefined;
  const ended = new Promise<void>((resolve) => {
    response.once("end", resolve);
    response.once("close", resolve);
    giveUp = setTimeout(resolve, END_AFTER_DONE_MS);
  });
  response.resume();
  await ended;
  clearTimeout(giveUp);
  if (!response.complete) response.destroy();
}

/** The `data:` payloads of a server-sent event stream, parsed, up to `[DONE]` or the end. */
async function* serverSentChunks(response: http.IncomingMessage): AsyncGenerator<ChatCompletionChunk> {
  let buffered = "";
  let data: string[] = [];
  // Leaving the loop at `[DONE]` must not destroy the response: its connection is reused.
  for await (const piece of response.iterator({ destroyOnReturn: false }) as AsyncIterable<string>) {
    buffered += piece;
    let newline = buffered.indexOf("\n");
    while (newline >= 0) {
      const line = buffered.slice(0, newline).replace(/\r$/, "");
      buffered = buffered.slice(newline + 1);
      newline = buffered.indexOf("\n");
      if (line.startsWith("data:")) {
        data.push(line.slice(line.startsWith("data: ") ? 6 : 5));
        continue;
      }
      if (line !== "" || data.length === 0) continue;
      // A blank line ends an event.
      const payload = data.join("\n");
      data = [];
      if (payload === "[DONE]") return;
      const chunk = JSON.parse(payload) as ChatCompletionChunk;
      if (chunk.error !== undefined) throw new ChatCompletionHttpError(undefined, {}, chunk, messageOf(chunk) ?? "the provider sent an error in the stream");
      yield chunk;
    }
  }
}

async function refusal(response: http.IncomingMessage): Promise<ChatCompletionHttpError> {
  let text = "";
  for await (const piece of response as AsyncIterable<string>) {
    if (text.length < MAX_ERROR_BODY_BYTES) text += piece;
  }
  let body: unknown;
  try {
    body = JSON.parse(text);
  } catch {
    body = undefined;
  }
  return new ChatCompletionHttpError(response.statusCode, response.headers, body, messageOf(body) ?? (text.trim() || "(no body)"));
}

function messageOf(body: unknown): string | undefined {
  if (!body || typeof body !== "object") return undefined;
  const record = body as Record<string, unknown>;
  if (typeof record.message === "string") return record.message;
  return record.error && typeof record.error === "object" ? messageOf(record.error) : undefined;
}
