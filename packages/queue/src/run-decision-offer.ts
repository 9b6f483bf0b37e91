import { z } from "zod";
import { approvalDecisionRecord, type DecisionCommitOutcome, RunStatus } from "@agentq/core";
import type { RedisClient } from "./create-redis.ts";
import { parseMessage } from "./parse-message.ts";
import { publishMessage } from "./pub-sub.ts";
import { workerDecisionChannel } from "./redis-keys.ts";
import { handoverMessage, handoverMessageSchema, handoverOf, type RunOffer, traceFieldsSchema } from "./run-offer.ts";

/**
 * A decided approval whose commit the deciding API instance leaves to the worker it hands the run to
 * (core runs/decide-approval.ts): the worker's first commit of the run records the decision and takes
 * the lease in one statement, where the decision's own commit and then the worker's were two round
 * trips, one after the other, on the path a resumed run waits on (issue 11). Sent on the worker's
 * decision channel (workerDecisionChannel), which a worker of an earlier release does not read; the
 * worker answers on the instance's reply channel (apiDecisionReplyChannel) with `request_id`.
 */
const decisionOfferMessage = z
  .object({
    type: z.literal("run.decide"),
    request_id: z.string().min(1).max(200),
    reply_to: z.string().min(1).max(500),
    run_id: z.string().min(1).max(200),
    /** The run's last event seq and lease version as the decision read them: the first commit's fence. */
    last_event_seq: z.number().int().min(0),
    lease_version: z.number().int().min(0),
    trace: traceFieldsSchema.optional(),
    handover: handoverMessageSchema,
    decision: approvalDecisionRecord,
  })
  .strict();

/** A decision offer, as the API sends it and the worker reads it: an offer with its handover and its decision. */
export type DecisionOffer = Omit<RunOffer, "start"> & Required<Pick<RunOffer, "handover" | "decision">>;

/**
 * Offers the decision to `workerId`: true when a process of that worker heard it (it answers on
 * `replyTo`), false when none listens (nothing reached anyone: the caller commits the decision). Throws,
 * publishing nothing, for an offer the worker would not read (past the message's limits).
 */
export async function offerDecision(redis: RedisClient, prefix: string, workerId: string, offer: DecisionOffer): Promise<boolean> {
  const message: z.input<typeof decisionOfferMessage> = {
    type: "run.decide",
    request_id: offer.decision.requestId,
    reply_to: offer.decision.replyTo,
    run_id: offer.runId,
    last_event_seq: offer.generation.lastEventSeq,
    lease_version: offer.generation.leaseVersion,
    ...(offer.trace && Object.keys(offer.trace).length > 0 ? { trace: offer.trace } : {}),
    handover: handoverMessage(offer.handover),
    decision: offer.decision.record,
  };
  const checked = decisionOfferMessage.safeParse(message);
  if (!checked.success) throw new Error(`the decision offer of run ${offer.runId} does not fit the message: ${checked.error.message}`);
  return (await publishMessage(redis, workerDecisionChannel(prefix, workerId), JSON.stringify(message))) > 0;
}

/** The decision offer a worker's decision channel carried, as an offer with its `decision`; null for anything else. */
export function parseDecisionOffer(text: string): DecisionOffer | null {
  const parsed = parseMessage(decisionOfferMessage, text);
  if (!parsed) return null;
  const { request_id: requestId, reply_to: replyTo, run_id: runId, last_event_seq: lastEventSeq, lease_version: leaseVersion, trace } = parsed;
  // The decision is of this run: a record of another run's would be committed against the wrong row.
  if (parsed.decision.runId !== runId) return null;
  return {
    runId,
    generation: { lastEventSeq, leaseVersion },
    ...(trace ? { trace } : {}),
    handover: handoverOf(parsed.handover),
    decision: { record: parsed.decision, requestId, replyTo },
  };
}

const decisionReplyMessage = z
  .object({
    request_id: z.string().min(1).max(200),
    outcome: z.enum(["committed", "refused", "declined", "unknown"]),
    approvals_decided: z.number().int().min(0).optional(),
    status: z.enum(RunStatus).optional(),
  })
  .strict();

/** Answers a decision offer on its reply channel (best effort: an answer lost is an outcome the API verifies itself). */
export async function replyToDecision(redis: RedisClient, replyTo: string, requestId: string, outcome: DecisionCommitOutcome): Promise<void> {
  const message: z.input<typeof decisionReplyMessage> = {
    request_id: requestId,
    outcome: outcome.kind,
    ...(outcome.kind === "committed" ? { approvals_decided: outcome.approvalsDecided, status: outcome.status } : {}),
  };
  await publishMessage(redis, replyTo, JSON.stringify(message));
}

/** A worker's answer to a decision offer; null for anything else. */
export function parseDecisionReply(text: string): { requestId: string; outcome: DecisionCommitOutcome } | null {
  const parsed = parseMessage(decisionReplyMessage, text);
  if (!parsed) return null;
  const { request_id: requestId, outcome, approvals_decided: approvalsDecided, status } = parsed;
  if (outcome !== "committed") return { requestId, outcome: { kind: outcome } };
  if (approvalsDecided === undefined || status === undefined) return null;
  return { requestId, outcome: { kind: "committed", approvalsDecided, status } };
}
