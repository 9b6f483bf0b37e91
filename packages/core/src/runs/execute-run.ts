import type { NewRunEvent } from "../events/run-event.ts";
import type { ModelMessage, ModelResponse } from "../models/model-client.ts";
import { StreamTimeoutError } from "../models/model-errors.ts";
import { offeredTools, type ToolOfferContext } from "../policy/offered-tools.ts";
import { sqlPoolOf } from "../store/create-prisma-client.ts";
import { commitRunStatement, emptyStatementChange, isEmptyStatementChange, type RunStatementChange } from "../store/run-statement.ts";
import type { ToolDefinition } from "../tools/tool-definition.ts";
import { createDeltaBuffer } from "./delta-buffer.ts";
import { fitTokenBudget, resolveInputTokenBudget } from "./fit-token-budget.ts";
import { detectPromisedAction, PROMISED_ACTION_NUDGE } from "./guards/promised-action.ts";
import { loadRunContext, type RunContext } from "./load-run-context.ts";
import type { LoopState } from "./loop-state.ts";
import { normalizeToolCalls, toStoredToolCalls } from "./normalize-tool-calls.ts";
import { abortReasonOf } from "./run-abort.ts";
import { type RunError, runErrorOf } from "./run-error.ts";
import { LeaseLostError } from "./run-errors.ts";
import { releaseLease, type RunLease } from "./run-lease.ts";
import { finishRun, type FinishKind } from "./finish-run.ts";
import type { RunLoopDependencies } from "./run-loop-dependencies.ts";
import { assertNever, type RunOutcome, type StepOutcome } from "./run-outcome.ts";
import { RoundToolCalls } from "./round-tool-calls.ts";
import { buildSystemPrompt } from "./system-prompt.ts";

export interface ExecuteRunInput {
  lease: RunLease;
  /** Aborted on cancel, on lease loss, or at the hard deadline of a shutdown (see RunAbort). */
  signal: AbortSignal;
  /** True once the worker is shutting down: stop at the next committed point and hand the run back. */
  shouldHandBack: () => boolean;
}

/**
 * Executes a run from wherever Postgres says it stands until it finishes, parks for approval, is
 * handed back, or the lease is lost. Each step is committed before the next begins (invariant 2),
 * so any worker can continue from any point.
 */
export async function executeRun(dependencies: RunLoopDependencies, input: ExecuteRunInput): Promise<RunOutcome> {
  const context = await loadRunContext(dependencies.prisma, input.lease.runId);
  const execution = new RunExecution(dependencies, input, context);
  try {
    return await execution.run();
  } catch (error) {
    if (error instanceof LeaseLostError) return { kind: "lease_lost" };
    throw error;
  }
}

/** One worker's execution of one run: the in-memory mirror of what it has committed. */
export class RunExecution {
  readonly dependencies: RunLoopDependencies;
  readonly input: ExecuteRunInput;
  readonly context: RunContext;
  /** Mirrors run.cancel_requested as of the last commit. */
  cancelRequested: boolean;
  loopState: LoopState;
  readonly usedCallIds: Set<string>;

  constructor(dependencies: RunLoopDependencies, input: ExecuteRunInput, context: RunContext) {
    this.dependencies = dependencies;
    this.input = input;
    this.context = context;
    this.cancelRequested = context.run.cancelRequested;
    this.loopState = context.loopState;
    this.usedCallIds = new Set(context.transcript.flatMap((message) => (message.role === "assistant" ? (message.toolCalls ?? []).map((call) => call.id) : [])));
  }

  get runId(): string {
    return this.context.run.id;
  }

  get offerContext(): ToolOfferContext {
    const { run } = this.context;
    return {
      mode: run.mode,
      allowBash: run.allowBash,
      allowWebSearch: run.allowWebSearch,
      useWeb: run.useWeb,
      hasWorkspace: this.context.workspace !== null,
      role: this.context.role,
      settings: this.context.settings,
    };
  }

  /**
   * Changes recorded but not yet committed. Consecutive changes with no side effect between them
   * (a call's result and the next round's start, an assistant message and its first call's start)
   * share one commit; `flush()` runs before every side effect (a tool handler, a model request) and
   * before the execution ends, so invariant 2 holds where it matters.
   */
  #staged: RunStatementChange | null = null;

