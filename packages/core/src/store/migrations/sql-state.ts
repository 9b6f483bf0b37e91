/** The SQLSTATE of a Postgres error (`pg` puts it in `code`), or undefined for any other error. */
export function sqlState(error: unknown): string | undefined {
  return typeof error === "object" && error !== null && "code" in error && typeof error.code === "string" ? error.code : undefined;
}
