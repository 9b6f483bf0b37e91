import { describe, expect, it } from "vitest";
import { withoutNulCharacters } from "./run-statement.ts";

describe("withoutNulCharacters", () => {
  it("replaces NUL characters and leaves an escaped backslash followed by u0000 alone", () => {
    const json = JSON.stringify({ output: "a\u0000b", literal: "\\u0000", both: "\\\u0000" });
    const cleaned = JSON.parse(withoutNulCharacters(json));
    expect(cleaned.output).toBe("a\ufffdb");
    expect(cleaned.literal).toBe("\\u0000");
    expect(cleaned.both).toBe("\\\ufffd");
  });
});
