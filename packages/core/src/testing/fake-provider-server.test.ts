import { createServer } from "node:http";
import type { AddressInfo } from "node:net";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { lastToolResult } from "./fake-provider-request.ts";
import { startFakeProviderServer, type FakeProviderServer } from "./fake-provider-server.ts";

let server: FakeProviderServer;
beforeAll(async () => {
  server = await startFakeProviderServer();
});
afterAll(async () => {
  await server.close();
});

async function post(path: string, body: unknown): Promise<Response> {
  return fetch(`${server.url}${path}`, { method: "POST", headers: { "content-type": "application/json" }, body: JSON.stringify(body) });
}

describe("startFakeProviderServer", () => {
  it("answers a non-streaming Chat Completions request with one chat.completion", async () => {
    server.enqueue({ text: "plain", toolCalls: [{ id: "call_x", name: "list_files", arguments: {} }] });
    const response = await post("/v1/chat/completions", { model: "m", messages: [{ role: "user", content: "hi" }] });
    const body = (await response.json()) as {
      object: string;
      choices: { message: { content: string; tool_calls: unknown[] }; finish_reason: string }[];
      usage: { prompt_tokens: number };
    };
    expect(response.status).toBe(200);
    expect(body.object).toBe("chat.completion");
    expect(body.choices[0]!.message.content).toBe("plain");
    expect(body.choices[0]!.message.tool_calls).toEqual([{ id: "call_x", type: "function", function: { name: "list_files", arguments: "{}" } }]);
    expect(body.choices[0]!.finish_reason).toBe("tool_calls");
    expect(body.usage.prompt_tokens).toBeGreaterThan(0);
  });

  it("answers a non-streaming Messages request with one message", async () => {
    server.enqueue({ text: "hello", usage: { inputTokens: 7, outputTokens: 2 } });
    const response = await post("/v1/messages", { model: "claude", max_tokens: 10, messages: [{ role: "user", content: "hi" }] });
    const body = (await response.json()) as Record<string, unknown>;
    expect(body).toMatchObject({
      type: "message",
      role: "assistant",
      content: [{ type: "text", text: "hello" }],
      stop_reason: "end_turn",
      usage: { input_tokens: 7, output_tokens: 2 },
    });
  });

  it("streams Chat Completions as data: chunks ending with [DONE], usage only when asked", async () => {
    server.enqueue({ text: "abcdefghij", textChunkSize: 4, usage: { inputTokens: 3, outputTokens: 4 } });
    const text = await (await post("/v1/chat/completions", { model: "m", stream: true, stream_options: { include_usage: true }, messages: [] })).text();
    const events = text.split("\n\n").filter(Boolean);
    expect(events.at(-1)).toBe("data: [DONE]");
    const chunks = events
      .slice(0, -1)
      .map((event) => JSON.parse(event.slice("data: ".length)) as { choices: { delta: { content?: string } }[]; usage: unknown });
    expect(chunks.map((chunk) => chunk.choices[0]?.delta.content ?? "").join("")).toBe("abcdefghij");
    expect(chunks.at(-1)!.usage).toEqual({ prompt_tokens: 3, completion_tokens: 4, total_tokens: 7 });
    expect(chunks.at(-1)!.choices).toEqual([]);
  });

  it("writes each Chat Completions chunk as the compact JSON of the whole chunk, fields in OpenAI's order", async () => {
    server.enqueue({ text: 'say "hi"\nthen € ✓', toolCalls: [{ id: "call_q", name: "write_file", arguments: { path: 'a "b"' } }] });
    const text = await (await post("/v1/chat/completions", { model: 'm "1"', stream: true, stream_options: { include_usage: true }, messages: [] })).text();
    const payloads = text
      .split("\n\n")
      .filter(Boolean)
      .map((event) => event.slice("data: ".length))
      .slice(0, -1);
    expect(payloads.length).toBeGreaterThan(4);
    for (const payload of payloads) {
      const chunk = JSON.parse(payload) as Record<string, unknown> & { choices: Record<string, unknown>[] };
      expect(JSON.stringify(chunk)).toBe(payload);
      expect(Object.keys(chunk)).toEqual(["id", "object", "created", "model", "system_fingerprint", "choices", "usage"]);
      expect(chunk.model).toBe('m "1"');
      for (const choice of chunk.choices) expect(Object.keys(choice)).toEqual(["index", "delta", "logprobs", "finish_reason"]);
    }
  });

  it("ends held and delayed responses when it closes, and forgets a held one whose client left", async () => {
    const closing = await startFakeProviderServer();
    closing.enqueue({ text: "held", holdUntil: "never" }, { text: "late", delayMs: 60_000 }, { text: "left", holdUntil: "gone" });
    const request = (signal?: AbortSignal) =>
      fetch(`${closing.url}/v1/chat/completions`, { method: "POST", body: JSON.stringify({ model: "m", stream: true, messages: [] }), signal });
    const held = request().catch((error: unknown) => error);
    const delayed = request().catch((error: unknown) => error);
    const leaving = new AbortController();
    const left = request(leaving.signal).catch((error: unknown) => error);
    await expect.poll(() => closing.held("never") + closing.held("gone")).toBe(2);
    leaving.abort();
    await left;
    await expect.poll(() => closing.held("gone")).toBe(0);
    const started = performance.now();
    await closing.close();
    expect(await held).toBeInstanceOf(Error);
    expect(await delayed).toBeInstanceOf(Error);
    expect(performance.now() - started).toBeLessThan(5_000);
  });

  it("streams Messages as named events in the documented order", async () => {
    server.enqueue({ text: "hi", toolCalls: [{ id: "toolu_1", name: "read_file", arguments: { path: "a" } }] });
    const text = await (await post("/v1/messages", { model: "c", max_tokens: 5, stream: true, messages: [{ role: "user", content: "x" }] })).text();
    const names = text
      .split("\n\n")
      .filter(Boolean)
      .map((event) => event.split("\n")[0]);
    expect(names[0]).toBe("event: message_start");
    expect(names).toContain("event: content_block_start");
    expect(names).toContain("event: content_block_delta");
    expect(names.slice(-2)).toEqual(["event: message_delta", "event: message_stop"]);
    expect(text).toContain('"type":"input_json_delta"');
    expect(text).toContain('"stop_reason":"tool_use"');
  });

  it("lets a responder script a conversation from the tool results it receives, in either wire format", async () => {
    server.script((request) => {
      const result = lastToolResult(request);
      if (!result) return { toolCalls: [{ name: "read_file", arguments: { path: "notes.txt" } }] };
      if (result.toolName === "read_file")
        return { toolCalls: [{ name: "write_file", arguments: { path: "summary.txt", content: result.content.toUpperCase() } }] };
      return { text: "all done" };
    });
    try {
      const anthropicTurn = await post("/v1/messages", {
        model: "c",
        max_tokens: 5,
        messages: [
          { role: "user", content: "go" },
          { role: "assistant", content: [{ type: "tool_use", id: "toolu_9", name: "read_file", input: { path: "notes.txt" } }] },
          { role: "user", content: [{ type: "tool_result", tool_use_id: "toolu_9", content: "buy milk" }] },
        ],
      });
      const body = (await anthropicTurn.json()) as { content: { type: string; name: string; input: Record<string, string> }[] };
      expect(body.content[0]).toMatchObject({ type: "tool_use", name: "write_file", input: { path: "summary.txt", content: "BUY MILK" } });
      const openaiTurn = await post("/v1/chat/completions", {
        model: "m",
        messages: [
          { role: "user", content: "go" },
          { role: "assistant", content: null, tool_calls: [{ id: "c1", type: "function", function: { name: "write_file", arguments: "{}" } }] },
          { role: "tool", tool_call_id: "c1", content: "ok" },
        ],
      });
      expect(((await openaiTurn.json()) as { choices: { message: { content: string } }[] }).choices[0]!.message.content).toBe("all done");
    } finally {
      server.script(undefined);
    }
  });

  it("answers an unscripted request with a non-retryable 400 that says why", async () => {
    const response = await post("/v1/chat/completions", { model: "m", messages: [] });
    expect(response.status).toBe(400);
    expect(JSON.stringify(await response.json())).toContain("no scripted response");
  });

  it("serves hundreds of concurrent streaming requests about as fast as a bare HTTP server", async () => {
    // Compared with a bare node:http server measured in the same rounds, so a busy shared machine
    // slows both alike; an absolute requests-per-second floor would be flaky there.
    const bare = createServer((incoming, outgoing) => {
      incoming.resume();
      incoming.on("end", () => {
        outgoing.writeHead(200, { "content-type": "text/event-stream" });
        outgoing.end("data: [DONE]\n\n");
      });
    });
    await new Promise<void>((resolve) => bare.listen(0, "127.0.0.1", () => resolve()));
    const bareUrl = `http://127.0.0.1:${(bare.address() as AddressInfo).port}`;
    server.script(() => ({ text: "a short streamed answer", toolCalls: [{ name: "read_file", arguments: { path: "x" } }] }));
    const burst = async (baseUrl: string, total: number) => {
      const started = performance.now();
      let sent = 0;
      const worker = async () => {
        while (sent < total) {
          sent += 1;
          const response = await fetch(`${baseUrl}/v1/chat/completions`, {
            method: "POST",
            body: JSON.stringify({ model: "m", stream: true, messages: [{ role: "user", content: "hi" }] }),
          });
          expect((await response.text()).endsWith("data: [DONE]\n\n")).toBe(true);
        }
      };
      await Promise.all(Array.from({ length: 20 }, worker));
      return performance.now() - started;
    };
    try {
      await burst(server.url, 20);
      await burst(bareUrl, 20);
      let fakeMs = 0;
      let bareMs = 0;
      for (let round = 0; round < 3; round += 1) {
        fakeMs += await burst(server.url, 80);
        bareMs += await burst(bareUrl, 80);
      }
      expect(server.requestCount).toBeGreaterThanOrEqual(260);
      expect(fakeMs).toBeLessThan(bareMs * 3);
    } finally {
      server.script(undefined);
      await new Promise<void>((resolve) => bare.close(() => resolve()));
    }
  });
});
