import { createHash } from "node:crypto";

/** Canonical JSON: keys sorted at every level, so `{a,b}` and `{b,a}` are the same call. */
export function canonicalJson(value: unknown): string {
  if (Array.isArray(value)) return `[${value.map(canonicalJson).join(",")}]`;
  if (value !== null && typeof value === "object") {
    const entries = Object.entries(value as Record<string, unknown>)
      .filter(([, entry]) => entry !== undefined)
      .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
    return `{${entries.map(([key, entry]) => `${JSON.stringify(key)}:${canonicalJson(entry)}`).join(",")}}`;
  }
  return JSON.stringify(value);
}

/** SHA-256 of the canonical JSON of `value`: equal for equal values, whatever their keys' order. */
export function canonicalDigest(value: unknown, encoding: "hex" | "base64url" = "hex"): string {
  return createHash("sha256").update(canonicalJson(value)).digest(encoding);
}

/**
 * Identifies "the same call" for the repeated-call guard: the tool's name and a SHA-256 of its canonical
 * arguments. The loop state keeps a count per signature (runs.loop_state), which every commit of the
 * run writes again: with the arguments themselves as the key, a run that wrote a 200 KB file carried
 * those 200 KB in its run row, rewritten at each of its later steps, and in the worker's memory while
 * it ran. A hash keeps each key under 60 bytes whatever the call. Counts written by an earlier release
 * (keyed by the arguments) no longer match: a run in flight across an upgrade starts its counts again.
 */
export function callSignature(toolName: string, args: unknown): string {
  return `${toolName}:${canonicalDigest(args, "base64url")}`;
}
