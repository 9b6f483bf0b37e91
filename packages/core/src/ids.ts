import { randomBytes } from "node:crypto";

/** Generates an opaque, URL-safe id with a readable prefix (`run_...`, `chat_...`). */
export type GenerateId = (prefix: string) => string;

const ID_BYTES = 16;
/** Random bytes drawn at once for the next ids: one system call (getrandom) per 256 ids, not one each. */
const POOL_BYTES = ID_BYTES * 256;
let pool = Buffer.alloc(0);
let offset = 0;

/** 128 random bits: unique without coordination between instances. Each byte of the pool is used once. */
export const generateId: GenerateId = (prefix) => {
  if (offset + ID_BYTES > pool.length) {
    pool = randomBytes(POOL_BYTES);
    offset = 0;
  }
  const id = pool.toString("base64url", offset, offset + ID_BYTES);
  offset += ID_BYTES;
  return `${prefix}_${id}`;
};

/** 256 random bits, for ids that are also capabilities (approval ids): drawn on their own, never from the pool. */
export function generateSecretId(prefix: string): string {
  return `${prefix}_${randomBytes(32).toString("base64url")}`;
}
