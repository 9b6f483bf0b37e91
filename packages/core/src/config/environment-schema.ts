import { isAbsolute, resolve } from "node:path";
import { z } from "zod";
import { AgentqError } from "../errors/agentq-error.ts";
import { hashTagOf, isClusterRedisUrl, parseRedisUrl, RedisUrlError } from "./parse-redis-url.ts";

/**
 * The environment variables every agentq process shares (API.md, "Processes, scripts and
 * configuration"). Core never reads `process.env`: each app passes its environment to
 * `parseEnvironment` once at boot, with this shape extended by its own variables.
 *
 * An empty value counts as unset (so `OPENAI_API_KEY=` in a .env file means "no key"),
 * which is what `parseEnvironment` does before validating.
 */

const LOG_LEVELS = ["fatal", "error", "warn", "info", "debug", "trace", "silent"] as const;
export type LogLevel = (typeof LOG_LEVELS)[number];

function urlWithProtocols(protocols: readonly string[]) {
  return z.string().refine(
    (value) => {
      try {
        return protocols.includes(new URL(value).protocol.replace(/:$/, ""));
      } catch {
        return false;
      }
    },
    { message: `expected a URL starting with ${protocols.map((protocol) => `${protocol}://`).join(" or ")}` },
  );
}

/** One Redis server or a cluster's node list (parse-redis-url.ts); the problem is named, never the URL. */
const redisUrl = z.string().superRefine((value, context) => {
  try {
    parseRedisUrl(value);
  } catch (error) {
    if (!(error instanceof RedisUrlError)) throw error;
    context.addIssue({ code: "custom", message: error.message });
  }
});

const commaList = (fallback: string) =>
  z
    .string()
    .default(fallback)
    .transform((value) =>
      value
        .split(",")
        .map((item) => item.trim())
        .filter((item) => item !== ""),
    );

export const commonEnvironmentShape = {
  DATABASE_URL: urlWithProtocols(["postgresql", "postgres"]).default("postgresql://postgres@127.0.0.1:5432/agentq"),
  REDIS_URL: redisUrl.default("redis://127.0.0.1:6379"),
  /** Optional: when unset the approval key is generated once and stored in the database. */
  APPROVAL_SECRET: z.string().min(16, "must be at least 16 characters").optional(),
  /** Relative paths are resolved against the working directory at boot. */
  WORKSPACES_ROOT: z
    .string()
    .default("./data/workspaces")
    .transform((value) => resolve(value)),
  FILE_ROOTS: z
    .string()
    .default("")
    .transform((value) => value.split(":").filter((item) => item !== ""))
    .refine((roots) => roots.every((root) => isAbsolute(root)), {
      message: "expected absolute directories separated by ':'",
    }),
  OPENAI_BASE_URL: urlWithProtocols(["http", "https"]).default("http://127.0.0.1:11434/v1"),
  OPENAI_API_KEY: z.string().optional(),
  ANTHROPIC_API_KEY: z.string().optional(),
  ANTHROPIC_BASE_URL: urlWithProtocols(["http", "https"]).default("https://api.anthropic.com"),
  DEFAULT_MODEL: z.string().default("llama3.1"),
  LOG_LEVEL: z.enum(LOG_LEVELS).default("info"),
  SEARXNG_URL: urlWithProtocols(["http", "https"]).optional(),
  TOOL_ENV_ALLOW: commaList("PATH,HOME,LANG,TERM"),
  /** `bwrap` (default): every command in bubblewrap; `off`: unconfined, single-user development only. */
  PROCESS_SANDBOX: z.enum(["bwrap", "off"]).default("bwrap"),
  /** Every Redis key and channel carries it; braces (`{agentq}`) keep BullMQ's keys in one cluster slot. */
  QUEUE_PREFIX: z
    .string()
    .regex(/^[A-Za-z0-9_{}.:-]{1,64}$/, "expected 1-64 characters among letters, digits and _ { } . : -")
    .default("agentq"),
};

export const commonEnvironmentSchema = z.object(commonEnvironmentShape);
export type CommonEnvironment = z.output<typeof commonEnvironmentSchema>;

/** The shared part of every app's typed configuration, in camelCase. */
export interface CommonConfig {
  databaseUrl: string;
  redisUrl: string;
  approvalSecret: string | undefined;
  workspacesRoot: string;
  fileRoots: string[];
  openaiBaseUrl: string;
  openaiApiKey: string | undefined;
  anthropicApiKey: string | undefined;
  anthropicBaseUrl: string;
  defaultModel: string;
  logLevel: LogLevel;
  searxngUrl: string | undefined;
  toolEnvAllow: string[];
  processSandbox: "bwrap" | "off";
  queuePrefix: string;
}

/**
 * Checks the variables that only make sense together, and throws InvalidEnvironmentError naming
 * the one to change: on a Redis Cluster, BullMQ's scripts touch several keys of a queue at once,
 * which Redis allows only when they share a slot, so the prefix must carry a hash tag.
 */
function checkCombinations(environment: CommonEnvironment): void {
  if (isClusterRedisUrl(environment.REDIS_URL) && hashTagOf(environment.QUEUE_PREFIX) === undefined) {
    const braced = `{${environment.QUEUE_PREFIX.replace(/[{}]/g, "") || "agentq"}}`;
    throw new InvalidEnvironmentError([
      {
        variable: "QUEUE_PREFIX",
        problem:
          `REDIS_URL names a Redis Cluster, where every queue key must hash to one slot: write the prefix in braces, ` +
          `QUEUE_PREFIX=${braced} (every agentq process of this deployment must use the same prefix)`,
      },
    ]);
  }
}

export function commonConfigFromEnvironment(environment: CommonEnvironment): CommonConfig {
  checkCombinations(environment);
  return {
    databaseUrl: environment.DATABASE_URL,
    redisUrl: environment.REDIS_URL,
    approvalSecret: environment.APPROVAL_SECRET,
    workspacesRoot: environment.WORKSPACES_ROOT,
    fileRoots: environment.FILE_ROOTS,
    openaiBaseUrl: environment.OPENAI_BASE_URL,
    openaiApiKey: environment.OPENAI_API_KEY,
    anthropicApiKey: environment.ANTHROPIC_API_KEY,
    anthropicBaseUrl: environment.ANTHROPIC_BASE_URL,
    defaultModel: environment.DEFAULT_MODEL,
    logLevel: environment.LOG_LEVEL,
    searxngUrl: environment.SEARXNG_URL,
    toolEnvAllow: environment.TOOL_ENV_ALLOW,
    processSandbox: environment.PROCESS_SANDBOX,
    queuePrefix: environment.QUEUE_PREFIX,
  };
}

/** Thrown at boot when a variable has a bad value; the message names every bad variable. */
export class InvalidEnvironmentError extends AgentqError {
  constructor(problems: { variable: string; problem: string }[]) {
    super("invalid_environment", `invalid environment: ${problems.map(({ variable, problem }) => `${variable}: ${problem}`).join("; ")}`, {
      variables: problems.map(({ variable }) => variable),
      problems,
    });
  }
}

/**
 * Validates `environment` against `schema`. Values are never echoed in the error (they may be
 * secrets); the variable's name and what was expected are enough to fix it.
 */
export function parseEnvironment<Schema extends z.ZodType>(schema: Schema, environment: Record<string, string | undefined>): z.output<Schema> {
  const withoutEmptyValues = Object.fromEntries(Object.entries(environment).filter(([, value]) => value !== undefined && value !== ""));
  const result = schema.safeParse(withoutEmptyValues);
  if (result.success) return result.data;
  throw new InvalidEnvironmentError(
    result.error.issues.map((issue) => ({
      variable: issue.path.map(String).join(".") || "(environment)",
      problem: issue.message,
    })),
  );
}
