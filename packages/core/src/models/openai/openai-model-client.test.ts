import { describe, expect, it } from "vitest";
import { type FakeProviderServer, startFakeProviderServer } from "../../testing/fake-provider-server.ts";
import { freePort, modelRequest, useFakeProviderServer } from "../model-client-test-setup.ts";
import type { ModelRequest } from "../model-client.ts";
import { ModelProviderError, StreamTimeoutError } from "../model-errors.ts";
import { createOpenAIModelClient } from "./openai-model-client.ts";

let server: FakeProviderServer;
useFakeProviderServer((started) => (server = started));

const readFileTool = {
  name: "read_file",
  description: "Read a file",
  parameters: { type: "object", properties: { path: { type: "string" } }, required: ["path"] },
};

function request(overrides: Partial<ModelRequest> = {}): ModelRequest {
  return modelRequest("llama3.1", overrides);
}

function client(overrides: Partial<Parameters<typeof createOpenAIModelClient>[0]> = {}) {
  return createOpenAIModelClient({ baseURL: server.openaiBaseURL, apiKey: "sk-test", retry: { baseDelayMs: 1, maxDelayMs: 5 }, ...overrides });
}

describe("createOpenAIModelClient", () => {
  it("streams text deltas in order and returns the whole text, usage and finish reason", async () => {
    server.enqueue({ text: "The quick brown fox jumps over the lazy dog.", textChunkSize: 5, usage: { inputTokens: 42, outputTokens: 11 } });
    const deltas: string[] = [];
    const response = await client().complete(request({ onTextDelta: (text) => deltas.push(text) }));
    expect(deltas.length).toBeGreaterThan(3);
    expect(deltas.join("")).toBe("The quick brown fox jumps over the lazy dog.");
    expect(response.text).toBe("The quick brown fox jumps over the lazy dog.");
    expect(response.usage).toEqual({ inputTokens: 42, outputTokens: 11 });
    expect(response.finishReason).toBe("stop");
    expect(response.toolCalls).toEqual([]);
    expect(server.requests[0]!.body.stream).toBe(true);
    expect(server.requests[0]!.body.stream_options).toEqual({ include_usage: true });
    expect(server.requests[0]!.headers.authorization).toBe("Bearer sk-test");
  });

  it("reuses its keep-alive connections once a stream was read to its end, rather than a connection a request", async () => {
    const model = client();
    const connectionsBefore = server.connectionCount;
    for (let index = 0; index < 6; index += 1) {
      server.enqueue({ text: `answer ${index}`, textChunkSize: 3 });
      expect((await model.complete(request())).text).toBe(`answer ${index}`);
    }
    // The agent frees a socket a moment after its response ends: back-to-back requests may open a second one.
    expect(server.connectionCount - connectionsBefore).toBeLessThanOrEqual(2);
  });

  it("keeps every connection of a wave of concurrent requests for the next wave, past node's default of 256 idle ones", async () => {
    const model = client();
    const wave = 300;
    const connectionsBefore = server.connectionCount;
    const sendWave = async (label: string) => {
      for (let index = 0; index < wave; index += 1) server.enqueue({ text: `${label} ${index}`, delayMs: 100 });
      const answers = await Promise.all(Array.from({ length: wave }, () => model.complete(request())));
      expect(answers.every((answer) => answer.text.startsWith(label))).toBe(true);
    };
    await sendWave("first");
    const opened = server.connectionCount - connectionsBefore;
    expect(opened).toBeGreaterThan(256);
    await sendWave("second");
    // With node's default maxFreeSockets (256), the second wave reopened all but 256 of the first wave's connections.
    expect(server.connectionCount - connectionsBefore - opened).toBeLessThanOrEqual(2);
  });

  it("rebuilds several tool calls whose arguments arrive split across many chunks", async () => {
    server.enqueue({
      text: "Reading both.",
      toolCalls: [
        { id: "call_a", name: "read_file", arguments: { path: "src/a-rather-long-file-name.ts" } },
        { id: "call_b", name: "read_file", arguments: { path: "b.ts" } },
      ],
      argumentsChunkSize: 3,
    });
    const response = await client().complete(request({ tools: [readFileTool] }));
    expect(response.toolCalls).toEqual([
      { id: "call_a", name: "read_file", argumentsText: '{"path":"src/a-rather-long-file-name.ts"}' },
      { id: "call_b", name: "read_file", argumentsText: '{"path":"b.ts"}' },
    ]);
    expect(response.finishReason).toBe("tool_calls");
    expect(response.text).toBe("Reading both.");
    const sentTools = server.requests[0]!.body.tools as unknown[];
    expect(sentTools).toEqual([{ type: "function", function: readFileTool }]);
  });

  it("sends no tools field when the request has no tools", async () => {
    server.enqueue({ text: "ok" });
    await client().complete(request());
    expect("tools" in server.requests[0]!.body).toBe(false);
  });

  it("maps assistant tool calls and tool results onto the wire", async () => {
    server.enqueue({ text: "done" });
    await client().complete(
      request({
        messages: [
          { role: "system", content: "be brief" },
          { role: "user", content: "read a" },
          { role: "assistant", content: null, toolCalls: [{ id: "call_1", name: "read_file", argumentsText: "" }] },
          { role: "tool", toolCallId: "call_1", content: "contents of a" },
        ],
      }),
    );
    expect(server.requests[0]!.body.messages).toEqual([
      { role: "system", content: "be brief" },
      { role: "user", content: "read a" },
      { role: "assistant", content: null, tool_calls: [{ id: "call_1", type: "function", function: { name: "read_file", arguments: "{}" } }] },
      { role: "tool", tool_call_id: "call_1", content: "contents of a" },
    ]);
  });

  it("retries a 429 (honouring retry-after) and then succeeds", async () => {
    server.enqueue({ error: { status: 429, message: "slow down", headers: { "retry-after-ms": "20" } } }, { text: "after the wait" });
    const retries: { delayMs: number; status: number | undefined }[] = [];
    const response = await client({ retry: { baseDelayMs: 1, onRetry: ({ delayMs, error }) => retries.push({ delayMs, status: error.status }) } }).complete(
      request(),
    );
    expect(response.text).toBe("after the wait");
    expect(retries).toEqual([{ delayMs: 20, status: 429 }]);
    expect(server.requests).toHaveLength(2);
  });

  it("retries a 500 and then succeeds", async () => {
    server.enqueue({ error: { status: 500 } }, { error: { status: 503 } }, { text: "third time" });
    const response = await client().complete(request());
    expect(response.text).toBe("third time");
    expect(server.requests).toHaveLength(3);
  });

  it("does not retry a 400 and reports it as not retryable", async () => {
    // Nothing else is queued: a retry would reach the server a second time and show in `requests`.
    server.enqueue({ error: { status: 400, message: "bad tool schema" } });
    const error = await client()
      .complete(request())
      .catch((caught: unknown) => caught);
    expect(error).toBeInstanceOf(ModelProviderError);
    expect((error as ModelProviderError).retryable).toBe(false);
    expect((error as ModelProviderError).status).toBe(400);
    expect((error as ModelProviderError).message).toContain("bad tool schema");
    expect(server.requests).toHaveLength(1);
  });

  it("gives up after maxRetries with the last retryable error", async () => {
    server.enqueue({ error: { status: 502 } }, { error: { status: 502 } });
    const error = await client({ maxRetries: 1 })
      .complete(request())
      .catch((caught: unknown) => caught);
    expect(error).toBeInstanceOf(ModelProviderError);
    expect((error as ModelProviderError).retryable).toBe(true);
    expect(server.requests).toHaveLength(2);
  });

  it("ends a stalled stream with StreamTimeoutError", async () => {
    server.enqueue({ text: "partial answer that stalls", stallAfterEvents: 2 });
    const started = Date.now();
    const error = await client()
      .complete(request({ inactivityTimeoutMs: 200 }))
      .catch((caught: unknown) => caught);
    expect(error).toBeInstanceOf(StreamTimeoutError);
    expect(Date.now() - started).toBeLessThan(3000);
  });

  it("measures inactivity between chunks, not the whole response time", async () => {
    server.enqueue({ text: "slow but steady stream", textChunkSize: 4, chunkDelayMs: 60 });
    const started = Date.now();
    const response = await client().complete(request({ inactivityTimeoutMs: 400 }));
    expect(response.text).toBe("slow but steady stream");
    expect(Date.now() - started).toBeGreaterThan(400);
  });

  it("times out a server that never sends its headers", async () => {
    server.enqueue({ text: "late", delayMs: 60_000 });
    const error = await client({ maxRetries: 0 })
      .complete(request({ inactivityTimeoutMs: 150 }))
      .catch((caught: unknown) => caught);
    expect(error).toBeInstanceOf(StreamTimeoutError);
  });

  it("stops promptly when the caller aborts mid-stream and throws the abort reason", async () => {
    server.enqueue({ text: "a long answer that will be cancelled", textChunkSize: 4, stallAfterEvents: 3 });
    const controller = new AbortController();
    const deltas: string[] = [];
    const pending = client().complete(
      request({
        signal: controller.signal,
        onTextDelta: (text) => {
          deltas.push(text);
          if (deltas.length === 2) setTimeout(() => controller.abort(), 10);
        },
      }),
    );
    const started = Date.now();
    const error = await pending.catch((caught: unknown) => caught);
    expect(Date.now() - started).toBeLessThan(1000);
    expect(controller.signal.aborted).toBe(true);
    expect((error as Error).name).toBe("AbortError");
    expect(deltas).toEqual(["a lo", "ng a"]);
  });

  it("does not retry a failure after text was already streamed to the caller", async () => {
    server.enqueue({ text: "some text then a crash", hangUp: true, stallAfterEvents: 3 });
    const deltas: string[] = [];
    const error = await client()
      .complete(request({ onTextDelta: (text) => deltas.push(text) }))
      .catch((caught: unknown) => caught);
    expect(error).toBeInstanceOf(ModelProviderError);
    expect(deltas.join("")).toBe("some text then a");
    expect(server.requests).toHaveLength(1);
  });

  it("names the URL it tried when the connection is refused", async () => {
    const port = await freePort();
    const baseURL = `http://127.0.0.1:${port}/v1`;
    const error = await createOpenAIModelClient({ baseURL, maxRetries: 0 })
      .complete(request())
      .catch((caught: unknown) => caught);
    expect(error).toBeInstanceOf(ModelProviderError);
    expect((error as ModelProviderError).message).toContain(baseURL);
    expect((error as ModelProviderError).message).toContain("ECONNREFUSED");
    expect((error as ModelProviderError).retryable).toBe(true);
  });

  it("names the base URL when the endpoint answers 404 (a base URL missing /v1)", async () => {
    const error = await createOpenAIModelClient({ baseURL: server.url, maxRetries: 0 })
      .complete(request())
      .catch((caught: unknown) => caught);
    expect(error).toBeInstanceOf(ModelProviderError);
    expect((error as ModelProviderError).status).toBe(404);
    expect((error as ModelProviderError).retryable).toBe(false);
    expect((error as ModelProviderError).message).toContain(`is ${server.url} the right base URL?`);
  });

  it("falls back to no stream_options on a server that rejects them, and estimates usage", async () => {
    const strict = await startFakeProviderServer({ rejectStreamOptions: true, respond: () => ({ text: "fine without usage" }) });
    try {
      const strictClient = createOpenAIModelClient({ baseURL: strict.openaiBaseURL, maxRetries: 0 });
      const first = await strictClient.complete(request({ messages: [{ role: "user", content: "count these few words please" }] }));
      expect(first.text).toBe("fine without usage");
      expect(first.usage.inputTokens).toBeGreaterThan(5);
      expect(first.usage.outputTokens).toBeGreaterThan(0);
      await strictClient.complete(request());
      expect(strict.requests.map((sent) => "stream_options" in sent.body)).toEqual([true, false, false]);
    } finally {
      await strict.close();
    }
  });

  it("accepts a whole tool call in one chunk with no id, from a liberal server", async () => {
    server.enqueue({ toolCalls: [{ id: "", name: "read_file", arguments: '{"path":"x"}' }], argumentsChunkSize: 1000, finishReason: "stop" });
    const response = await client().complete(request({ tools: [readFileTool] }));
    expect(response.toolCalls).toHaveLength(1);
    expect(response.toolCalls[0]!.name).toBe("read_file");
    expect(response.toolCalls[0]!.argumentsText).toBe('{"path":"x"}');
    expect(response.toolCalls[0]!.id).toMatch(/^call_/);
    expect(response.finishReason).toBe("tool_calls");
  });
});
