import { describe, expect, it } from "vitest";
import { leadingSegments } from "./leading-segments.ts";

describe("leadingSegments", () => {
  it("is the path's first segments, raw, joined with /", () => {
    expect(leadingSegments("/api/chats/c1/runs", 2)).toBe("api/chats");
    expect(leadingSegments("/api/chats/c1/runs", 1)).toBe("api");
    expect(leadingSegments("/api/me", 2)).toBe("api/me");
    expect(leadingSegments("/api/me/", 2)).toBe("api/me");
    expect(leadingSegments("/api", 2)).toBe("api");
    expect(leadingSegments("/", 1)).toBe("");
    expect(leadingSegments("//x", 1)).toBe("");
    expect(leadingSegments("/a%2Fb/c", 1)).toBe("a%2Fb");
  });
});
