import { describe, expect, it } from "vitest";
import { exceedsJsonNesting, MAX_JSON_NESTING } from "./json-nesting.ts";

describe("exceedsJsonNesting", () => {
  const nested = (depth: number) => `${"[".repeat(depth)}${"]".repeat(depth)}`;

  it("accepts nesting up to the limit and refuses one level more", () => {
    expect(exceedsJsonNesting(nested(MAX_JSON_NESTING))).toBe(false);
    expect(exceedsJsonNesting(nested(MAX_JSON_NESTING + 1))).toBe(true);
    expect(exceedsJsonNesting(`{"a":`.repeat(MAX_JSON_NESTING + 1))).toBe(true);
  });

  it("counts text that is cut off, and bytes as well as strings", () => {
    expect(exceedsJsonNesting("[".repeat(100_000))).toBe(true);
    expect(exceedsJsonNesting(Buffer.from('{"a":'.repeat(200)))).toBe(true);
    expect(exceedsJsonNesting(Buffer.from(nested(3)))).toBe(false);
  });

  it("ignores brackets inside strings, escaped quotes included", () => {
    expect(exceedsJsonNesting(JSON.stringify({ text: "[".repeat(1000) }))).toBe(false);
    expect(exceedsJsonNesting(JSON.stringify({ text: `\\"${"{".repeat(1000)}` }))).toBe(false);
  });

  it("sibling containers do not add up", () => {
    expect(exceedsJsonNesting(`[${Array.from({ length: 1000 }, () => "[]").join(",")}]`)).toBe(false);
  });
});
