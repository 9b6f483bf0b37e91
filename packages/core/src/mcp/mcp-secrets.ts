import { deriveSealingKey, openSealedText, sealText } from "../store/sealed-text.ts";

/** Secrets of a registration: a stdio server's environment, an http server's headers. */
export interface McpServerSecrets {
  env: Record<string, string>;
  headers: Record<string, string>;
}

/** HKDF's `info`: this key is used for nothing else than MCP servers' secrets. */
const KEY_PURPOSE = "agentq mcp server secrets v1";

/** The key of stored MCP secrets (store/sealed-text.ts). */
export function deriveMcpSecretsKey(deploymentSecret: string): Buffer {
  return deriveSealingKey(deploymentSecret, KEY_PURPOSE);
}

/** Sealed and bound to the server's name. */
export function sealMcpSecrets(key: Buffer, serverName: string, secrets: McpServerSecrets): string {
  return sealText(key, serverName, JSON.stringify(secrets));
}

/** The secrets, or throws when they were sealed with another key (the deployment secret changed) or altered. */
export function openMcpSecrets(key: Buffer, serverName: string, sealed: string): McpServerSecrets {
  const parsed = JSON.parse(openSealedText(key, serverName, sealed)) as Partial<McpServerSecrets>;
  return { env: parsed.env ?? {}, headers: parsed.headers ?? {} };
}
