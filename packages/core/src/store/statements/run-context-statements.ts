import { z } from "zod";
import { TAINT_SOURCE_LIMIT, taintSourcesSchema } from "../../policy/taint-sources.ts";
import { USER_ROLES } from "../../users/user.ts";
import { MessageRole, RunMode, RunStatus } from "../generated/enums.ts";
import { preparedSql, queryParsed, type SqlRunner } from "../sql-pool.ts";
import { storedApprovalColumns } from "./stored-approval-columns.ts";

/**
 * The run, its user's role, its workspace, the settings, the chat's messages, the grants that apply,
 * the chat's other tainted runs with their taint sources, and the open tool calls with their approvals,
 * of the run aliased `r`: one statement, because every execution (and so every resume after an
 * approval) starts here. Taking the lease reads them in the same statement (run-lease-statements.ts).
 */
export const RUN_CONTEXT_COLUMNS = `r.id, r.chat_id, r.user_id, r.status::text AS status, r.input, r.model, r.mode::text AS mode,
  r.allow_bash, r.allow_web_search, r.use_web, COALESCE(r.tools, '{}') AS tools, r.rounds, r.tool_calls, r.tainted, r.tainted_by, r.cancel_requested, r.loop_state,
  u.role::text AS role, u.tokens_per_day AS user_tokens_per_day, w.id AS workspace_id, w.root_path AS workspace_root,
  (SELECT COALESCE(json_agg(json_build_object('key', s.key, 'value', s.value)), '[]'::json) FROM settings AS s) AS settings,
  (SELECT COALESCE(json_agg(json_build_object('role', m.role, 'content', m.content, 'toolCalls', m.tool_calls, 'toolCallId', m.tool_call_id) ORDER BY m.position), '[]'::json)
    FROM messages AS m WHERE m.chat_id = r.chat_id) AS messages,
  -- The run's task grants and the chat's grants, one index lookup each (the pool plans no bitmap
  -- scans, which a lookup of the two at once needs: store/create-prisma-client.ts).
  (SELECT COALESCE(json_agg(json_build_object('tool', g.tool, 'effects', COALESCE(g.effects, '{}'))), '[]'::json)
    FROM (SELECT tool, effects FROM grants WHERE run_id = r.id AND scope = 'task' AND revoked_at IS NULL
      UNION ALL SELECT tool, effects FROM grants WHERE chat_id = r.chat_id AND scope = 'chat' AND revoked_at IS NULL) AS g) AS grants,
  -- The earliest tainted runs name the earliest sources (each names at least one; a later run repeats
  -- an earlier one's): a few more runs than sources are kept, so the repeats do not crowd them out.
  (SELECT COALESCE(json_agg(json_build_object('run_id', o.id, 'tainted_by', o.tainted_by) ORDER BY o.created_at, o.id), '[]'::json)
    FROM (SELECT id, tainted_by, created_at FROM runs WHERE chat_id = r.chat_id AND id <> r.id AND tainted
      ORDER BY created_at, id LIMIT ${TAINT_SOURCE_LIMIT * 4}) AS o) AS chat_tainted_runs,
  (SELECT COALESCE(json_agg(json_build_object(
      'rowId', tc.id, 'callId', tc.call_id, 'round', tc.round, 'position', tc.position, 'tool', tc.tool,
      'arguments', tc.arguments, 'status', tc.status,
      'approval', CASE WHEN a.id IS NULL THEN NULL ELSE json_build_object(
        'id', a.id, 'runId', a.run_id, 'chatId', a.chat_id, 'userId', a.user_id, 'toolCallId', a.tool_call_id, 'tool', a.tool,
        'arguments', a.arguments, 'argumentsHash', a.arguments_hash, 'workspaceId', a.workspace_id, 'effects', COALESCE(a.effects, '{}'),
        'targetPath', a.target_path, 'targetRevision', a.target_revision, 'targetDocumentId', a.target_document_id, 'targetEmailId', a.target_email_id, 'policyVersion', a.policy_version,
        'expiresAt', a.expires_at, 'seal', a.seal, 'status', a.status, 'editedArguments', a.edited_arguments) END
    ) ORDER BY tc.round, tc.position), '[]'::json)
    FROM tool_calls AS tc LEFT JOIN approvals AS a ON a.tool_call_row_id = tc.id
    WHERE tc.run_id = r.id AND tc.status <> 'completed') AS open_calls`;

