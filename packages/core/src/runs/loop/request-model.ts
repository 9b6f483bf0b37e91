import type { ModelClient, ModelMessage, ModelResponse, ModelToolSchema } from "../../models/model-client.ts";
import { StreamTimeoutError } from "../../models/model-errors.ts";
import { createDeltaBuffer } from "../delta-buffer.ts";
import { abortReasonOf } from "../run-abort.ts";

export interface RequestModelInput {
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
export async function requestModel(input: RequestModelInput): Promise<ModelRequestResult> {
  const deltas = createDeltaBuffer(input.publishDelta, input.deltaFlushMs);
  try {
    const response = await input.client.complete({
      model: input.model,
      messages: input.messages,
      tools: input.tools,
      signal: input.signal,
      inactivityTimeoutMs: input.inactivityTimeoutMs,
      onTextDelta: deltas.push,
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
