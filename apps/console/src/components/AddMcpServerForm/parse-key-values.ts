/**
 * `KEY=value` (or `Name: value`) lines into an object; blank lines are skipped. Returns the first
 * line that has no separator instead, so the form can say which.
 */
export function parseKeyValues(text: string, separator: "=" | ":"): { ok: true; values: Record<string, string> } | { ok: false; line: string } {
  const values: Record<string, string> = {};
  for (const line of text.split("\n")) {
    if (line.trim() === "") continue;
    const at = line.indexOf(separator);
    if (at <= 0) return { ok: false, line };
    values[line.slice(0, at).trim()] = line.slice(at + 1).trim();
  }
  return { ok: true, values };
}
