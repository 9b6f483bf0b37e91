/**
 * Scrubs credentials out of a serialized log line. It runs on the final text (pino's `streamWrite`
 * hook) rather than on known field paths, so a token that reaches a log through an error message,
 * a URL or a nested object is caught as well.
 */

const REDACTED = "[REDACTED]";

const PATTERNS: { pattern: RegExp; replacement: string }[] = [
  // Authorization: Bearer <token> (in headers, messages, error texts).
  { pattern: /\b(Bearer\s+)[A-Za-z0-9._~+/=-]+/gi, replacement: `$1${REDACTED}` },
  // ?token=... and friends in URLs (the WebSocket passes its token this way).
  {
    pattern: /([?&](?:token|access_token|api_key|apikey|key|secret|password)=)[^&\s"'#\\]+/gi,
    replacement: `$1${REDACTED}`,
  },
  // The password part of any URL with credentials (postgresql://user:password@host).
  { pattern: /(\b[a-z][a-z0-9+.-]*:\/\/[^:/?#\s"'@]*:)[^@/\s"']+@/gi, replacement: `$1${REDACTED}@` },
  // JSON string fields whose name says they hold a credential.
  {
    pattern: /("[A-Za-z0-9_-]*(?:token|secret|password|passwd|api_?key|apikey|authorization|cookie)[A-Za-z0-9_-]*"\s*:\s*)"(?:[^"\\]|\\.)*"/gi,
    replacement: `$1"${REDACTED}"`,
  },
  // Provider API keys by shape (OpenAI/Anthropic style `sk-...`).
  { pattern: /\bsk-[A-Za-z0-9_-]{16,}/g, replacement: REDACTED },
];

/** Secrets shorter than this are not replaced by value: they would blank out ordinary words. */
const MINIMUM_SECRET_LENGTH = 8;

export interface RedactSecretsOptions {
  /** Exact secret values to remove wherever they appear (configured keys, the admin token). Default none. */
  secrets?: readonly (string | undefined)[];
}

export type RedactSecrets = (text: string) => string;

export function createSecretRedactor(options: RedactSecretsOptions = {}): RedactSecrets {
  const secrets = (options.secrets ?? []).filter((secret): secret is string => secret !== undefined && secret.length >= MINIMUM_SECRET_LENGTH);
  return (text) => {
    let redacted = text;
    for (const secret of secrets) redacted = redacted.split(secret).join(REDACTED);
    for (const { pattern, replacement } of PATTERNS) redacted = redacted.replace(pattern, replacement);
    return redacted;
  };
}

export const redactSecrets: RedactSecrets = createSecretRedactor();
