import { z } from "zod";
import { type ApprovalDecisionRecord, HANDOVER_CONTEXT_MAX_LENGTH, type NewRunStart, type ResumeHandover, type RunGeneration } from "@agentq/core";
import type { RedisClient } from "./create-redis.ts";
import { parseMessage } from "./parse-message.ts";
import { publishMessage } from "./pub-sub.ts";
import { workerChannel, workerStartChannel } from "./redis-keys.ts";

/**
 * A run offered to one worker process instead of a queue job: a new run its admission let through,
 * queued in Postgres, or a run whose approval was decided, queued again or, with `handover`, already
 * leased to that worker.
 * Carried by the worker's own channel (workerChannel), because a job reaches a worker only through
 * BullMQ's fetch loop: the job's add, the marker's wake-up, the move to active, a fetch of the next job
 * before the first is handed over and the move to completed, each a Redis script or round trip through
 * a busy worker (about 30 ms of a resume at 50 runs in flight, and about a tenth of the machine's CPU
 * for a new run, issue 11). The generation is the one a queue job would carry. An offer is not durable: a
 * worker that dies before its take leaves the run queued in Postgres, where the reconciler finds it.
 */
export interface RunOffer {
  runId: string;
  generation: RunGeneration;
  /**
   * The deciding request's trace as its propagators' fields (core activeTraceCarrier: W3C `traceparent`
   * by default, whatever OTEL_PROPAGATORS names), continued by the execution; absent or empty when nothing traces.
   */
  trace?: Record<string, string>;
  /**
   * The decision's commit gave this worker the run's lease already (core runs/resume-handover.ts):
   * `generation.leaseVersion` is that lease's version, and the run's context comes with it.
   */
  handover?: ResumeHandover;
  /**
   * A new run's context as read after its admission, parsed with the offer: the worker starts it with
   * no take (core runs/new-run-start.ts).
   */
  start?: OfferedStart;
  /**
   * The decision on the run's last pending approval, not committed yet: this worker's first commit of
   * the run records it, and the worker tells the deciding API instance what became of it
   * (run-decision-offer.ts). Comes with `handover`; `generation` is the run's as the decision read it.
   */
  decision?: OfferedDecision;
}

/** A decision a worker is offered to commit, and where to say what became of it. */
export interface OfferedDecision {
  record: ApprovalDecisionRecord;
  requestId: string;
  replyTo: string;
}

/** A new run's start as a worker receives it: the context parsed with the offer. */
export interface OfferedStart {
  context: Record<string, unknown>;
  admissionAwaited: boolean;
}

/** An offer as sent: a new run's context goes as the JSON text its read returned (offerRun). */
export type OfferToSend = Omit<RunOffer, "start" | "decision"> & { start?: NewRunStart };

/** A handover as the wire carries it (snake_case), in an offer and in a decision offer (run-decision-offer.ts). */
export const handoverMessageSchema = z
  .object({
    context: z.string().max(HANDOVER_CONTEXT_MAX_LENGTH),
    decided: z
      .array(
        z
          .object({
            approval_id: z.string().min(1).max(200),
            status: z.enum(["allowed", "denied"]),
            edited_arguments: z.record(z.string(), z.unknown()).optional(),
          })
          .strict(),
      )
      .min(1)
      .max(1000),
    grant: z
      .object({ tool: z.string().min(1).max(200), effects: z.array(z.string().max(64)).max(16) })
      .strict()
      .nullable(),
  })
  .strict();

/** The trace fields an offer carries (RunOffer.trace). */
export const traceFieldsSchema = z
  .record(z.string().max(64), z.string().max(1024))
  .refine((fields) => Object.keys(fields).length <= 8, "at most 8 trace fields");

