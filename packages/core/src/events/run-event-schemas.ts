import { z } from "zod";
import { taintSourcesSchema } from "../policy/taint-sources.ts";
import { GUARD_NAMES, type RunEventType } from "./run-event.ts";

const toolCallRef = { tool_call_id: z.string(), tool: z.string() };
const runError = z.object({ code: z.string(), message: z.string() });

/** A guard's event: which guard, plus the figures that explain it (limits, counts, the call). */
const guardTriggered = z.object({
  guard: z.enum(GUARD_NAMES),
  tool: z.string().optional(),
  tool_call_id: z.string().optional(),
  count: z.number().int().optional(),
  limit: z.number().int().optional(),
  round: z.number().int().optional(),
  budget: z.number().int().optional(),
  truncated_results: z.number().int().optional(),
  input_tokens: z.number().int().optional(),
  timeout_seconds: z.number().optional(),
});

/**
 * The `data` of every durable event type (API.md, "Events"; the README lists them). Events are
 * typed from these where they are built (`NewRunEvent`), and the integration tests check every event
 * they read against them (`parseRunEventData`), so a field cannot drift from what clients read.
 */
export const RUN_EVENT_DATA = {
  "run.queued": z.object({ multitask: z.enum(["reject", "enqueue", "interrupt"]) }),
  "run.started": z.object({ model: z.string(), mode: z.enum(["agent", "guide"]) }),
  "round.started": z.object({ round: z.number().int().positive(), tools: z.array(z.string()) }),
  "message.completed": z.object({
    round: z.number().int().positive(),
    role: z.literal("assistant"),
    content: z.string(),
    tool_calls: z.array(z.object({ id: z.string(), name: z.string(), arguments: z.record(z.string(), z.unknown()) })),
    usage: z.object({ input_tokens: z.number().int(), output_tokens: z.number().int() }),
  }),
  "tool.started": z.object({ ...toolCallRef, arguments: z.unknown() }),
  "tool.completed": z.union([
    z.object({ ...toolCallRef, ok: z.literal(true), result: z.string(), data: z.record(z.string(), z.unknown()).optional() }),
    z.object({ ...toolCallRef, ok: z.literal(false), error: z.string() }),
  ]),
  "approval.required": z.object({
    approval_id: z.string(),
    ...toolCallRef,
    arguments: z.unknown(),
    effects: z.array(z.string()),
    expires_at: z.string(),
    /**
     * Why the call paused: the calls whose results had tainted the run (or an earlier run of its
     * chat), earliest first, at most five; empty when the pause is not for taint. Absent in events
     * recorded before it was added.
     */
    tainted_by: taintSourcesSchema.optional(),
    /** `tainted`, or `approval_always` when the admin setting names the tool. Absent in older events. */
    reason: z.enum(["tainted", "approval_always"]).optional(),
    /** A send_email call: the mail it would send (recipients, subject, the start of the body). */
    email: z.object({ to: z.array(z.string()), cc: z.array(z.string()), subject: z.string(), body_preview: z.string() }).optional(),
  }),
  "approval.decided": z.object({
    approval_id: z.string(),
    ...toolCallRef,
    decision: z.enum(["allow_task", "allow_chat", "deny"]),
    decided_by: z.string(),
    edited: z.boolean(),
    /** Decided by a grant another decision made (allow_task / allow_chat covering a sibling call). */
    covered_by: z.string().optional(),
  }),
  "run.resumed": z.object({ reason: z.enum(["approval", "recovered"]) }),
  "guard.triggered": guardTriggered,
  "run.completed": z.object({ output: z.string() }),
  "run.failed": z.object({ error: runError.optional() }),
  "run.cancelled": z.object({ reason: z.string() }),
} as const satisfies Record<RunEventType, z.ZodType>;

/** The data of an event of type `K`, as it is built. */
export type RunEventData<K extends RunEventType> = z.input<(typeof RUN_EVENT_DATA)[K]>;

/** Checks an event's data against its type's schema; the error names the type and the field. */
export function parseRunEventData(type: string, data: unknown): void {
  const schema = (RUN_EVENT_DATA as Record<string, z.ZodType>)[type];
  if (schema === undefined) throw new Error(`unknown event type ${type}`);
  const parsed = schema.safeParse(data);
  if (!parsed.success)
    throw new Error(`event ${type}: ${parsed.error.issues.map((issue) => `${issue.path.join(".") || "(data)"}: ${issue.message}`).join("; ")}`);
}
