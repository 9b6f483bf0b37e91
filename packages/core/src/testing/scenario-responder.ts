import { z } from "zod";
import type { FakeProviderRequest } from "./fake-provider-request.ts";
import type { FakeProviderResponse } from "./fake-provider-response.ts";

/**
 * One step of a scripted agent conversation: the model's answer for one round. `tool`/`calls`
 * make it call tools; `text` alone is a final answer. The other fields shape the stream.
 */
const scenarioStep = z.object({
  text: z.string().optional(),
  tool: z.string().optional(),
  args: z.record(z.string(), z.unknown()).optional(),
  /** Several calls in one round. */
  calls: z.array(z.object({ tool: z.string(), args: z.record(z.string(), z.unknown()).optional() })).optional(),
  /** Arguments text sent verbatim (malformed JSON tests). */
  rawArguments: z.string().optional(),
  chunkDelayMs: z.number().optional(),
  stallAfterEvents: z.number().optional(),
  stallMs: z.number().optional(),
  /** After `stallAfterEvents` events, the stream waits for `stack.provider.release(name)`. */
  stallUntil: z.string().optional(),
  delayMs: z.number().optional(),
  /** Held until the test calls `stack.provider.release(name)`: a latch instead of a guessed delay. */
  holdUntil: z.string().optional(),
  error: z.object({ status: z.number(), message: z.string().optional() }).optional(),
});

export type ScenarioStep = z.infer<typeof scenarioStep>;

const scenarioSteps = z.array(scenarioStep);

/**
 * Scenarios parsed so far, by their text: a run asks once per round with the same input, and a
 * benchmark sends thousands of requests a second, so the fake provider's own parsing should not
 * weigh on the figures of what it stands in for (a remote service). Bounded: cleared when full.
 */
const parsedScenarios = new Map<string, ReturnType<typeof scenarioSteps.safeParse>>();
const PARSED_SCENARIOS_LIMIT = 1000;

function parseScenario(source: string): ReturnType<typeof scenarioSteps.safeParse> {
  let parsed = parsedScenarios.get(source);
  if (parsed === undefined) {
    parsed = scenarioSteps.safeParse(JSON.parse(source));
    if (parsedScenarios.size >= PARSED_SCENARIOS_LIMIT) parsedScenarios.clear();
    parsedScenarios.set(source, parsed);
  }
  return parsed;
}

/** Marks a run input as a scenario: `SCENARIO: [step, step, ...]`. */
export const SCENARIO_PREFIX = "SCENARIO:";

/** The input text that makes the scenario responder play these steps, one per round. */
export function scenarioInput(steps: readonly ScenarioStep[], note = ""): string {
  return `${note ? `${note}\n` : ""}${SCENARIO_PREFIX} ${JSON.stringify(steps)}`;
}

/**
 * A fake-provider responder that plays the scenario written in the run's input: the Nth assistant
 * turn after that user message gets step N (past the end: a final answer "done"). It depends only on
 * the request, so any worker, retry or resumed run gets the same answer at the same point.
 */
export function scenarioResponder(request: FakeProviderRequest): FakeProviderResponse {
  let scenarioIndex = -1;
  for (let index = request.messages.length - 1; index >= 0; index -= 1) {
    const message = request.messages[index]!;
    if (message.role === "user" && message.content.includes(SCENARIO_PREFIX)) {
      scenarioIndex = index;
      break;
    }
  }
  if (scenarioIndex < 0) return { text: "done" };
  const scenarioMessage = request.messages[scenarioIndex]!;
  const source = scenarioMessage.role === "user" ? scenarioMessage.content : "";
  const parsed = parseScenario(source.slice(source.indexOf(SCENARIO_PREFIX) + SCENARIO_PREFIX.length));
  if (!parsed.success) return { text: `invalid scenario: ${parsed.error.message}` };
  const turn = request.messages.slice(scenarioIndex + 1).filter((message) => message.role === "assistant").length;
  const step = parsed.data[turn];
  if (!step) return { text: "done" };
  const shape = {
    ...(step.chunkDelayMs !== undefined ? { chunkDelayMs: step.chunkDelayMs } : {}),
    ...(step.stallAfterEvents !== undefined ? { stallAfterEvents: step.stallAfterEvents } : {}),
    ...(step.stallMs !== undefined ? { stallMs: step.stallMs } : {}),
    ...(step.stallUntil !== undefined ? { stallUntil: step.stallUntil } : {}),
    ...(step.delayMs !== undefined ? { delayMs: step.delayMs } : {}),
    ...(step.holdUntil !== undefined ? { holdUntil: step.holdUntil } : {}),
  };
  if (step.error) return { error: step.error, ...shape };
  const calls = step.calls ?? (step.tool ? [{ tool: step.tool, args: step.args }] : []);
  return {
    ...(step.text !== undefined ? { text: step.text } : {}),
    toolCalls: calls.map((call) => ({ name: call.tool, arguments: step.rawArguments ?? call.args ?? {} })),
    ...shape,
  };
}
