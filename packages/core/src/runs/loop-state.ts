import { z } from "zod";

/**
 * Loop bookkeeping that must survive a crash or a resume, stored in `runs.loop_state`.
 * Versioned so a worker of a newer release can read what an older one wrote.
 */
export const loopStateSchema = z.object({
  version: z.literal(1).default(1),
  /** Identical-call counts by signature (tool name + canonical arguments). */
  callCounts: z.record(z.string(), z.number()).default({}),
  /** The next round is sent without tools (repeated calls or an exhausted call budget). */
  finalAnswerRound: z.boolean().default(false),
  /** A nudge was sent after the model promised an action without calling a tool. */
  nudged: z.boolean().default(false),
  /**
   * Whether the run was tainted when the current round started: its calls are judged by what the
   * model had seen when it asked for them, also when a crash makes another worker finish the round.
   */
  roundTainted: z.boolean().nullable().default(null),
  /**
   * How many of the run's taint sources (`runs.tainted_by`) had entered when the current round
   * started: a call it pauses names those, not material read after the model asked for it. Null in
   * state written before this field existed (all the sources are named).
   */
  roundTaintSources: z.number().int().nonnegative().nullable().default(null),
  /**
   * The names of the tools sent to the model in the current round (empty in a final answer round):
   * the executor runs only calls of these (invariant 8), also when another worker finishes the round.
   * Null in state written before this field existed.
   */
  roundTools: z.array(z.string()).nullable().default(null),
  /** A transient instruction for the next round only (the nudge), not part of the chat. */
  pendingNote: z.string().nullable().default(null),
});

export type LoopState = z.infer<typeof loopStateSchema>;

export function parseLoopState(value: unknown): LoopState {
  const parsed = loopStateSchema.safeParse(value ?? {});
  return parsed.success ? parsed.data : loopStateSchema.parse({});
}
