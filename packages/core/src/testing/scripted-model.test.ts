import { describe, expect, it } from "vitest";
import type { ModelRequest } from "../models/model-client.ts";
import { ModelProviderError, StreamTimeoutError } from "../models/model-errors.ts";
import { ScriptedModel } from "./scripted-model.ts";

function request(overrides: Partial<ModelRequest> = {}): ModelRequest {
  return {
    model: "scripted",
    messages: [{ role: "user", content: "hi" }],
    tools: [],
    signal: new AbortController().signal,
    inactivityTimeoutMs: 1000,
    ...overrides,
  };
}

describe("ScriptedModel", () => {
  it("answers from its queue, then from its responder, and records requests", async () => {
    const model = new ScriptedModel([{ text: "first", textDeltas: ["fi", "rst"] }, { toolCalls: [{ name: "read_file", arguments: { path: "a" } }] }]);
    model.respondWith((sent) => ({ text: `echo ${sent.messages.length}` }));
    const deltas: string[] = [];
    expect((await model.complete(request({ onTextDelta: (text) => deltas.push(text) }))).text).toBe("first");
    expect(deltas).toEqual(["fi", "rst"]);
    const second = await model.complete(request());
    expect(second.toolCalls).toEqual([{ id: "call_scripted_1", name: "read_file", argumentsText: '{"path":"a"}' }]);
    expect(second.finishReason).toBe("tool_calls");
    expect((await model.complete(request())).text).toBe("echo 1");
    expect(model.requests).toHaveLength(3);
  });

  it("throws scripted errors and fails loudly when the script runs out", async () => {
    const model = new ScriptedModel([{ error: new ModelProviderError("overloaded", { retryable: true, status: 529 }) }]);
    await expect(model.complete(request())).rejects.toBeInstanceOf(ModelProviderError);
    await expect(model.complete(request())).rejects.toThrow(/no scripted response left/);
  });

  it("a stall longer than the inactivity timeout ends in StreamTimeoutError, and abort ends a stall with the reason", async () => {
    const model = new ScriptedModel([{ stallMs: Number.POSITIVE_INFINITY }, { stallMs: Number.POSITIVE_INFINITY }]);
    await expect(model.complete(request({ inactivityTimeoutMs: 20 }))).rejects.toBeInstanceOf(StreamTimeoutError);
    const controller = new AbortController();
    const pending = model.complete(request({ signal: controller.signal, inactivityTimeoutMs: 60_000 }));
    const reason = new Error("cancelled");
    controller.abort(reason);
    await expect(pending).rejects.toBe(reason);
  });
});
