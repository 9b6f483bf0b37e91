import { activeTraceCarrier, type DecisionCommitOutcome, generateId, type Logger, type WorkerDecisionRequest } from "@agentq/core";
import { apiDecisionReplyChannel, offerDecision, onChannelMessage, parseDecisionReply, type RedisClient, subscribeChannel } from "@agentq/queue";
import { withDeadline } from "./with-deadline.ts";

/**
 * How long a decision left to a worker waits for the worker's answer. Default 5 s, as long as a
 * handed-over run waits for a slot (the worker's OFFER_MAX_WAIT_MS): the answer comes once the run's
 * first commit is back, tens of milliseconds on a busy worker. Past it the API looks for the decision's
 * commit itself and, finding none, commits the decision.
 */
export const DECISION_REPLY_WAIT_MS = 5000;

export interface WorkerDecisionsOptions {
  /** Publishes the offers (a command connection). */
  publisher: RedisClient;
  /** The instance's subscriber connection: the answers come on a channel of this instance's own. */
  subscriber: RedisClient;
  prefix: string;
  /** How long publishing an offer may take before its fate is unknown. */
  publishWaitMs: number;
  /** Default DECISION_REPLY_WAIT_MS. */
  replyWaitMs?: number;
  /** Told of a worker that no process listens for (it stopped): not offered runs until its next beat. */
  unheard: (worker: string) => void;
  logger: Logger;
}

/**
 * The API's side of the decisions it leaves to workers (core runs/decide-approval.ts, queue
 * run-decision-offer.ts): each offer goes to the worker the run is handed to, and the worker answers
 * on this instance's reply channel once its first commit of the run is back. Until Redis has confirmed
 * that channel's subscription, and for a worker that does not listen, decisions are declined here:
 * the API then commits them itself, as before.
 */
export function workerDecisions(options: WorkerDecisionsOptions): (request: WorkerDecisionRequest) => Promise<DecisionCommitOutcome> {
  const replyChannel = apiDecisionReplyChannel(options.prefix, generateId("api"));
  const awaitingAnswer = new Map<string, (outcome: DecisionCommitOutcome) => void>();
  let listening = false;
  onChannelMessage(options.subscriber, (channel, text) => {
    if (channel !== replyChannel) return;
    const reply = parseDecisionReply(text);
    if (reply) awaitingAnswer.get(reply.requestId)?.(reply.outcome);
  });
  // Not awaited: an API that starts while Redis is down leaves its decisions to itself until it is back.
  subscribeChannel(options.subscriber, replyChannel).then(
    () => (listening = true),
    (error: unknown) => options.logger.warn({ err: error }, "could not subscribe to workers' answers; decisions are committed by the API"),
  );

  return async ({ worker, generation, handover, record }) => {
    if (!listening) return { kind: "declined" };
    const requestId = generateId("dec");
    const answered = new Promise<DecisionCommitOutcome>((resolve) => awaitingAnswer.set(requestId, resolve));
    try {
      const offer = { runId: record.runId, generation, trace: activeTraceCarrier(), handover, decision: { record, requestId, replyTo: replyChannel } };
      const heard = await withDeadline(
        offerDecision(options.publisher, options.prefix, worker, offer),
        options.publishWaitMs,
        (): "unanswered" => "unanswered",
      ).catch((error: unknown): "failed" => {
        options.logger.warn({ err: error, run_id: record.runId, worker_id: worker }, "could not offer a decision to a worker");
        return "failed";
      });
      if (heard === false) {
        options.unheard(worker);
        return { kind: "declined" };
      }
      // A publish that failed or took too long may still have reached the worker.
      if (heard !== true) return { kind: "unknown" };
      return await withDeadline(answered, options.replyWaitMs ?? DECISION_REPLY_WAIT_MS, (): DecisionCommitOutcome => ({ kind: "unknown" }));
    } finally {
      awaitingAnswer.delete(requestId);
    }
  };
}
