import { createCipheriv, createDecipheriv, hkdfSync, randomBytes } from "node:crypto";

/** Secrets of a registration: a stdio server's environment, an http server's headers. */
export interface McpServerSecrets {
  env: Record<string, string>;
  headers: Record<string, string>;
}

const VERSION = "v1";
/** HKDF's `info`: this key is used for nothing else than MCP servers' secrets. */
const KEY_INFO = "agentq mcp server secrets v1";

/**
 * The AES-256-GCM key of stored MCP secrets, derived with HKDF-SHA256 from the deployment's secret
 * (APPROVAL_SECRET, or the one generated once and stored): every API instance and worker derives the
 * same key, and the secret that derives it is not in the table it protects.
 */
export function deriveMcpSecretsKey(deploymentSecret: string): Buffer {
  return Buffer.from(hkdfSync("sha256", Buffer.from(deploymentSecret, "utf8"), Buffer.alloc(0), KEY_INFO, 32));
}

/** `v1.<iv>.<tag>.<ciphertext>` (base64url); the server's name is authenticated with it, so a ciphertext cannot be moved to another row. */
export function sealMcpSecrets(key: Buffer, serverName: string, secrets: McpServerSecrets): string {
  const iv = randomBytes(12);
  const cipher = createCipheriv("aes-256-gcm", key, iv);
  cipher.setAAD(Buffer.from(serverName, "utf8"));
  const ciphertext = Buffer.concat([cipher.update(JSON.stringify(secrets), "utf8"), cipher.final()]);
  return [VERSION, iv.toString("base64url"), cipher.getAuthTag().toString("base64url"), ciphertext.toString("base64url")].join(".");
}

/** The secrets, or throws when they were sealed with another key (the deployment secret changed) or altered. */
export function openMcpSecrets(key: Buffer, serverName: string, sealed: string): McpServerSecrets {
  const [version, iv, tag, ciphertext] = sealed.split(".");
  if (version !== VERSION || iv === undefined || tag === undefined || ciphertext === undefined) throw new Error("unknown format of stored MCP secrets");
  const decipher = createDecipheriv("aes-256-gcm", key, Buffer.from(iv, "base64url"));
  decipher.setAAD(Buffer.from(serverName, "utf8"));
  decipher.setAuthTag(Buffer.from(tag, "base64url"));
  const text = Buffer.concat([decipher.update(Buffer.from(ciphertext, "base64url")), decipher.final()]).toString("utf8");
  const parsed = JSON.parse(text) as Partial<McpServerSecrets>;
  return { env: parsed.env ?? {}, headers: parsed.headers ?? {} };
}
