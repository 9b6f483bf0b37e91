/** "12" or "12 / 100": a count against its quota (0 = no quota). */
export function formatUsage(used: number, limit: number): string {
  const value = used.toLocaleString("en-US");
  return limit > 0 ? `${value} / ${limit.toLocaleString("en-US")}` : value;
}

export function formatLimit(limit: number): string {
  return limit > 0 ? `quota ${limit.toLocaleString("en-US")} a day` : "no quota";
}
