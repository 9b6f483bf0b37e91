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

/** Identifies "the same call" for the repeated-call guard. */
export function callSignature(toolName: string, args: unknown): string {
  return `${toolName}:${canonicalJson(args)}`;
}
