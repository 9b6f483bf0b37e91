import { createCipheriv, createDecipheriv, hkdfSync, randomBytes } from "node:crypto";

const VERSION = "v1";

/**
 * An AES-256-GCM key for one kind of stored secret, derived with HKDF-SHA256 from the deployment's
 * secret (APPROVAL_SECRET, or the one generated once and stored): every API instance and worker
 * derives the same key, and the secret that derives it is not in the table it protects. `purpose`
 * (HKDF's `info`) keeps the keys of different kinds apart.
 */
export function deriveSealingKey(deploymentSecret: string, purpose: string): Buffer {
  return Buffer.from(hkdfSync("sha256", Buffer.from(deploymentSecret, "utf8"), Buffer.alloc(0), purpose, 32));
}

/**
 * `v1.<iv>.<tag>.<ciphertext>` (base64url). `boundTo` (the owning row's name or id) is authenticated
 * with it, so a ciphertext cannot be moved to another row.
 */
export function sealText(key: Buffer, boundTo: string, plaintext: string): string {
  const iv = randomBytes(12);
  const cipher = createCipheriv("aes-256-gcm", key, iv);
  cipher.setAAD(Buffer.from(boundTo, "utf8"));
  const ciphertext = Buffer.concat([cipher.update(plaintext, "utf8"), cipher.final()]);
  return [VERSION, iv.toString("base64url"), cipher.getAuthTag().toString("base64url"), ciphertext.toString("base64url")].join(".");
}

/** The plaintext, or throws when it was sealed with another key (the deployment secret changed), for another row, or altered. */
export function openSealedText(key: Buffer, boundTo: string, sealed: string): string {
  const [version, iv, tag, ciphertext] = sealed.split(".");
  if (version !== VERSION || iv === undefined || tag === undefined || ciphertext === undefined) throw new Error("unknown format of a stored secret");
  const decipher = createDecipheriv("aes-256-gcm", key, Buffer.from(iv, "base64url"));
  decipher.setAAD(Buffer.from(boundTo, "utf8"));
  decipher.setAuthTag(Buffer.from(tag, "base64url"));
  return Buffer.concat([decipher.update(Buffer.from(ciphertext, "base64url")), decipher.final()]).toString("utf8");
}
