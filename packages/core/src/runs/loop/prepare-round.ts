import type { NewRunEvent } from "../../events/run-event.ts";
import type { ModelMessage, ModelToolSchema } from "../../models/model-client.ts";
import { offeredTools, type ToolOfferContext } from "../../policy/offered-tools.ts";
import { fitTokenBudget, resolveInputTokenBudget } from "../fit-token-budget.ts";
import type { RunContext } from "../load-run-context.ts";
import type { LoopState } from "../loop-state.ts";
import type { RunError } from "../run-error.ts";
import type { ToolCatalog } from "../run-loop-dependencies.ts";
import { buildSystemPrompt } from "../system-prompt.ts";

export interface PrepareRoundInput {
  context: RunContext;
  loopState: LoopState;
  tools: ToolCatalog;
  offer: ToolOfferContext;
  /** The model's context window, which scales the sentinel input budget. */
  contextWindow: number;
}

/** A round ready to be requested, or the guard that ends the run instead. */
export type PreparedRound =
  | {
      kind: "ready";
      round: number;
      messages: ModelMessage[];
      tools: ModelToolSchema[];
      /** `round.started`, and `guard.triggered` when tool results were truncated to fit. */
      events: NewRunEvent[];
      /** The loop state to commit with the round's start: the round's tools and taint (and its sources) recorded. */
      loopState: LoopState;
      /** The round was sent without tools (a guard asked for a final answer). */
      finalAnswerRound: boolean;
    }
  | { kind: "failed"; error: RunError; events: NewRunEvent[] };

/** The round budget (`agent_max_rounds`): checked before the model is even resolved. */
export function checkRoundBudget(context: RunContext): Extract<PreparedRound, { kind: "failed" }> | null {
  const limit = context.settings.agent_max_rounds;
  if (context.run.rounds < limit) return null;
  return {
    kind: "failed",
    error: { code: "round_budget", message: `the run reached agent_max_rounds (${limit}) while still calling tools` },
    events: [{ type: "guard.triggered", data: { guard: "round_budget", limit } }],
  };
}

/**
 * What the next model request sends: the tools the run is offered (none in a final answer round),
 * the system prompt, the chat and a pending nudge, fitted into the input token budget. Pure.
 */
export function prepareRound(input: PrepareRoundInput): PreparedRound {
  const { context, loopState } = input;
  const { run, settings } = context;
  const offered = loopState.finalAnswerRound ? [] : offeredTools(input.tools.list(), input.offer);
  const tools = offered.map((tool) => input.tools.toModelSchema(tool));
  const toolNames = offered.map((tool) => tool.name);
  const note = loopState.pendingNote;
  const messages: ModelMessage[] = [
    { role: "system", content: buildSystemPrompt(context, toolNames) },
    ...context.transcript,
    ...(note ? [{ role: "user" as const, content: note }] : []),
  ];
  const budget = resolveInputTokenBudget({
    configured: settings.agent_input_token_budget,
    hardMax: settings.agent_input_token_hard_max,
    contextWindow: input.contextWindow,
  });
  const fitted = fitTokenBudget({ messages, tools, budget });
  if (fitted.overBudget) {
    return {
      kind: "failed",
      error: {
        code: "token_budget",
        message: `the conversation needs ${fitted.inputTokens} input tokens, over the budget of ${budget}, even after truncating tool results`,
      },
      events: [{ type: "guard.triggered", data: { guard: "token_budget", budget, input_tokens: fitted.inputTokens } }],
    };
  }
  const round = run.rounds + 1;
  const events: NewRunEvent[] = [{ type: "round.started", data: { round, tools: toolNames } }];
  if (fitted.truncated > 0) events.push({ type: "guard.triggered", data: { guard: "token_budget", budget, truncated_results: fitted.truncated } });
  return {
    kind: "ready",
    round,
    messages: fitted.messages,
    tools,
    events,
    loopState: {
      ...loopState,
      finalAnswerRound: false,
      pendingNote: null,
      roundTainted: run.tainted,
      roundTaintSources: run.taintedBy.length,
      roundTools: toolNames,
    },
    finalAnswerRound: loopState.finalAnswerRound,
  };
}
