import { createHmac } from "node:crypto";

/**
 * The Standard Webhooks signature of a delivery: `v1,` + base64 HMAC-SHA256 of `id.timestamp.body`,
 * keyed with the base64-decoded part of the secret after `whsec_` (what the `standardwebhooks`
 * package's verifier checks).
 */
export function signWebhook(input: { secret: string; id: string; timestamp: number; body: string }): string {
  const key = Buffer.from(input.secret.startsWith("whsec_") ? input.secret.slice("whsec_".length) : input.secret, "base64");
  const signature = createHmac("sha256", key).update(`${input.id}.${input.timestamp}.${input.body}`).digest("base64");
  return `v1,${signature}`;
}
