import { type Attributes, type Span, SpanStatusCode, trace } from "@opentelemetry/api";

// A proxy until a process registers the SDK (apps' @agentq/tracing), and a no-op while none does: a
// span then costs an object and a function call.
const tracer = trace.getTracer("agentq");

/**
 * Runs `work` inside a new span of agentq's tracer, active for everything `work` starts (database
 * queries, Redis commands, nested spans). `attributes` is called only when the span is recorded, so
 * the hot paths build no attribute objects while tracing is off. A thrown error is recorded on the
 * span and rethrown; the span ends either way. Outcomes that are data (a failed model request, a tool
 * error) are set by `work` on the span it is given.
 */
export function inSpan<Result>(name: string, attributes: () => Attributes, work: (span: Span) => Promise<Result>): Promise<Result> {
  return tracer.startActiveSpan(name, async (span) => {
    setSpanAttributes(span, attributes);
    try {
      return await work(span);
    } catch (error) {
      span.recordException(error instanceof Error ? error : String(error));
      span.setStatus({ code: SpanStatusCode.ERROR, message: error instanceof Error ? error.message : String(error) });
      throw error;
    } finally {
      span.end();
    }
  });
}

/** Sets the attributes `build` returns on a recorded span; on a span that is not recorded, `build` is not called. */
export function setSpanAttributes(span: Span, build: () => Attributes): void {
  if (span.isRecording()) span.setAttributes(build());
}

/** Marks a span as failed for an outcome that is data, not an exception (a failed run, a tool error). */
export function markSpanFailed(span: Span, message: string): void {
  span.setStatus({ code: SpanStatusCode.ERROR, message });
}
