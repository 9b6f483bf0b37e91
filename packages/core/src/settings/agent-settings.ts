import { z } from "zod";
import { InvalidRequestError } from "../errors/agentq-error.ts";
import { recordAuditEntry } from "../audit/record-audit-entry.ts";
import { type PrismaClient, sqlPoolOf } from "../store/create-prisma-client.ts";
import { inSqlTransaction } from "../store/sql-pool.ts";
import { selectSettingRows, upsertSettingRows } from "../store/statements/setting-statements.ts";

/** A numeric setting: its default and the range a PATCH is clamped to. */
interface NumericSetting {
  default: number;
  min: number;
  max: number;
}

/** Numeric settings (docs/design.md, "Loop guards"). Values outside the range are clamped, not refused. */
export const NUMERIC_SETTINGS = {
  agent_max_rounds: { default: 20, min: 1, max: 200 },
  /** 0 = no ceiling. */
  agent_max_tool_calls: { default: 0, min: 0, max: 100_000 },
  agent_stream_timeout_seconds: { default: 300, min: 1, max: 3600 },
  /** 6000 is the sentinel: scale to the model's context window. */
  agent_input_token_budget: { default: 6000, min: 256, max: 2_000_000 },
  agent_input_token_hard_max: { default: 200_000, min: 1000, max: 2_000_000 },
  /** Identical calls (same tool, same arguments) in one run before the tools are withdrawn for a final answer. */
  agent_repeated_call_limit: { default: 3, min: 2, max: 50 },
  /** How long a pending approval stays decidable. Default 24 h. */
  approval_ttl_seconds: { default: 86_400, min: 60, max: 30 * 86_400 },
  /** Background jobs one user may have running at once; `start_job` beyond it is a tool error. */
  job_max_running: { default: 4, min: 0, max: 1000 },
  /** A job still running after this long is stopped (`timed_out`). Default 1 h. */
  job_max_runtime_seconds: { default: 3600, min: 1, max: 7 * 86_400 },
  /** Output kept per job: its first and last halves, the middle omitted. Default 10 MB. */
  job_output_limit_bytes: { default: 10 * 1024 * 1024, min: 1024, max: 1024 * 1024 * 1024 },
  /** An MCP tool call that has no answer after this long is a tool error (the run goes on). Default 60 s. */
  mcp_call_timeout_seconds: { default: 60, min: 1, max: 3600 },
  /** Runs of one user running or handed to the queue at once; more stay queued (runs/admit-runs.ts). A user's own limit overrides it. */
  user_max_active_runs: { default: 20, min: 1, max: 100_000 },
  /** Runs one user may create per UTC day; 0 = no quota. */
  user_runs_per_day: { default: 0, min: 0, max: 10_000_000 },
  /** Model tokens (input + output) of one user's runs created in a UTC day; 0 = no quota. */
  user_tokens_per_day: { default: 0, min: 0, max: 2_000_000_000 },
  /** API requests per user per minute (Redis-backed; fails open when Redis is down); 0 = no limit. */
  api_rate_limit_per_minute: { default: 600, min: 0, max: 1_000_000 },
} as const satisfies Record<string, NumericSetting>;

/**
 * Feature flags: an admin can switch a family (or, for `personal`, one kind of it) off for everyone.
 * Each maps to the `feature` a tool declares (its family when it declares none).
 */
export const TOOL_FAMILY_FLAGS = {
  tools_files_enabled: "files",
  tools_process_enabled: "process",
  tools_web_enabled: "web",
  tools_mcp_enabled: "mcp",
  tools_email_enabled: "email",
  tools_documents_enabled: "documents",
  tools_notes_enabled: "notes",
  tools_tasks_enabled: "tasks",
  tools_calendar_enabled: "calendar",
  tools_memory_enabled: "memory",
} as const;

export type NumericSettingName = keyof typeof NUMERIC_SETTINGS;
export type ToolFamilyFlag = keyof typeof TOOL_FAMILY_FLAGS;

export type AgentSettings = { [K in NumericSettingName]: number } & { [K in ToolFamilyFlag]: boolean } & {
  /** Hosts or CIDR ranges, optional port, that fetch_page may reach although private. */
  web_fetch_allow: string[];
  /**
   * Commands and jobs share the host's network (loopback services included: Postgres, Redis, the API)
   * instead of an empty network namespace. Default false.
   */
  process_network: boolean;
  /** The queue board (/admin/queues) may retry, promote and remove jobs. Default false: it only shows them. */
  queue_board_actions: boolean;
  /** Tool names (or `prefix*` patterns) whose every call pauses for approval, tainted or not; grants still apply. Default none. */
  approval_always: string[];
};

export function defaultSettings(): AgentSettings {
  const numbers = Object.fromEntries(Object.entries(NUMERIC_SETTINGS).map(([name, setting]) => [name, setting.default]));
  const flags = Object.fromEntries(Object.keys(TOOL_FAMILY_FLAGS).map((name) => [name, true]));
  return { ...numbers, ...flags, web_fetch_allow: [], process_network: false, queue_board_actions: false, approval_always: [] } as unknown as AgentSettings;
}

