import { describe, expect, it } from "vitest";
import { isTracingEnabled } from "./is-tracing-enabled.ts";

describe("isTracingEnabled", () => {
  it("is off without an OTLP endpoint, whatever the other OTEL_* variables say", () => {
    expect(isTracingEnabled({})).toBe(false);
    expect(isTracingEnabled({ OTEL_EXPORTER_OTLP_ENDPOINT: "", OTEL_EXPORTER_OTLP_PROTOCOL: "http/json", OTEL_SERVICE_NAME: "agentq" })).toBe(false);
    expect(isTracingEnabled({ OTEL_EXPORTER_OTLP_ENDPOINT: "  " })).toBe(false);
  });

  it("is on with the endpoint, or with the traces-only endpoint", () => {
    expect(isTracingEnabled({ OTEL_EXPORTER_OTLP_ENDPOINT: "http://127.0.0.1:4318" })).toBe(true);
    expect(isTracingEnabled({ OTEL_EXPORTER_OTLP_TRACES_ENDPOINT: "http://127.0.0.1:4318/v1/traces" })).toBe(true);
  });

  it("stays off when OTEL_SDK_DISABLED=true or OTEL_TRACES_EXPORTER=none say so", () => {
    const endpoint = { OTEL_EXPORTER_OTLP_ENDPOINT: "http://127.0.0.1:4318" };
    expect(isTracingEnabled({ ...endpoint, OTEL_SDK_DISABLED: "TRUE" })).toBe(false);
    expect(isTracingEnabled({ ...endpoint, OTEL_SDK_DISABLED: "false" })).toBe(true);
    expect(isTracingEnabled({ ...endpoint, OTEL_TRACES_EXPORTER: "none" })).toBe(false);
    expect(isTracingEnabled({ ...endpoint, OTEL_TRACES_EXPORTER: "otlp" })).toBe(true);
    // The SDK's own rule: "none" among other exporters is ignored.
    expect(isTracingEnabled({ ...endpoint, OTEL_TRACES_EXPORTER: "none,otlp" })).toBe(true);
  });
});
