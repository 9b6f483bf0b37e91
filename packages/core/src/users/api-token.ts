import { createHash, randomBytes } from "node:crypto";

/** Bearer tokens: `aq_` + 32 random bytes (base64url). The prefix makes leaked tokens easy to scan for. */
export function generateApiToken(): string {
  return `aq_${randomBytes(32).toString("base64url")}`;
}

/**
 * Tokens are stored as sha256 hashes only. A fast hash is enough (no salt, no KDF): the token
 * carries 256 random bits, so there is nothing to brute-force, and lookup by hash stays one index probe.
 */
export function hashApiToken(token: string): string {
  return createHash("sha256").update(token, "utf8").digest("hex");
}
