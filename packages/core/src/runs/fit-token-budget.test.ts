import { describe, expect, it } from "vitest";
import type { ModelMessage } from "../models/model-client.ts";
import { countMessageTokens } from "../models/count-tokens.ts";
import { fitTokenBudget, resolveInputTokenBudget } from "./fit-token-budget.ts";

const filler = (word: string, words: number) => Array.from({ length: words }, (_, index) => `${word}${index}`).join(" ");

function conversation(): ModelMessage[] {
  return [
    { role: "system", content: `You are an agent. ${filler("rule", 50)}` },
    { role: "user", content: "Summarize the three files." },
    { role: "assistant", content: null, toolCalls: [{ id: "c1", name: "read_file", argumentsText: '{"path":"one.txt"}' }] },
    { role: "tool", toolCallId: "c1", content: `ONE-START ${filler("alpha", 2000)} ONE-END` },
    { role: "assistant", content: null, toolCalls: [{ id: "c2", name: "read_file", argumentsText: '{"path":"two.txt"}' }] },
    { role: "tool", toolCallId: "c2", content: `TWO-START ${filler("beta", 2000)} TWO-END` },
    { role: "assistant", content: "Last one.", toolCalls: [{ id: "c3", name: "read_file", argumentsText: '{"path":"three.txt"}' }] },
    { role: "tool", toolCallId: "c3", content: `THREE-START ${filler("gamma", 2000)} THREE-END` },
  ];
}

