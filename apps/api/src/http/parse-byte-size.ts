const UNITS: Record<string, number> = { b: 1, kb: 1024, mb: 1024 ** 2, gb: 1024 ** 3 };

/** "1mb" → 1048576 (binary units, as body-parser reads them); a bare number is bytes. Undefined when unreadable. */
export function parseByteSize(value: string): number | undefined {
  const match = /^\s*(\d+(?:\.\d+)?)\s*(b|kb|mb|gb)?\s*$/i.exec(value);
  if (match === null) return undefined;
  const bytes = Math.floor(Number(match[1]) * UNITS[(match[2] ?? "b").toLowerCase()]!);
  return bytes > 0 ? bytes : undefined;
}
