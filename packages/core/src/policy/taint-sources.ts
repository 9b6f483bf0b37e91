import { z } from "zod";

/** A run keeps, and an approval names, at most this many sources: the earliest ones say why. */
export const TAINT_SOURCE_LIMIT = 5;

/**
 * A call whose result brought untrusted material into a run (API.md, approvals' `tainted_by`):
 * the run and call, the tool, and what it read in a few words (tools/describe-tool-call.ts).
 * `tool_call_id` and `tool` are null when only the run is known (a run from before sources were
 * recorded).
 */
export const taintSourceSchema = z.object({
  run_id: z.string(),
  tool_call_id: z.string().nullable(),
  tool: z.string().nullable(),
  detail: z.string(),
});

export type TaintSource = z.infer<typeof taintSourceSchema>;

export const taintSourcesSchema = z.array(taintSourceSchema);

/** A tainted run whose sources were not recorded (it ran before they were): only the run is named. */
export function unrecordedTaintSource(runId: string, whose: "this_run" | "earlier_run"): TaintSource {
  return {
    run_id: runId,
    tool_call_id: null,
    tool: null,
    detail:
      whose === "earlier_run" ? "an earlier run of this chat read untrusted material" : "this run read untrusted material before its sources were recorded",
  };
}

/** Sources in order, each call once (an earlier run's sources reach later runs more than once), at most five. */
export function mergeTaintSources(...lists: readonly (readonly TaintSource[])[]): TaintSource[] {
  const merged: TaintSource[] = [];
  const seen = new Set<string>();
  for (const source of lists.flat()) {
    if (merged.length === TAINT_SOURCE_LIMIT) break;
    const key = JSON.stringify([source.run_id, source.tool_call_id]);
    if (seen.has(key)) continue;
    seen.add(key);
    merged.push(source);
  }
  return merged;
}

/** A stored `tainted_by` (a run's or an approval's): null when none was recorded. */
export function parseTaintSources(value: unknown): TaintSource[] | null {
  return value === null || value === undefined ? null : taintSourcesSchema.parse(value);
}
