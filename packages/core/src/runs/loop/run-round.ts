import type { Span } from "@opentelemetry/api";
import { inSpan } from "../../telemetry/in-span.ts";
import { SpanName, TraceAttribute } from "../../telemetry/trace-attributes.ts";
import { detectPromisedAction, PROMISED_ACTION_NUDGE } from "../guards/promised-action.ts";
import { runErrorOf } from "../run-error.ts";
import type { ModelResolver } from "../run-loop-dependencies.ts";
import type { StepOutcome } from "../run-outcome.ts";
import { checkTokenQuota } from "./check-token-quota.ts";
import { finishExecution } from "./finish-execution.ts";
import { checkRoundBudget, prepareRound } from "./prepare-round.ts";
import { recordModelResponse } from "./record-model-response.ts";
import { requestModel } from "./request-model.ts";
import type { RunExecution } from "./run-execution.ts";
import { runToolCalls } from "./run-tool-calls.ts";

/** One model request and what follows from its answer: the next round, the run's end, or a stop. */
export function runRound(execution: RunExecution): Promise<StepOutcome> {
  return inSpan(
    SpanName.round,
    () => ({ [TraceAttribute.runId]: execution.context.run.id }),
    (span) => runRoundSteps(execution, span),
  );
}

async function runRoundSteps(execution: RunExecution, span: Span): Promise<StepOutcome> {
  const interruption = execution.interruption();
  if (interruption) return { kind: "stop", outcome: interruption };
  const { context, dependencies } = execution;
  const { run, settings } = context;
  const overBudget = checkRoundBudget(context);
  if (overBudget) return { kind: "stop", outcome: await finishExecution(execution, "failed", overBudget) };
  const overQuota = await checkTokenQuota(execution);
  if (overQuota) return { kind: "stop", outcome: await finishExecution(execution, "failed", overQuota) };

  let resolved: ReturnType<ModelResolver["resolve"]>;
  try {
    resolved = dependencies.models.resolve(run.model);
  } catch (error) {
    return { kind: "stop", outcome: await finishExecution(execution, "failed", { error: runErrorOf(error, "model_unavailable") }) };
  }
  const prepared = prepareRound({
    context,
    loopState: execution.loopState,
    tools: dependencies.tools,
    offer: execution.offerContext,
    contextWindow: resolved.contextWindow,
  });
  if (prepared.kind === "failed") return { kind: "stop", outcome: await finishExecution(execution, "failed", prepared) };

  span.setAttribute(TraceAttribute.round, prepared.round);
  execution.loopState = prepared.loopState;
  execution.stage((change) => {
    change.increments.rounds += 1;
    change.events.push(...prepared.events);
  });
  // Committed before the request: a crash mid-stream still counts the request and shows the round.
  await execution.flush();
  run.rounds = prepared.round;

  const requested = await requestModel({
    runId: run.id,
    client: resolved.client,
    model: resolved.model,
    messages: prepared.messages,
    tools: prepared.tools,
    signal: execution.input.signal,
    inactivityTimeoutMs: settings.agent_stream_timeout_seconds * 1000,
    publishDelta: (text) => dependencies.publisher.publishDelta(run, text),
    deltaFlushMs: dependencies.deltaFlushMs ?? 25,
  });
  if (requested.kind !== "answered") {
    // An abort (cancel, lease lost, shutdown) surfaces as a failed request: it is not the model's fault.
    const stopped = execution.interruption();
    if (stopped) return { kind: "stop", outcome: stopped };
    if (requested.kind === "stream_timeout") {
      const timeout = settings.agent_stream_timeout_seconds;
      return {
        kind: "stop",
        outcome: await finishExecution(execution, "failed", {
          error: { code: "stream_timeout", message: `the model sent nothing for ${timeout} s (agent_stream_timeout_seconds)` },
          events: [{ type: "guard.triggered", data: { guard: "stream_timeout", timeout_seconds: timeout } }],
        }),
      };
    }
    dependencies.logger.warn({ run_id: run.id, err: requested.error }, "model request failed");
    return { kind: "stop", outcome: await finishExecution(execution, "failed", { error: runErrorOf(requested.error, "model_error") }) };
  }

  const { response } = requested;
  const calls = recordModelResponse(execution, response, prepared.round);
  if (calls.length > 0) {
    // Nothing has run since the round began: the run's taint is still the round's.
    return runToolCalls(execution, calls, { tainted: run.tainted, taintedBy: run.taintedBy, sentTools: prepared.loopState.roundTools });
  }
  const mayNudge = !execution.loopState.nudged && !prepared.finalAnswerRound && prepared.tools.length > 0;
  if (mayNudge && detectPromisedAction(response.text)) {
    execution.loopState = { ...execution.loopState, nudged: true, pendingNote: PROMISED_ACTION_NUDGE };
    execution.stage((change) => change.events.push({ type: "guard.triggered", data: { guard: "promised_action", round: prepared.round } }));
    return { kind: "next_round" };
  }
  return { kind: "finished", output: response.text };
}