const allowEntry = z
  .string()
  .trim()
  .min(1)
  .max(300)
  .regex(/^[A-Za-z0-9.:[\]/_-]+$/, "a host name, IP address or CIDR range, with an optional :port");

/** A tool's name as the model calls it (`write_file`, `mcp__server__tool`), or a prefix ending in `*` (`mcp__server__*`). */
const toolNameEntry = z
  .string()
  .trim()
  .min(1)
  .max(128)
  .regex(/^[A-Za-z0-9_.-]+\*?$/, "a tool name (letters, digits, _ . -), or a prefix of one ending in *");

/** The PATCH body: every field optional, numbers clamped afterwards, unknown fields refused. */
export const settingsPatchSchema = z
  .object({
    ...(Object.fromEntries(Object.keys(NUMERIC_SETTINGS).map((name) => [name, z.number().finite()])) as {
      [K in NumericSettingName]: z.ZodNumber;
    }),
    ...(Object.fromEntries(Object.keys(TOOL_FAMILY_FLAGS).map((name) => [name, z.boolean()])) as {
      [K in ToolFamilyFlag]: z.ZodBoolean;
    }),
    web_fetch_allow: z.array(allowEntry).max(200),
    process_network: z.boolean(),
    queue_board_actions: z.boolean(),
    approval_always: z.array(toolNameEntry).max(200),
  })
  .partial()
  .strict();

export type SettingsPatch = z.infer<typeof settingsPatchSchema>;

function clampSetting(name: NumericSettingName, value: number): number {
  const { min, max } = NUMERIC_SETTINGS[name];
  return Math.min(max, Math.max(min, Math.round(value)));
}

/** Stored values over the defaults; a stored value of the wrong type (hand-edited row) falls back to the default. */
export async function loadSettings(prisma: PrismaClient): Promise<AgentSettings> {
  return settingsFromRows(await selectSettingRows(sqlPoolOf(prisma)));
}

/**
 * The rows last read and the settings they gave: every run's context carries the settings rows, which
 * change rarely, and validating each row (settingsPatchSchema) cost more than the rest of loading a run.
 */
let lastParsed: { rowsText: string; settings: AgentSettings } | undefined;

/** The settings rows (key, stored JSON value) over the defaults. The result is the caller's own: a copy. */
export function settingsFromRows(rows: readonly { key: string; value: unknown }[]): AgentSettings {
  const rowsText = JSON.stringify(rows);
  if (lastParsed?.rowsText !== rowsText) lastParsed = { rowsText, settings: parseSettingRows(rows) };
  return copySettings(lastParsed.settings);
}

function parseSettingRows(rows: readonly { key: string; value: unknown }[]): AgentSettings {
  const settings = defaultSettings();
  for (const row of rows) {
    const parsed = settingsPatchSchema.safeParse({ [row.key]: row.value });
    if (parsed.success) Object.assign(settings, normalizePatch(parsed.data));
  }
  return settings;
}

/** The lists are the only values that are not primitives. */
function copySettings(settings: AgentSettings): AgentSettings {
  return { ...settings, web_fetch_allow: [...settings.web_fetch_allow], approval_always: [...settings.approval_always] };
}

function normalizePatch(patch: SettingsPatch): Partial<AgentSettings> {
  const normalized: Record<string, unknown> = { ...patch };
  for (const name of Object.keys(NUMERIC_SETTINGS) as NumericSettingName[]) {
    const value = patch[name];
    if (value !== undefined) normalized[name] = clampSetting(name, value);
  }
  if (patch.web_fetch_allow) normalized.web_fetch_allow = [...new Set(patch.web_fetch_allow)];
  if (patch.approval_always) normalized.approval_always = [...new Set(patch.approval_always)];
  return normalized as Partial<AgentSettings>;
}

/** Parses and normalizes a PATCH body (numbers clamped, lists deduplicated); bad input names the field. */
export function parseSettingsPatch(body: unknown): Partial<AgentSettings> {
  const parsed = settingsPatchSchema.safeParse(body);
  if (!parsed.success) {
    const issue = parsed.error.issues[0];
    const field = issue?.path.join(".") || (issue && "keys" in issue ? String((issue as { keys: string[] }).keys[0]) : "");
    throw new InvalidRequestError(`invalid settings: ${issue?.message ?? "bad value"}`, { field, issues: parsed.error.issues });
  }
  return normalizePatch(parsed.data);
}

export interface UpdateSettingsOptions {
  /** Who changes them, for the audit log (null: the system). */
  actorId: string | null;
  /** Recorded with the audit entry (the run an admin tool changed them from). */
  auditDetails?: Record<string, unknown>;
}

/**
 * Applies a validated patch (clamped) and returns the stored settings. The rows and the audit entry
 * commit in one transaction.
 */
export async function updateSettings(prisma: PrismaClient, body: unknown, options: UpdateSettingsOptions): Promise<AgentSettings> {
  const changes = parseSettingsPatch(body);
  return inSqlTransaction(sqlPoolOf(prisma), async (client) => {
    await upsertSettingRows(client, Object.entries(changes));
    await recordAuditEntry(client, { actorId: options.actorId, action: "settings.updated", target: "settings", details: { ...options.auditDetails, changes } });
    return settingsFromRows(await selectSettingRows(client));
  });
}
