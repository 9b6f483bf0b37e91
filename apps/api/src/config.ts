import path from "node:path";
import { fileURLToPath } from "node:url";
import { z } from "zod";
import {
  type CommonConfig,
  commonConfigFromEnvironment,
  commonEnvironmentShape,
  type EmailConfig,
  emailConfigFromEnvironment,
  emailEnvironmentShape,
  parseEnvironment,
} from "@agentq/core";
import { parseByteSize } from "./http/parse-byte-size.ts";
import { LIVE_WORKERS_REFRESH_MS } from "./live-workers.ts";
import { DECISION_REPLY_WAIT_MS } from "./worker-decisions.ts";

/** The API's environment: the shared variables plus the ones only the API reads (API.md's table). */
export const apiEnvironmentSchema = z.object({
  ...commonEnvironmentShape,
  ...emailEnvironmentShape,
  PORT: z
    .string()
    .regex(/^\d{1,5}$/, "expected a port number 0-65535 (0 = any free port)")
    .transform(Number)
    .pipe(z.number().max(65535, "expected a port number 0-65535 (0 = any free port)"))
    .default(3000),
  HOST: z.string().default("127.0.0.1"),
  /** Optional: when unset and no admin exists, a token is generated and logged once. */
  ADMIN_TOKEN: z
    .string()
    .regex(/^[\x21-\x7e]{16,512}$/, "expected 16-512 printable characters without spaces")
    .optional(),
  /** The console's build (vite's outDir). Default apps/console/dist of this checkout. */
  CONSOLE_DIR: z.string().min(1).optional(),
  BODY_LIMIT: z
    .string()
    .default("1mb")
    .transform((value, context) => {
      const bytes = parseByteSize(value);
      if (bytes === undefined) {
        context.addIssue({ code: "custom", message: "expected a size such as 1mb, 512kb or 1048576" });
        return z.NEVER;
      }
      return bytes;
    }),
});

/** apps/console/dist, found from this file (apps/api/src/config.ts), not from the working directory. */
const DEFAULT_CONSOLE_DIRECTORY = fileURLToPath(new URL("../../console/dist", import.meta.url));

export interface ApiConfig extends CommonConfig {
  port: number;
  host: string;
  adminToken: string | undefined;
  bodyLimitBytes: number;
  /** The built console served at /console/ (CONSOLE_DIR; default apps/console/dist of this checkout, wherever the API is started from). */
  consoleDirectory: string;
  /** How long /readyz waits for each dependency. Default 1000 ms: a probe must answer fast. */
  readinessTimeoutMs: number;
  /** How long a graceful shutdown lets in-flight requests finish. Default 10 000 ms (under Kubernetes' 30 s grace). */
  shutdownTimeoutMs: number;
  /**
   * How often an event stream (SSE) gets a `: keep-alive` comment, and its token is looked up again.
   * Default 15 000 ms: under the idle timeouts of common proxies (often 60 s), and a disabled user's
   * stream ends within it (API.md); tests shorten it.
   */
  sseHeartbeatMs: number;
  /**
   * How often this instance reads the live workers it offers new runs to (live-workers.ts). Default
   * 2000 ms (LIVE_WORKERS_REFRESH_MS); tests shorten it, to offer runs to a worker they just started.
   */
  liveWorkersRefreshMs: number;
  /**
   * How long a decision left to a worker waits for its answer (worker-decisions.ts). Default 5000 ms
   * (DECISION_REPLY_WAIT_MS); tests shorten it, to see the API commit a decision whose worker is silent.
   */
  decisionReplyWaitMs: number;
  /** SMTP_URL and EMAIL_FROM; null without SMTP_URL (REST send answers 409 email_not_configured, send_email is not listed). */
  email: EmailConfig | null;
}

/** Parses the API's environment, or throws InvalidEnvironmentError naming every bad variable. */
export function parseApiConfig(environment: Record<string, string | undefined>): ApiConfig {
  const parsed = parseEnvironment(apiEnvironmentSchema, environment);
  return {
    ...commonConfigFromEnvironment(parsed),
    port: parsed.PORT,
    host: parsed.HOST,
    adminToken: parsed.ADMIN_TOKEN,
    bodyLimitBytes: parsed.BODY_LIMIT,
    consoleDirectory: path.resolve(parsed.CONSOLE_DIR ?? DEFAULT_CONSOLE_DIRECTORY),
    readinessTimeoutMs: 1000,
    shutdownTimeoutMs: 10_000,
    sseHeartbeatMs: 15_000,
    liveWorkersRefreshMs: LIVE_WORKERS_REFRESH_MS,
    decisionReplyWaitMs: DECISION_REPLY_WAIT_MS,
    email: emailConfigFromEnvironment(parsed),
  };
}
