import { z } from "zod";
import { type getRunView, RunStatus, TOOL_NAME_PATTERN } from "@agentq/core";
import { jsonObject, timestamp } from "./common-schemas.ts";

export const runStatusSchema = z
  .enum(RunStatus)
  .meta({ id: "RunStatus", description: "`queued`, `running` and `awaiting_approval` are active; the others are final" });

/** A call whose result brought untrusted material into the run (what `tainted_by` lists). */
export const taintSourceSchema = z
  .object({
    run_id: z.string(),
    tool_call_id: z.string().nullable(),
    tool: z.string().nullable(),
    detail: z.string().meta({ description: "what it read, in a few words" }),
  })
  .meta({ id: "TaintSource" });

/** What a send_email approval shows: the mail as it would go out (the whole body is bound, the start shown). */
export const emailApprovalPreviewSchema = z
  .object({
    to: z.array(z.string()),
    cc: z.array(z.string()),
    subject: z.string(),
    body_preview: z.string().meta({ description: "the body, cut at 500 characters (with …)" }),
  })
  .meta({ id: "EmailApprovalPreview" });

/** A call the run is paused on (API.md `Run.pending_approvals[]`). */
export const pendingApprovalSchema = z
  .object({
    id: z.string().meta({ description: "the `tool_approval_id` to decide with POST /api/approvals" }),
    tool: z.string(),
    tool_call_id: z.string(),
    arguments: jsonObject().meta({ description: "the call's arguments as the model gave them" }),
    effects: z.array(z.string()).meta({ description: "`read`, `write`, `process`, `network`, `admin`, `mcp` or `unclassified`" }),
    expires_at: timestamp(),
    tainted_by: z
      .array(taintSourceSchema)
      .nullable()
      .meta({
        description:
          "why it paused: the calls whose results had brought untrusted material into the run, earliest first (at most 5); " +
          "`[]` for a pause not due to taint; null on approvals recorded before this field existed",
      }),
    reason: z.enum(["tainted", "approval_always"]).meta({
      description: "`tainted`: untrusted material had entered the run; `approval_always`: the admin setting names the tool, so every call of it asks",
    }),
    email: emailApprovalPreviewSchema.optional().meta({
      description: "a `send_email` call: the mail it would send, as it is now; the approval is bound to its recipients, subject and body",
    }),
  })
  .meta({ id: "PendingApproval" });

export const runSchema = z
  .object({
    id: z.string(),
    chat_id: z.string(),
    status: runStatusSchema,
    // What the run was asked.
    input: z.string().meta({ description: "the user's message" }),
    model: z.string(),
    mode: z.enum(["agent", "guide"]),
    allow_bash: z.boolean(),
    allow_web_search: z.boolean(),
    use_web: z.boolean(),
    tools: z.array(z.string()).nullable().meta({ description: "the tools the run was limited to; null: every tool its switches allow" }),
    rounds: z.number().int().meta({ description: "model requests made" }),
    tool_calls: z.number().int().meta({ description: "calls executed or answered" }),
    output: z.string().nullable().meta({ description: "the final assistant text once completed" }),
    error: z.object({ code: z.string(), message: z.string() }).nullable(),
    pending_approvals: z.array(pendingApprovalSchema),
    created_at: timestamp(),
    updated_at: timestamp(),
  })
  .meta({ id: "Run" });

export const runListSchema = z.object({ runs: z.array(runSchema).meta({ description: "newest first" }) }).meta({ id: "RunList" });

/** An event of a run (API.md "Events"); `seq` is contiguous per run, from 1. */
export const runEventSchema = z
  .object({
    seq: z.number().int().min(1),
    type: z.string().meta({
      description:
        "`run.queued`, `run.started`, `round.started`, `message.completed`, `tool.started`, `tool.completed`, `approval.required`, " +
        "`approval.decided`, `run.resumed`, `guard.triggered`, `run.completed`, `run.failed`, `run.cancelled` (more may be added)",
    }),
    at: timestamp(),
    data: jsonObject(),
  })
  .meta({ id: "Event" });

export const runEventsPageSchema = z
  .object({
    events: z.array(runEventSchema).meta({ description: "the durable events with `seq > after`, in order" }),
    has_more: z.boolean().meta({ description: "more events follow: ask again with `after` = the last seq" }),
  })
  .meta({ id: "EventsPage" });

export const createRunBodySchema = z
  .object({
    input: z.string().min(1, "input must not be empty").max(1_000_000),
    model: z.string().trim().min(1).max(300).optional().meta({ description: "default: the deployment's DEFAULT_MODEL" }),
    mode: z.enum(["agent", "guide"]).optional().meta({ description: "default `agent`; `guide` sends no tools" }),
    allow_bash: z.boolean().optional().meta({ description: "default false: process tools need it and a workspace" }),
    allow_web_search: z.boolean().optional().meta({ description: "default true; false wins over `use_web`" }),
    use_web: z.boolean().optional().meta({ description: "default false: web tools are offered only when true" }),
    tools: z
      .array(z.string().regex(TOOL_NAME_PATTERN, "a tool name is letters, digits, _ and -, at most 64 characters"))
      .min(1, "list at least one tool (mode `guide` offers none)")
      .max(200)
      .optional()
      .meta({
        description:
          "offer only these tools (names as GET /api/tools lists them; `mcp__<server>__<tool>` for an MCP server's): fewer schemas sent to " +
          "the model each round. The switches and the user's role still apply. Default: every tool they allow",
      }),
    multitask: z
      .enum(["reject", "enqueue", "interrupt"])
      .optional()
      .meta({ description: "a chat with an active run: `reject` (default, 409), `enqueue` behind it, or `interrupt` it" }),
    idempotency_key: z.string().min(1).max(255).optional().meta({ description: "the same key within 24 hours returns the first run" }),
  })
  .meta({ id: "CreateRunRequest" });

type RunView = Awaited<ReturnType<typeof getRunView>>;

/**
 * A run view as the Run schema's type. RunView (core's runs/run-view.ts) types `status` as a string
 * and approval arguments as unknown; they are a RunStatus and JSON objects, which
 * test/api-openapi.test.ts checks on real answers.
 */
export function runBody(view: RunView): z.input<typeof runSchema> {
  return view as z.input<typeof runSchema>;
}
