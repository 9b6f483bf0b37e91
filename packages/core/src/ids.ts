import { randomBytes } from "node:crypto";

/** Generates an opaque, URL-safe id with a readable prefix (`run_...`, `chat_...`). */
export type GenerateId = (prefix: string) => string;

/** 128 random bits: unique without coordination between instances. */
export const generateId: GenerateId = (prefix) => `${prefix}_${randomBytes(16).toString("base64url")}`;

/** 256 random bits, for ids that are also capabilities (approval ids). */
export function generateSecretId(prefix: string): string {
  return `${prefix}_${randomBytes(32).toString("base64url")}`;
}
