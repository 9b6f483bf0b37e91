// Only the entry point's light part: the SDK and the instrumentations are imported by startTracing
// when tracing is on, never by importing this package.
export { type StartTracingOptions, startTracing, type Tracing } from "./start-tracing.ts";