  /** Records a change to commit with the next flush (hot path: one SQL statement per flush). */
  stage(apply: (change: RunStatementChange) => void): void {
    this.#staged ??= emptyStatementChange(this.runId, this.input.lease.leaseVersion);
    apply(this.#staged);
  }

  /** Commits what is staged under this worker's lease, then publishes its events. */
  async flush(): Promise<void> {
    const staged = this.#staged;
    this.#staged = null;
    if (!staged || isEmptyStatementChange(staged)) return;
    if (staged.loopState === undefined) staged.loopState = this.loopState;
    const result = await commitRunStatement(sqlPoolOf(this.dependencies.prisma), staged, this.dependencies.clock());
    if (!result) throw new LeaseLostError(this.runId);
    this.cancelRequested = result.run.cancelRequested;
    if (result.events.length > 0) {
      this.dependencies.publisher.publishEvents(this.runId, result.events).catch((error: unknown) => {
        this.dependencies.logger.warn({ run_id: this.runId, err: error }, "publishing run events failed; subscribers replay from Postgres");
      });
    }
  }

  /** Why the loop must stop now, if it must: checked before every model request and tool call. */
  interruption(): RunOutcome | "cancel" | null {
    const reason = abortReasonOf(this.input.signal);
    if (reason === "lease_lost") return { kind: "lease_lost" };
    if (this.cancelRequested || reason === "cancel") return "cancel";
    if (reason === "shutdown" || this.input.shouldHandBack()) return { kind: "handed_back" };
    return null;
  }

  async run(): Promise<RunOutcome> {
    await this.start();
    const calls = new RoundToolCalls(this);
    const resumed = await calls.resumeOpenCalls();
    if (resumed.kind === "stop") return this.settle(resumed.outcome);
    for (;;) {
      const step = await this.round(calls);
      switch (step.kind) {
        case "next_round":
          continue;
        case "finished":
          return this.finish("completed", { output: step.output });
        case "stop":
          return this.settle(step.outcome);
        default:
          return assertNever(step);
      }
    }
  }

  /** The first commit of an execution: `run.started` (first time) or `run.resumed`, and the user's input. */
  async start(): Promise<void> {
    const { lease } = this.input;
    const { run } = this.context;
    const firstStart = !lease.resumed;
    const becameTainted = !run.tainted && this.context.chatTainted;
    // Staged: committed together with whatever the execution does first.
    this.stage((change) => {
      change.tainted ||= becameTainted;
      change.events.push(
        firstStart
          ? { type: "run.started", data: { model: run.model, mode: run.mode } }
          : { type: "run.resumed", data: { reason: lease.previousStatus === "queued" ? "approval" : "recovered" } },
      );
      if (firstStart) change.messages.push({ id: this.dependencies.generateId("msg"), role: "user", content: run.input });
    });
    if (becameTainted) run.tainted = true;
    if (firstStart) this.context.transcript.push({ role: "user", content: run.input });
  }

  /** Turns an interruption into its final form: a cancel is finished here, others pass through. */
  async settle(outcome: RunOutcome | "cancel"): Promise<RunOutcome> {
    if (outcome === "cancel") return this.finish("cancelled", {});
    if (outcome.kind === "handed_back") {
      await this.flush();
      await this.handBack();
    }
    return outcome;
  }

  async handBack(): Promise<void> {
    await releaseLease(this.dependencies.prisma, this.input.lease);
  }

  async finish(kind: FinishKind, detail: { output?: string; error?: RunError; events?: NewRunEvent[] }): Promise<RunOutcome> {
    return finishRun(this, kind, detail);
  }

  /** One model request and what follows from its answer. */
  async round(calls: RoundToolCalls): Promise<StepOutcome> {
    const interruption = this.interruption();
    if (interruption) return { kind: "stop", outcome: interruption };
    const { run, settings } = this.context;
    if (run.rounds >= settings.agent_max_rounds) {
      return {
        kind: "stop",
        outcome: await this.finish("failed", {
          error: { code: "round_budget", message: `the run reached agent_max_rounds (${settings.agent_max_rounds}) while still calling tools` },
          events: [{ type: "guard.triggered", data: { guard: "round_budget", limit: settings.agent_max_rounds } }],
        }),
      };
    }

    let resolved: ReturnType<RunLoopDependencies["models"]["resolve"]>;
    try {
      resolved = this.dependencies.models.resolve(run.model);
    } catch (error) {
      return { kind: "stop", outcome: await this.finish("failed", { error: runErrorOf(error, "model_unavailable") }) };
    }
    const toolsForRound: ToolDefinition[] = this.loopState.finalAnswerRound ? [] : offeredTools(this.dependencies.tools.list(), this.offerContext);
    const toolSchemas = toolsForRound.map((tool) => this.dependencies.tools.toModelSchema(tool));
    const note = this.loopState.pendingNote;
    const messages: ModelMessage[] = [
      {
        role: "system",
        content: buildSystemPrompt(
          this.context,
          toolsForRound.map((tool) => tool.name),
        ),
      },
      ...this.context.transcript,
      ...(note ? [{ role: "user" as const, content: note }] : []),
    ];
    const budget = resolveInputTokenBudget({
      configured: settings.agent_input_token_budget,
      hardMax: settings.agent_input_token_hard_max,
      contextWindow: resolved.contextWindow,
    });
    const fitted = fitTokenBudget({ messages, tools: toolSchemas, budget });
    const roundNumber = run.rounds + 1;
    const roundEvents: NewRunEvent[] = [{ type: "round.started", data: { round: roundNumber, tools: toolSchemas.map((tool) => tool.name) } }];
    if (fitted.truncated > 0) roundEvents.push({ type: "guard.triggered", data: { guard: "token_budget", budget, truncated_results: fitted.truncated } });
    if (fitted.overBudget) {
      return {
        kind: "stop",
        outcome: await this.finish("failed", {
          error: {
            code: "token_budget",
            message: `the conversation needs ${fitted.inputTokens} input tokens, over the budget of ${budget}, even after truncating tool results`,
          },
          events: [{ type: "guard.triggered", data: { guard: "token_budget", budget, input_tokens: fitted.inputTokens } }],
        }),
      };
    }
    const wasFinalAnswerRound = this.loopState.finalAnswerRound;
    this.loopState = {
      ...this.loopState,
      finalAnswerRound: false,
      pendingNote: null,
      roundTainted: run.tainted,
      roundTools: toolsForRound.map((tool) => tool.name),
    };
    this.stage((change) => {
      change.increments.rounds += 1;
      change.events.push(...roundEvents);
    });
    // Committed before the request: a crash mid-stream still counts the request and shows the round.
    await this.flush();
    run.rounds = roundNumber;

    const response = await this.requestModel(resolved.client, resolved.model, fitted.messages, toolSchemas);
    if ("kind" in response) return response;

    const normalized = normalizeToolCalls(response.toolCalls, this.usedCallIds, this.dependencies.generateId);
    const storedCalls = toStoredToolCalls(normalized);
    const rowIds = normalized.map(() => this.dependencies.generateId("tc"));
    this.stage((change) => {
      change.increments.inputTokens += response.usage.inputTokens;
      change.increments.outputTokens += response.usage.outputTokens;
      change.events.push({
        type: "message.completed",
        data: {
          round: roundNumber,
          role: "assistant",
          content: response.text,
          tool_calls: storedCalls,
          usage: { input_tokens: response.usage.inputTokens, output_tokens: response.usage.outputTokens },
        },
      });
      change.messages.push({
        id: this.dependencies.generateId("msg"),
        role: "assistant",
        content: response.text.length > 0 ? response.text : null,
        toolCalls: storedCalls,
      });
      normalized.forEach((call, position) => {
        change.toolCallInserts.push({
          id: rowIds[position]!,
          callId: call.id,
          round: roundNumber,
          position,
          tool: call.name,
          arguments: call.storedArguments,
          status: "pending",
          effects: [],
        });
      });
    });
    this.context.transcript.push({
      role: "assistant",
      content: response.text.length > 0 ? response.text : null,
      ...(normalized.length > 0 ? { toolCalls: normalized.map((call) => ({ id: call.id, name: call.name, argumentsText: call.argumentsText })) } : {}),
    });

    if (normalized.length === 0) {
      if (!this.loopState.nudged && !wasFinalAnswerRound && toolSchemas.length > 0 && detectPromisedAction(response.text)) {
        this.loopState = { ...this.loopState, nudged: true, pendingNote: PROMISED_ACTION_NUDGE };
        this.stage((change) => change.events.push({ type: "guard.triggered", data: { guard: "promised_action", round: roundNumber } }));
        return { kind: "next_round" };
      }
      return { kind: "finished", output: response.text };
    }
    return calls.process(
      normalized.map((call, position) => ({
        rowId: rowIds[position]!,
        callId: call.id,
        name: call.name,
        argumentsText: call.argumentsText,
        round: roundNumber,
        position,
      })),
      { tainted: run.tainted, sentTools: this.loopState.roundTools },
    );
  }

  /** Streams one model response, publishing text deltas live. Failures end the run or the execution. */
  async requestModel(
    client: ReturnType<RunLoopDependencies["models"]["resolve"]>["client"],
    model: string,
    messages: ModelMessage[],
    tools: ReturnType<RunLoopDependencies["tools"]["toModelSchema"]>[],
  ): Promise<ModelResponse | StepOutcome> {
    const { settings } = this.context;
    const deltas = createDeltaBuffer((text) => this.dependencies.publisher.publishDelta(this.runId, text), this.dependencies.deltaFlushMs ?? 25);
    try {
      return await client.complete({
        model,
        messages,
        tools,
        signal: this.input.signal,
        inactivityTimeoutMs: settings.agent_stream_timeout_seconds * 1000,
        onTextDelta: deltas.push,
      });
    } catch (error) {
      const interruption = this.interruption();
      if (interruption) return { kind: "stop", outcome: interruption };
      if (error instanceof StreamTimeoutError) {
        return {
          kind: "stop",
          outcome: await this.finish("failed", {
            error: { code: "stream_timeout", message: `the model sent nothing for ${settings.agent_stream_timeout_seconds} s (agent_stream_timeout_seconds)` },
            events: [{ type: "guard.triggered", data: { guard: "stream_timeout", timeout_seconds: settings.agent_stream_timeout_seconds } }],
          }),
        };
      }
      this.dependencies.logger.warn({ run_id: this.runId, err: error }, "model request failed");
      return { kind: "stop", outcome: await this.finish("failed", { error: runErrorOf(error, "model_error") }) };
    } finally {
      // A worker that lost the run publishes nothing more, not even live text.
      if (abortReasonOf(this.input.signal) === "lease_lost") deltas.discard();
      else await deltas.flush();
    }
  }
}
