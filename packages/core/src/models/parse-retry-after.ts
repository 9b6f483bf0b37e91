/**
 * Reads how long a provider asked us to wait before retrying, in milliseconds.
 * `retry-after-ms` (OpenAI's non-standard, more precise header) wins over `retry-after`, which is
 * either delta-seconds or an HTTP date (RFC 9110 §10.2.3). Returns undefined when neither is usable.
 */
export function parseRetryAfter(headers: { get(name: string): string | null } | undefined, now: () => number = Date.now): number | undefined {
  if (!headers) return undefined;
  const milliseconds = headers.get("retry-after-ms");
  if (milliseconds !== null && milliseconds.trim() !== "") {
    const value = Number(milliseconds);
    if (Number.isFinite(value) && value >= 0) return value;
  }
  const retryAfter = headers.get("retry-after");
  if (retryAfter === null || retryAfter.trim() === "") return undefined;
  const seconds = Number(retryAfter);
  if (Number.isFinite(seconds)) return seconds >= 0 ? seconds * 1000 : undefined;
  const date = Date.parse(retryAfter);
  if (Number.isNaN(date)) return undefined;
  return Math.max(0, date - now());
}
