import { context, propagation, ROOT_CONTEXT } from "@opentelemetry/api";

/**
 * The active trace as the configured propagators' fields (W3C `traceparent` and `tracestate` by
 * default, whatever OTEL_PROPAGATORS names), for a hand-off that is not a queue job (BullMQ's
 * telemetry carries a job's): empty while nothing traces.
 */
export function activeTraceCarrier(): Record<string, string> {
  const carrier: Record<string, string> = {};
  propagation.inject(context.active(), carrier);
  return carrier;
}

/** Runs `work` as a continuation of the trace `carrier` names (activeTraceCarrier), or as it is when it names none. */
export function withTraceCarrier<Result>(carrier: Readonly<Record<string, string>> | undefined, work: () => Result): Result {
  if (!carrier || Object.keys(carrier).length === 0) return work();
  return context.with(propagation.extract(ROOT_CONTEXT, carrier), work);
}
