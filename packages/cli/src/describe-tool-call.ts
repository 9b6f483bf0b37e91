/** One line for a tool call: its name and what it is about (a path, a command, a URL), cut to fit a terminal. */
export function describeToolCall(tool: string, args: unknown): string {
  const fields = args !== null && typeof args === "object" ? (args as Record<string, unknown>) : {};
  const detail = ["path", "command", "url", "query", "name"].map((key) => fields[key]).find((value) => typeof value === "string");
  const shown = typeof detail === "string" ? detail : JSON.stringify(fields);
  const oneLine = shown.replace(/\s+/g, " ").trim();
  return `${tool} ${oneLine.length > 100 ? `${oneLine.slice(0, 99)}…` : oneLine}`.trim();
}
