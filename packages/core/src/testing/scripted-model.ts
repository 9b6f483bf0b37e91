import type { ModelClient, ModelRequest, ModelResponse, ModelToolCall, ModelUsage } from "../models/model-client.ts";
import { StreamTimeoutError } from "../models/model-errors.ts";
import { throwAbortReason } from "../models/is-abort-error.ts";

/** One scripted answer. `{}` is an empty answer (no text, no calls). */
export interface ScriptedStep {
  text?: string;
  /** How the text is streamed through onTextDelta. Default: the whole text in one delta. */
  textDeltas?: string[];
  /** Calls to return; an object `arguments` is JSON-encoded; missing ids become `call_scripted_<n>`. */
  toolCalls?: { id?: string; name: string; arguments?: string | Record<string, unknown> }[];
  /** Default: a characters/4 estimate (no tokenizer load in unit tests). */
  usage?: ModelUsage;
  /** Default `tool_calls` when there are calls, else `stop`. */
  finishReason?: string;
  /** Thrown instead of answering (a ModelProviderError, say); after the deltas when `errorAfterDeltas`. */
  error?: Error;
  errorAfterDeltas?: boolean;
  /**
   * Wait this long before answering (Infinity: never). A wait longer than the request's
   * inactivityTimeoutMs ends in StreamTimeoutError, as a real provider client would; an abort of
   * request.signal ends it with the signal's reason.
   */
  stallMs?: number;
}

export type ScriptedResponder = (request: ModelRequest, index: number) => ScriptedStep | Promise<ScriptedStep>;

/**
 * An in-process ModelClient for unit tests of the loop: answers from a queue of steps, then from a
 * responder function; records every request (messages copied, as they were at call time).
 * Test-only: nothing in production resolves to it.
 */
export class ScriptedModel implements ModelClient {
  readonly requests: ModelRequest[] = [];
  private readonly queue: ScriptedStep[] = [];
  private responder: ScriptedResponder | undefined;
  private callSequence = 0;

  private nextCallId(): string {
    this.callSequence += 1;
    return `call_scripted_${this.callSequence}`;
  }

  constructor(script: ScriptedStep[] | ScriptedResponder = []) {
    if (typeof script === "function") this.responder = script;
    else this.queue.push(...script);
  }

  enqueue(...steps: ScriptedStep[]): this {
    this.queue.push(...steps);
    return this;
  }

  respondWith(responder: ScriptedResponder | undefined): this {
    this.responder = responder;
    return this;
  }

  /** Steps queued and not yet used. */
  get remaining(): number {
    return this.queue.length;
  }

  async complete(request: ModelRequest): Promise<ModelResponse> {
    const index = this.requests.length;
    this.requests.push({ ...request, messages: [...request.messages], tools: [...request.tools] });
    if (request.signal.aborted) throwAbortReason(request.signal);
    const step = this.queue.shift() ?? (this.responder ? await this.responder(request, index) : undefined);
    if (!step) throw new Error(`ScriptedModel: no scripted response left for request #${index + 1}`);

    if (step.stallMs !== undefined && step.stallMs > 0) await stall(step.stallMs, request);
    if (step.error && !step.errorAfterDeltas) throw step.error;
    const text = step.text ?? "";
    for (const delta of step.textDeltas ?? (text === "" ? [] : [text])) {
      if (request.signal.aborted) throwAbortReason(request.signal);
      request.onTextDelta?.(delta);
    }
    if (step.error) throw step.error;
    const toolCalls: ModelToolCall[] = (step.toolCalls ?? []).map((call) => ({
      id: call.id ?? this.nextCallId(),
      name: call.name,
      argumentsText: typeof call.arguments === "string" ? call.arguments : JSON.stringify(call.arguments ?? {}),
    }));
    const estimate = (value: string) => Math.ceil(value.length / 4);
    return {
      text,
      toolCalls,
      usage: step.usage ?? {
        inputTokens: request.messages.reduce((sum, message) => sum + estimate(message.content ?? "") + 3, 3),
        outputTokens: estimate(text) + toolCalls.reduce((sum, call) => sum + estimate(call.argumentsText), 0),
      },
      finishReason: step.finishReason ?? (toolCalls.length > 0 ? "tool_calls" : "stop"),
    };
  }
}

function stall(milliseconds: number, request: ModelRequest): Promise<void> {
  const timeout = Number.isFinite(request.inactivityTimeoutMs) && request.inactivityTimeoutMs > 0 ? request.inactivityTimeoutMs : Number.POSITIVE_INFINITY;
  const timesOut = milliseconds > timeout;
  const wait = Math.min(milliseconds, timeout);
  return new Promise((resolve, reject) => {
    const finish = () => {
      if (timer) clearTimeout(timer);
      request.signal.removeEventListener("abort", onAbort);
      if (timesOut) reject(new StreamTimeoutError(timeout));
      else resolve();
    };
    const onAbort = () => {
      if (timer) clearTimeout(timer);
      try {
        throwAbortReason(request.signal);
      } catch (error) {
        reject(error);
      }
    };
    const timer = Number.isFinite(wait) ? setTimeout(finish, wait) : undefined;
    request.signal.addEventListener("abort", onAbort, { once: true });
  });
}
