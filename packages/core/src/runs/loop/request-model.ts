import type { Span } from "@opentelemetry/api";
import { AgentqError } from "../../errors/agentq-error.ts";
import { inSpan, markSpanFailed, setSpanAttributes } from "../../telemetry/in-span.ts";
import { SpanName, TraceAttribute } from "../../telemetry/trace-attributes.ts";
import type { ModelClient, ModelMessage, ModelResponse, ModelToolSchema } from "../../models/model-client.ts";
import { StreamTimeoutError } from "../../models/model-errors.ts";
import { createDeltaBuffer } from "../delta-buffer.ts";
import { abortReasonOf } from "../run-abort.ts";

export interface RequestModelInput {
  /** The run the request is for (its span's agentq.run_id). */
  runId: string;
  client: ModelClient;
  model: string;
  messages: ModelMessage[];
  tools: ModelToolSchema[];
  signal: AbortSignal;
  /** `agent_stream_timeout_seconds`: provider silence longer than this ends the request. */
  inactivityTimeoutMs: number;
  /** Live text (not durable), coalesced to one publish per `deltaFlushMs`. */
  publishDelta: (text: string) => Promise<void>;
  deltaFlushMs: number;
}

export type ModelRequestResult =
  | { kind: "answered"; response: ModelResponse }
  | { kind: "stream_timeout" }
  /** The request failed or was aborted: the caller checks for an interruption before failing the run. */
  | { kind: "failed"; error: unknown };

/** Streams one model response, publishing text deltas live; a failure is returned, not thrown. */
export function requestModel(input: RequestModelInput): Promise<ModelRequestResult> {
  const attributes = () => ({ [TraceAttribute.runId]: input.runId, [TraceAttribute.genAiOperation]: "chat", [TraceAttribute.genAiRequestModel]: input.model });
  return inSpan(SpanName.modelCall, attributes, async (span) => {
    const result = await streamResponse(input, span);
    if (result.kind === "answered") {
      const { usage, finishReason } = result.response;
      setSpanAttributes(span, () => ({
        [TraceAttribute.genAiInputTokens]: usage.inputTokens,
        [TraceAttribute.genAiOutputTokens]: usage.outputTokens,
        [TraceAttribute.genAiFinishReasons]: [finishReason],
      }));
    } else {
      // The error's code, not its message: a provider's message can quote the request (spans carry no run content).
      markSpanFailed(span, result.kind === "failed" ? (result.error instanceof AgentqError ? result.error.code : "model_call_failed") : result.kind);
    }
    return result;
  });
}

async function streamResponse(input: RequestModelInput, span: Span): Promise<ModelRequestResult> {
  const deltas = createDeltaBuffer(input.publishDelta, input.deltaFlushMs);
  const startedAt = performance.now();
  let firstTokenSeen = false;
  const onFirstToken = () => {
    if (firstTokenSeen) return;
    firstTokenSeen = true;
    span.setAttribute(TraceAttribute.modelTimeToFirstTokenMs, Math.round(performance.now() - startedAt));
  };
  try {
    const response = await input.client.complete({
      model: input.model,
      messages: input.messages,
      tools: input.tools,
      signal: input.signal,
      inactivityTimeoutMs: input.inactivityTimeoutMs,
      onTextDelta: (text) => {
        // A provider that does not report its first token: the first text stands in.
        onFirstToken();
        deltas.push(text);
      },
      onFirstToken,
    });
    return { kind: "answered", response };
  } catch (error) {
    return error instanceof StreamTimeoutError ? { kind: "stream_timeout" } : { kind: "failed", error };
  } finally {
    // A worker that lost the run publishes nothing more, not even live text.
    if (abortReasonOf(input.signal) === "lease_lost") deltas.discard();
    else await deltas.flush();
  }
}