const runOfferMessage = z
  .object({
    // The name of every offer on the wire, kept from when only decided runs were offered: a worker of
    // the earlier release reads a new run's offer as a plain one (no handover) and takes the run.
    type: z.literal("run.resume"),
    run_id: z.string().min(1).max(200),
    last_event_seq: z.number().int().min(0),
    lease_version: z.number().int().min(0),
    trace: traceFieldsSchema.optional(),
    handover: handoverMessageSchema.optional(),
    // Only on the channel of workers that read it (workerStartChannel): this schema is strict, so a
    // worker of an earlier release would drop the whole offer. The context is the JSON its read
    // returned, embedded as it is (checked by the worker as a take's row is: core runs/new-run-start.ts).
    start: z
      .object({ admission_awaited: z.boolean(), context: z.record(z.string(), z.unknown()) })
      .strict()
      .optional(),
  })
  .strict();

/**
 * Offers the run to `workerId`. True when the worker's process is subscribed (it then takes the run,
 * or hands it to the queue when it has no free slot); false when no process listens on that channel
 * (the worker stopped): the caller enqueues the run instead. Throws, publishing nothing, for an offer
 * the worker would not read (a handover past the message's limits). An offer with a new run's `start`
 * goes to the worker's start channel; when nobody listens there (a worker of an earlier release, or
 * none), it is offered again without it, to be taken as before.
 */
export async function offerRun(redis: RedisClient, prefix: string, workerId: string, offer: OfferToSend): Promise<boolean> {
  const message: z.input<typeof runOfferMessage> = {
    type: "run.resume",
    run_id: offer.runId,
    last_event_seq: offer.generation.lastEventSeq,
    lease_version: offer.generation.leaseVersion,
    ...(offer.trace && Object.keys(offer.trace).length > 0 ? { trace: offer.trace } : {}),
    ...(offer.handover ? { handover: handoverMessage(offer.handover) } : {}),
  };
  // Checked as the worker will read it: an offer it would drop (a handover past the limits) is refused
  // here, where the caller can still send the run another way, rather than lost on the worker's side.
  const checked = runOfferMessage.safeParse(message);
  if (!checked.success) throw new Error(`the offer of run ${offer.runId} does not fit the offer message: ${checked.error.message}`);
  const text = JSON.stringify(message);
  const { start } = offer;
  if (start) {
    // The context's JSON text goes in as it is, not escaped into a string: it is most of the message
    // (about 2 KB for a new chat's run), and escaping it here and parsing it twice there cost both ends.
    // Its length is checked by whoever read it (core newRunStart).
    const withStart = `${text.slice(0, -1)},"start":{"admission_awaited":${start.admissionAwaited},"context":${start.context}}}`;
    if ((await publishMessage(redis, workerStartChannel(prefix, workerId), withStart)) > 0) return true;
  }
  return (await publishMessage(redis, workerChannel(prefix, workerId), text)) > 0;
}

/** The offer a worker's channel carried; null for anything else (the channel is Redis', so checked like any input). */
export function parseRunOffer(text: string): RunOffer | null {
  const parsed = parseMessage(runOfferMessage, text);
  if (!parsed) return null;
  const { run_id: runId, last_event_seq: lastEventSeq, lease_version: leaseVersion, trace, handover, start } = parsed;
  return {
    runId,
    generation: { lastEventSeq, leaseVersion },
    ...(trace ? { trace } : {}),
    ...(handover ? { handover: handoverOf(handover) } : {}),
    ...(start ? { start: { context: start.context, admissionAwaited: start.admission_awaited } } : {}),
  };
}

type HandoverMessage = z.input<typeof handoverMessageSchema>;

export function handoverMessage(handover: ResumeHandover): HandoverMessage {
  return {
    context: handover.context,
    decided: handover.decided.map((decided) => ({
      approval_id: decided.approvalId,
      status: decided.status,
      ...(decided.editedArguments !== undefined ? { edited_arguments: decided.editedArguments } : {}),
    })),
    grant: handover.grant && { tool: handover.grant.tool, effects: [...handover.grant.effects] },
  };
}

export function handoverOf(message: z.output<typeof handoverMessageSchema>): ResumeHandover {
  return {
    context: message.context,
    decided: message.decided.map((decided) => ({
      approvalId: decided.approval_id,
      status: decided.status,
      ...(decided.edited_arguments !== undefined ? { editedArguments: decided.edited_arguments } : {}),
    })),
    grant: message.grant,
  };
}
