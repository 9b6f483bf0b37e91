import { createRequire } from "node:module";
import { Tiktoken } from "js-tiktoken/lite";
import { describe, expect, it } from "vitest";
import { countMessageTokens, countTokens, TOKENS_PER_MESSAGE, TOKENS_PER_REPLY } from "./count-tokens.ts";

describe("countTokens", () => {
  it("counts real BPE tokens, not characters / 4", () => {
    expect(countTokens("")).toBe(0);
    expect(countTokens("hello world")).toBe(2);
    // 1000 repetitions of one common word: one token each, where chars/4 would say 1250.
    expect(countTokens("hello ".repeat(1000))).toBeGreaterThanOrEqual(1000);
    expect(countTokens("hello ".repeat(1000))).toBeLessThanOrEqual(1001);
    // Random-looking identifiers cost far more tokens than their characters / 4.
    const hex = "9f86d081884c7d659a2feaa0c55ad015a3bf4f1b2b0b822cd15d6c15b0f00a08";
    expect(countTokens(hex)).toBeGreaterThan(hex.length / 4 + 10);
  });

  it("counts as js-tiktoken's cl100k_base encoder does", () => {
    const reference = new Tiktoken(createRequire(import.meta.url)("js-tiktoken/ranks/cl100k_base"));
    const texts = [
      "hello world",
      "naïve café, 日本語のテキスト, 🤖🚀 and a ZWJ family 👨‍👩‍👧",
      "    indented\n\n\r\n  code(); // I'm sure they'LL say we've done it",
      "9f86d081884c7d659a2feaa0c55ad015a3bf4f1b2b0b822cd15d6c15b0f00a08",
      `${" ".repeat(300)}a`,
      "x".repeat(3000),
      JSON.stringify({ path: "src/a.ts", content: "export const answer = 42;\n", nested: [1, 2.5, null, true] }),
    ];
    for (const text of texts) expect(countTokens(text)).toBe(reference.encode(text, [], []).length);
  });

  it("counts special-token text as plain text instead of throwing", () => {
    expect(countTokens("<|endoftext|>")).toBeGreaterThan(1);
  });

  it("estimates very long texts from samples, close to the exact count and fast", () => {
    const paragraph = "The agent reads files, runs commands and writes a summary of what it found. ";
    const huge = paragraph.repeat(10_000); // ~770 KB
    const exactPerParagraph = countTokens(paragraph.repeat(100)) / 100;
    const started = performance.now();
    const estimate = countTokens(huge);
    expect(performance.now() - started).toBeLessThan(2000);
    expect(Math.abs(estimate - exactPerParagraph * 10_000) / (exactPerParagraph * 10_000)).toBeLessThan(0.02);
  });

  it("gives the same answer for a cached long text", () => {
    const text = "The agent reads files and writes them. ".repeat(50);
    expect(countTokens(text)).toBe(countTokens(text));
    expect(countTokens(text)).toBe(countTokens(`${text}`.slice(0)));
  });
});

describe("countMessageTokens", () => {
  it("adds a per-message overhead, the reply priming, tool calls and tool schemas", () => {
    const one = countMessageTokens([{ role: "user", content: "hello world" }], []);
    expect(one).toBe(TOKENS_PER_REPLY + TOKENS_PER_MESSAGE + countTokens("user") + 2);
    const withCall = countMessageTokens(
      [
        { role: "user", content: "hello world" },
        { role: "assistant", content: null, toolCalls: [{ id: "c", name: "read_file", argumentsText: '{"path":"a.txt"}' }] },
      ],
      [],
    );
    expect(withCall - one).toBeGreaterThan(countTokens('{"path":"a.txt"}'));
    const withTools = countMessageTokens(
      [{ role: "user", content: "hello world" }],
      [{ name: "read_file", description: "Read a file", parameters: { type: "object" } }],
    );
    expect(withTools).toBeGreaterThan(one + 5);
  });
});