/** What RUN_CONTEXT_COLUMNS reads beside the run aliased `r`. */
export const RUN_CONTEXT_JOINS = `JOIN users AS u ON u.id = r.user_id
JOIN chats AS c ON c.id = r.chat_id
LEFT JOIN workspaces AS w ON w.id = c.workspace_id`;

/**
 * The context of the run whose id is the SQL expression `runId`, as JSON text: what a decision hands
 * over with a decided run (approval-statements.ts) and a new run's offer carries (run-lease-statements.ts).
 * `runId` must not name a relation aliased r, u, c or w (the subquery's own).
 */
export function runContextJson(runId: string): string {
  return `(SELECT row_to_json(context)::text FROM (SELECT ${RUN_CONTEXT_COLUMNS} FROM runs AS r ${RUN_CONTEXT_JOINS} WHERE r.id = ${runId}) AS context)`;
}

const LOAD_SQL = preparedSql("run_context", `SELECT ${RUN_CONTEXT_COLUMNS}\nFROM runs AS r\n${RUN_CONTEXT_JOINS}\nWHERE r.id = $1`);

/** An approval built as JSON in the statement: `expiresAt` is Postgres's JSON text of the timestamp. */
const openCallApprovalJson = z.object({ ...storedApprovalColumns, expiresAt: z.string() });

export const runContextRow = z.object({
  id: z.string(),
  chat_id: z.string(),
  user_id: z.string(),
  status: z.enum(RunStatus),
  input: z.string(),
  model: z.string(),
  mode: z.enum(RunMode),
  allow_bash: z.boolean(),
  allow_web_search: z.boolean(),
  use_web: z.boolean(),
  tools: z.array(z.string()),
  rounds: z.number(),
  tool_calls: z.number(),
  tainted: z.boolean(),
  tainted_by: taintSourcesSchema.nullable(),
  cancel_requested: z.boolean(),
  /** Checked by runs/loop-state.ts. */
  loop_state: z.unknown(),
  role: z.enum(USER_ROLES),
  /** The user's own daily token quota; null: the setting's. */
  user_tokens_per_day: z.number().nullable(),
  workspace_id: z.string().nullable(),
  workspace_root: z.string().nullable(),
  /** Each value is checked by the settings' own schema (settings/agent-settings.ts). */
  settings: z.array(z.object({ key: z.string(), value: z.unknown() })),
  messages: z.array(z.object({ role: z.enum(MessageRole), content: z.string().nullable(), toolCalls: z.unknown(), toolCallId: z.string().nullable() })),
  grants: z.array(z.object({ tool: z.string(), effects: z.array(z.string()) })),
  /** The chat's other tainted runs, earliest first (a few more than the sources an approval names). */
  chat_tainted_runs: z.array(z.object({ run_id: z.string(), tainted_by: taintSourcesSchema.nullable() })),
  open_calls: z.array(
    z.object({
      rowId: z.string(),
      callId: z.string(),
      round: z.number(),
      position: z.number(),
      tool: z.string(),
      arguments: z.unknown(),
      status: z.enum(["pending", "started", "awaiting_approval"]),
      approval: openCallApprovalJson.nullable(),
    }),
  ),
});

export type RunContextRow = z.output<typeof runContextRow>;

/** Everything a worker reads about a run when it takes it (runs/load-run-context.ts); no row: no such run. */
export async function selectRunContext(runner: SqlRunner, runId: string): Promise<RunContextRow | undefined> {
  const [row] = await queryParsed(runner, LOAD_SQL, [runId], runContextRow);
  return row;
}