describe("fitTokenBudget", () => {
  it("leaves a conversation that fits untouched", () => {
    const messages = conversation();
    const total = countMessageTokens(messages, []);
    const result = fitTokenBudget({ messages, tools: [], budget: total + 10 });
    expect(result).toEqual({ messages, truncated: 0, inputTokens: total, overBudget: false });
  });

  it("truncates the oldest tool result first, only as much as needed, with a readable marker", () => {
    const messages = conversation();
    const total = countMessageTokens(messages, []);
    const budget = total - 1000;
    const result = fitTokenBudget({ messages, tools: [], budget });
    expect(result.overBudget).toBe(false);
    expect(result.truncated).toBe(1);
    expect(result.inputTokens).toBeLessThanOrEqual(budget);
    expect(result.inputTokens).toBeGreaterThan(budget - 200);
    expect(result.inputTokens).toBe(countMessageTokens(result.messages, []));
    const first = result.messages[3] as { content: string };
    expect(first.content).toMatch(/^ONE-START/);
    expect(first.content).toMatch(/ONE-END$/);
    expect(first.content).toMatch(/\[\.\.\. truncated \d+ tokens to fit the input budget; re-run the tool if you need it \.\.\.\]/);
    expect(result.messages[5]).toEqual(messages[5]);
    expect(result.messages[7]).toEqual(messages[7]);
    expect(result.messages[0]).toEqual(messages[0]);
  });

  it("moves on to the next oldest result once the oldest is down to its marker, keeping the newest whole", () => {
    const messages = conversation();
    const total = countMessageTokens(messages, []);
    const result = fitTokenBudget({ messages, tools: [], budget: total - 5000 });
    expect(result.overBudget).toBe(false);
    expect((result.messages[3] as { content: string }).content).toMatch(/^\[\.\.\. truncated \d+ tokens/);
    expect((result.messages[5] as { content: string }).content).toContain("truncated");
    expect(result.messages[7]).toEqual(messages[7]);
    expect(result.truncated).toBe(2);
  });

  it("keeps every message and every call/result pairing", () => {
    const messages = conversation();
    const result = fitTokenBudget({ messages, tools: [], budget: 1500 });
    expect(result.messages.map((message) => message.role)).toEqual(messages.map((message) => message.role));
    const callIds = result.messages.flatMap((message) => (message.role === "assistant" ? (message.toolCalls ?? []).map((call) => call.id) : []));
    const resultIds = result.messages.flatMap((message) => (message.role === "tool" ? [message.toolCallId] : []));
    expect(callIds).toEqual(["c1", "c2", "c3"]);
    expect(resultIds).toEqual(callIds);
  });

  it("truncates the newest tool result only when the older ones are not enough, and never the system message", () => {
    const messages = conversation();
    const result = fitTokenBudget({ messages, tools: [], budget: 1500 });
    expect(result.overBudget).toBe(false);
    expect(result.inputTokens).toBeLessThanOrEqual(1500);
    expect((result.messages[7] as { content: string }).content).toContain("re-run the tool");
    expect(result.messages[0]).toEqual(messages[0]);
    expect(result.messages[1]).toEqual(messages[1]);
  });

  it("shortens a huge write_file argument of an old call while keeping its JSON valid", () => {
    const messages: ModelMessage[] = [
      { role: "user", content: "write it" },
      {
        role: "assistant",
        content: null,
        toolCalls: [{ id: "w1", name: "write_file", argumentsText: JSON.stringify({ path: "big.txt", content: filler("line", 3000) }) }],
      },
      { role: "tool", toolCallId: "w1", content: "wrote big.txt" },
      { role: "user", content: "now say done" },
      { role: "assistant", content: "done" },
      { role: "user", content: "thanks" },
    ];
    const total = countMessageTokens(messages, []);
    const result = fitTokenBudget({ messages, tools: [], budget: total - 2000 });
    expect(result.overBudget).toBe(false);
    const call = (result.messages[1] as { toolCalls: { argumentsText: string }[] }).toolCalls[0]!;
    const parsed = JSON.parse(call.argumentsText) as { path: string; content: string };
    expect(parsed.path).toBe("big.txt");
    expect(parsed.content).toContain("truncated");
    expect(result.messages[5]).toEqual(messages[5]);
  });

  it("reports overBudget when even the last resort cannot fit", () => {
    const messages: ModelMessage[] = [
      { role: "system", content: filler("policy", 800) },
      { role: "user", content: "hi" },
    ];
    const result = fitTokenBudget({ messages, tools: [], budget: 100 });
    expect(result.overBudget).toBe(true);
    expect(result.messages[0]).toEqual(messages[0]);
    expect(result.inputTokens).toBeGreaterThan(100);
  });

  it("counts tool schemas against the budget", () => {
    const messages = conversation().slice(0, 4);
    const tools = [{ name: "read_file", description: filler("describe", 400), parameters: { type: "object" } }];
    const withoutTools = fitTokenBudget({ messages, tools: [], budget: 100_000 });
    const withTools = fitTokenBudget({ messages, tools, budget: 100_000 });
    expect(withTools.inputTokens - withoutTools.inputTokens).toBeGreaterThan(400);
  });
});

describe("resolveInputTokenBudget", () => {
  it("scales the sentinel 6000 to 75% of the context window, capped by the hard max", () => {
    expect(resolveInputTokenBudget({ configured: 6000, hardMax: 200_000, contextWindow: 128_000 })).toBe(96_000);
    expect(resolveInputTokenBudget({ configured: 6000, hardMax: 50_000, contextWindow: 128_000 })).toBe(50_000);
    expect(resolveInputTokenBudget({ configured: 6000, hardMax: 200_000, contextWindow: 8192 })).toBe(6144);
  });

  it("uses any other configured value as given, never above the hard max", () => {
    expect(resolveInputTokenBudget({ configured: 12_000, hardMax: 200_000, contextWindow: 8192 })).toBe(12_000);
    expect(resolveInputTokenBudget({ configured: 300_000, hardMax: 200_000, contextWindow: 1_000_000 })).toBe(200_000);
  });
});

describe("the byte bound shortcut", () => {
  it("an input that fits by bytes is returned whole, with a token figure that is never below the exact count", async () => {
    const { countMessageTokens } = await import("../models/count-tokens.ts");
    const messages = [
      { role: "system" as const, content: "You are agentq." },
      { role: "user" as const, content: "naïve café — ünïcödé text, emoji 🚀 and plain words" },
      { role: "assistant" as const, content: null, toolCalls: [{ id: "call_1", name: "read_file", argumentsText: '{"path":"a.txt"}' }] },
      { role: "tool" as const, toolCallId: "call_1", content: "hello" },
    ];
    const tools = [{ name: "read_file", description: "Read a file", parameters: { type: "object", properties: { path: { type: "string" } } } }];
    const exact = countMessageTokens(messages, tools);
    const fitted = fitTokenBudget({ messages, tools, budget: 10_000 });
    expect(fitted.truncated).toBe(0);
    expect(fitted.overBudget).toBe(false);
    expect(fitted.messages).toEqual(messages);
    expect(fitted.inputTokens).toBeGreaterThanOrEqual(exact);
    // Just above the exact count but below the byte bound, the exact path decides: still no truncation.
    expect(fitTokenBudget({ messages, tools, budget: exact }).truncated).toBe(0);
  });
});
