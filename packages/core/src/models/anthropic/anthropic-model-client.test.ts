import { describe, expect, it } from "vitest";
import type { FakeProviderServer } from "../../testing/fake-provider-server.ts";
import { freePort, modelRequest, useFakeProviderServer } from "../model-client-test-setup.ts";
import type { ModelRequest } from "../model-client.ts";
import { ModelProviderError, StreamTimeoutError } from "../model-errors.ts";
import { createAnthropicModelClient } from "./anthropic-model-client.ts";

let server: FakeProviderServer;
useFakeProviderServer((started) => (server = started));

const writeFileTool = {
  name: "write_file",
  description: "Write a file",
  parameters: { type: "object", properties: { path: { type: "string" }, content: { type: "string" } } },
};

function request(overrides: Partial<ModelRequest> = {}): ModelRequest {
  return modelRequest("claude-sonnet-4-5", overrides);
}

function client(overrides: Partial<Parameters<typeof createAnthropicModelClient>[0]> = {}) {
  return createAnthropicModelClient({ apiKey: "sk-ant-test", baseURL: server.anthropicBaseURL, retry: { baseDelayMs: 1, maxDelayMs: 5 }, ...overrides });
}

describe("createAnthropicModelClient", () => {
  it("streams text deltas in order and reports usage and the stop reason", async () => {
    server.enqueue({ text: "Claude answers in several small pieces.", textChunkSize: 6, usage: { inputTokens: 120, outputTokens: 9 } });
    const deltas: string[] = [];
    const response = await client().complete(request({ onTextDelta: (text) => deltas.push(text) }));
    expect(deltas.length).toBeGreaterThan(3);
    expect(deltas.join("")).toBe("Claude answers in several small pieces.");
    expect(response).toMatchObject({
      text: "Claude answers in several small pieces.",
      toolCalls: [],
      usage: { inputTokens: 120, outputTokens: 9 },
      finishReason: "stop",
    });
    const sent = server.requests[0]!;
    expect(sent.body.max_tokens).toBe(4096);
    expect(sent.body.stream).toBe(true);
    // This SDK major sends the key as a bearer token (older ones used x-api-key); either carries it.
    expect(`${sent.headers["x-api-key"] ?? ""} ${sent.headers.authorization ?? ""}`).toContain("sk-ant-test");
    expect(sent.headers["anthropic-version"]).toBeTruthy();
  });

  it("accumulates input_json_delta fragments of several tool_use blocks", async () => {
    server.enqueue({
      text: "Writing two files.",
      toolCalls: [
        { id: "toolu_1", name: "write_file", arguments: { path: "a.txt", content: "alpha beta gamma" } },
        { id: "toolu_2", name: "write_file", arguments: { path: "b.txt", content: "delta" } },
      ],
      argumentsChunkSize: 4,
    });
    const response = await client().complete(request({ tools: [writeFileTool] }));
    expect(response.finishReason).toBe("tool_calls");
    expect(response.toolCalls).toEqual([
      { id: "toolu_1", name: "write_file", argumentsText: '{"path":"a.txt","content":"alpha beta gamma"}' },
      { id: "toolu_2", name: "write_file", argumentsText: '{"path":"b.txt","content":"delta"}' },
    ]);
    expect(server.requests[0]!.body.tools).toEqual([{ name: "write_file", description: "Write a file", input_schema: writeFileTool.parameters }]);
  });

  it("sends system messages as `system` and merges consecutive tool results into one user turn", async () => {
    server.enqueue({ text: "done" });
    await client().complete(
      request({
        messages: [
          { role: "system", content: "You are terse." },
          { role: "user", content: "read both" },
          {
            role: "assistant",
            content: "Reading.",
            toolCalls: [
              { id: "toolu_a", name: "read_file", argumentsText: '{"path":"a"}' },
              { id: "toolu_b", name: "read_file", argumentsText: "" },
            ],
          },
          { role: "tool", toolCallId: "toolu_a", content: "A" },
          { role: "tool", toolCallId: "toolu_b", content: "no such file", isError: true },
        ],
      }),
    );
    const body = server.requests[0]!.body;
    expect(body.system).toBe("You are terse.");
    expect(body.messages).toEqual([
      { role: "user", content: [{ type: "text", text: "read both" }] },
      {
        role: "assistant",
        content: [
          { type: "text", text: "Reading." },
          { type: "tool_use", id: "toolu_a", name: "read_file", input: { path: "a" } },
          { type: "tool_use", id: "toolu_b", name: "read_file", input: {} },
        ],
      },
      {
        role: "user",
        content: [
          { type: "tool_result", tool_use_id: "toolu_a", content: "A" },
          { type: "tool_result", tool_use_id: "toolu_b", content: "no such file", is_error: true },
        ],
      },
    ]);
  });

  it("retries a 429 then succeeds, and retries 529 overloaded", async () => {
    server.enqueue({ error: { status: 429, headers: { "retry-after": "0" } } }, { error: { status: 529 } }, { text: "finally" });
    const statuses: (number | undefined)[] = [];
    const response = await client({ retry: { baseDelayMs: 1, onRetry: ({ error }) => statuses.push(error.status) } }).complete(request());
    expect(response.text).toBe("finally");
    expect(statuses).toEqual([429, 529]);
  });

  it("retries an overloaded_error sent inside the stream before any text", async () => {
    server.enqueue({ text: "never seen", streamError: { afterEvents: 1 } }, { text: "second try" });
    const deltas: string[] = [];
    const response = await client().complete(request({ onTextDelta: (text) => deltas.push(text) }));
    expect(response.text).toBe("second try");
    expect(deltas.join("")).toBe("second try");
    expect(server.requests).toHaveLength(2);
  });

  it("does not retry an in-stream error after text was published", async () => {
    server.enqueue({ text: "published text here", textChunkSize: 5, streamError: { afterEvents: 4, message: "Overloaded" } });
    const error = await client()
      .complete(request({ onTextDelta: () => {} }))
      .catch((caught: unknown) => caught);
    expect(error).toBeInstanceOf(ModelProviderError);
    expect((error as ModelProviderError).retryable).toBe(true);
    expect((error as ModelProviderError).message).toContain("Overloaded");
    expect(server.requests).toHaveLength(1);
  });

  it("does not retry a 400", async () => {
    server.enqueue({ error: { status: 400, message: "messages: roles must alternate" } });
    const error = await client()
      .complete(request())
      .catch((caught: unknown) => caught);
    expect(error).toBeInstanceOf(ModelProviderError);
    expect((error as ModelProviderError).retryable).toBe(false);
    expect((error as ModelProviderError).message).toContain("roles must alternate");
    expect(server.requests).toHaveLength(1);
  });

  it("ends a stalled stream with StreamTimeoutError", async () => {
    server.enqueue({ text: "stalls after the start", stallAfterEvents: 3 });
    const error = await client()
      .complete(request({ inactivityTimeoutMs: 200 }))
      .catch((caught: unknown) => caught);
    expect(error).toBeInstanceOf(StreamTimeoutError);
  });

  it("aborts mid-stream promptly with the caller's reason", async () => {
    server.enqueue({ text: "this will be cut short", textChunkSize: 3, stallAfterEvents: 4 });
    const controller = new AbortController();
    const reason = new Error("cancelled by the user");
    reason.name = "AbortError";
    const pending = client().complete(request({ signal: controller.signal, onTextDelta: () => setTimeout(() => controller.abort(reason), 5) }));
    const error = await pending.catch((caught: unknown) => caught);
    expect(error).toBe(reason);
  });

  it("names the URL it tried when the connection is refused", async () => {
    const port = await freePort();
    const error = await createAnthropicModelClient({ apiKey: "k", baseURL: `http://127.0.0.1:${port}`, maxRetries: 0 })
      .complete(request())
      .catch((caught: unknown) => caught);
    expect(error).toBeInstanceOf(ModelProviderError);
    expect((error as ModelProviderError).message).toContain(`http://127.0.0.1:${port}`);
    expect((error as ModelProviderError).retryable).toBe(true);
  });
});
