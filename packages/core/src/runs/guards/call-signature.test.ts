import { describe, expect, it } from "vitest";
import { callSignature } from "./call-signature.ts";

describe("callSignature", () => {
  it("is the same for the same call whatever the order of its arguments' keys, and differs for other arguments or another tool", () => {
    const signature = callSignature("write_file", { path: "a.txt", content: "x", options: { mode: 1, create: true } });
    expect(callSignature("write_file", { options: { create: true, mode: 1 }, content: "x", path: "a.txt" })).toBe(signature);
    expect(callSignature("write_file", { path: "a.txt", content: "y", options: { mode: 1, create: true } })).not.toBe(signature);
    expect(callSignature("edit_file", { path: "a.txt", content: "x", options: { mode: 1, create: true } })).not.toBe(signature);
  });

  it("stays short however large the arguments: the loop state keeps one per distinct call", () => {
    const signature = callSignature("write_file", { path: "big.txt", content: "x".repeat(200_000) });
    expect(signature.startsWith("write_file:")).toBe(true);
    expect(signature.length).toBeLessThan(60);
  });
});
