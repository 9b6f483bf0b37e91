import { pino, type DestinationStream, type Logger } from "pino";
import type { LogLevel } from "../config/environment-schema.ts";
import { createSecretRedactor } from "./redact-secrets.ts";

export type { Logger };

export interface CreateLoggerOptions {
  /** pino level. Default `info`. */
  level?: LogLevel;
  /** Bound to every line as `name` (the process: `api`, `worker`). Default none. */
  name?: string;
  /** Exact secret values (API keys, APPROVAL_SECRET, ADMIN_TOKEN) to scrub from every line. Default none. */
  secrets?: readonly (string | undefined)[];
  /** Where the JSON lines go. Default stdout, written synchronously so the last lines before a crash or exit are not lost; tests pass a stream to capture them. */
  destination?: DestinationStream;
}

/**
 * JSON lines to stdout, with credentials scrubbed twice: known header paths are censored by pino,
 * and every serialized line passes through the secret redactor (bearer tokens, `?token=`, URL
 * passwords, credential-named fields, configured secret values).
 */
export function createLogger(options: CreateLoggerOptions = {}): Logger {
  const redact = createSecretRedactor({ secrets: options.secrets ?? [] });
  return pino(
    {
      level: options.level ?? "info",
      ...(options.name === undefined ? {} : { name: options.name }),
      redact: {
        paths: ["req.headers.authorization", "req.headers.cookie", 'res.headers["set-cookie"]', "headers.authorization"],
        censor: "[REDACTED]",
      },
      hooks: { streamWrite: redact },
    },
    options.destination ?? pino.destination({ dest: 1, sync: true }),
  );
}
