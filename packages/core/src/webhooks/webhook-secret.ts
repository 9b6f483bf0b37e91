import { randomBytes } from "node:crypto";
import { deriveSealingKey, openSealedText, sealText } from "../store/sealed-text.ts";

/** HKDF's `info`: this key is used for nothing else than webhooks' signing secrets. */
const KEY_PURPOSE = "agentq webhook secrets v1";

/** A new signing secret in Standard Webhooks' form: `whsec_` + base64 of 24 random bytes. */
export function generateWebhookSecret(): string {
  return `whsec_${randomBytes(24).toString("base64")}`;
}

/** The key of stored webhook secrets (store/sealed-text.ts). */
export function deriveWebhookSecretsKey(deploymentSecret: string): Buffer {
  return deriveSealingKey(deploymentSecret, KEY_PURPOSE);
}

/** Sealed and bound to the webhook's id. */
export function sealWebhookSecret(key: Buffer, webhookId: string, secret: string): string {
  return sealText(key, webhookId, secret);
}

export function openWebhookSecret(key: Buffer, webhookId: string, sealed: string): string {
  return openSealedText(key, webhookId, sealed);
}
