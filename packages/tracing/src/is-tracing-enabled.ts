/**
 * Whether a process exports traces, read from the standard OpenTelemetry variables: on when an OTLP
 * endpoint is named (OTEL_EXPORTER_OTLP_ENDPOINT, or the traces-only OTEL_EXPORTER_OTLP_TRACES_ENDPOINT),
 * off when OTEL_SDK_DISABLED=true or OTEL_TRACES_EXPORTER=none say so. Everything else (protocol,
 * headers, sampler, batch delays, service name) is the SDK's to read.
 */
export function isTracingEnabled(environment: Readonly<Record<string, string | undefined>>): boolean {
  const endpoint = environment.OTEL_EXPORTER_OTLP_ENDPOINT?.trim() || environment.OTEL_EXPORTER_OTLP_TRACES_ENDPOINT?.trim();
  if (!endpoint) return false;
  if (environment.OTEL_SDK_DISABLED?.trim().toLowerCase() === "true") return false;
  const exporters = (environment.OTEL_TRACES_EXPORTER ?? "")
    .split(",")
    .map((name) => name.trim())
    .filter((name) => name !== "");
  return !(exporters.length > 0 && exporters.every((name) => name === "none"));
}
