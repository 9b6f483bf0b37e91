import { describe, expect, it } from "vitest";
import { generateApiToken, hashApiToken } from "./api-token.ts";

describe("api tokens", () => {
  it("are aq_ followed by 32 random bytes in base64url", () => {
    const token = generateApiToken();
    expect(token).toMatch(/^aq_[A-Za-z0-9_-]{43}$/);
    expect(generateApiToken()).not.toBe(token);
  });

  it("hash to a stable sha256 hex digest that differs from the token", () => {
    const token = generateApiToken();
    expect(hashApiToken(token)).toMatch(/^[0-9a-f]{64}$/);
    expect(hashApiToken(token)).toBe(hashApiToken(token));
    expect(hashApiToken(token)).not.toBe(hashApiToken(generateApiToken()));
  });
});
