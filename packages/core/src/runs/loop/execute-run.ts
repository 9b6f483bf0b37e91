import type { Span } from "@opentelemetry/api";
import { inSpan, markSpanFailed, setSpanAttributes } from "../../telemetry/in-span.ts";
import { SpanName, TraceAttribute } from "../../telemetry/trace-attributes.ts";
import { loadRunContext } from "../load-run-context.ts";
import { LeaseLostError } from "../run-errors.ts";
import { releaseLease } from "../run-lease.ts";
import { RunStatus } from "../run-status.ts";
import type { RunLoopDependencies } from "../run-loop-dependencies.ts";
import { assertNever, type RunOutcome } from "../run-outcome.ts";
import { finishExecution } from "./finish-execution.ts";
import { resumeOpenCalls } from "./resume-open-calls.ts";
import { type ExecuteRunInput, type Interruption, RunExecution } from "./run-execution.ts";
import { runRound } from "./run-round.ts";

export type { ExecuteRunInput };

/**
 * Executes a run from wherever Postgres says it stands until it finishes, parks for approval, is
 * handed back, or the lease is lost. Each step is committed before the next begins (invariant 2),
 * so any worker can continue from any point: first the calls a previous execution left open, then
 * rounds until the model answers without calls.
 */
export function executeRun(dependencies: RunLoopDependencies, input: ExecuteRunInput): Promise<RunOutcome> {
  const attributes = () => ({ [TraceAttribute.runId]: input.lease.runId, [TraceAttribute.resumed]: input.lease.resumed });
  return inSpan(SpanName.runExecute, attributes, async (span) => {
    const outcome = await executeRunSteps(dependencies, input, span);
    span.setAttribute(TraceAttribute.outcome, outcome.kind);
    // The code only: a run's error message can quote what the model or a tool said.
    if (outcome.kind === "failed") markSpanFailed(span, outcome.error.code);
    return outcome;
  });
}

async function executeRunSteps(dependencies: RunLoopDependencies, input: ExecuteRunInput, span: Span): Promise<RunOutcome> {
  const context = input.context ?? (await loadRunContext(dependencies.prisma, input.lease.runId));
  setSpanAttributes(span, () => ({ [TraceAttribute.chatId]: context.run.chatId, [TraceAttribute.genAiRequestModel]: context.run.model }));
  const execution = new RunExecution(dependencies, input, context);
  try {
    stageStart(execution);
    let step = await resumeOpenCalls(execution);
    while (step.kind === "next_round") step = await runRound(execution);
    switch (step.kind) {
      case "finished":
        return await finishExecution(execution, "completed", { output: step.output });
      case "stop":
        return await settle(execution, step.outcome);
      default:
        return assertNever(step);
    }
  } catch (error) {
    if (error instanceof LeaseLostError) return { kind: "lease_lost" };
    throw error;
  }
}

/** The first commit of an execution: `run.started` (first time) or `run.resumed`, and the user's input. */
function stageStart(execution: RunExecution): void {
  const { lease } = execution.input;
  const { run } = execution.context;
  const firstStart = !lease.resumed;
  const { chatTaintedBy } = execution.context;
  const becameTainted = !run.tainted && chatTaintedBy.length > 0;
  // Staged: committed together with whatever the execution does first.
  execution.stage((change) => {
    // A run handed over by its decision is still queued, leased to this worker (runs/resume-handover.ts);
    // a take made the others running already.
    if (run.status !== RunStatus.running) change.status = RunStatus.running;
    change.tainted ||= becameTainted;
    if (becameTainted) change.taintedBy = chatTaintedBy;
    change.events.push(
      firstStart
        ? { type: "run.started", data: { model: run.model, mode: run.mode } }
        : { type: "run.resumed", data: { reason: lease.previousStatus === "queued" ? "approval" : "recovered" } },
    );
    if (firstStart) change.messages.push({ id: execution.dependencies.generateId("msg"), role: "user", content: run.input });
  });
  if (becameTainted) {
    run.tainted = true;
    run.taintedBy = chatTaintedBy;
  }
  if (firstStart) execution.context.transcript.push({ role: "user", content: run.input });
}

/** Turns an interruption into its final form: a cancel is finished here; a hand-back commits what is staged and releases the lease. */
async function settle(execution: RunExecution, outcome: Interruption): Promise<RunOutcome> {
  if (outcome === "cancel") return finishExecution(execution, "cancelled", {});
  if (outcome.kind === "handed_back") {
    await execution.flush();
    await releaseLease(execution.dependencies.prisma, execution.input.lease);
  }
  return outcome;
}
