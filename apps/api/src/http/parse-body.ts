import type { z } from "zod";
import { InvalidRequestError } from "@agentq/core";

export interface ParseRequestOptions {
  /** Top-level fields whose text may hold U+0000 (a file's content: it goes to disk, not to Postgres). */
  nulAllowedIn?: readonly string[];
}

/**
 * Validates a request body (or query) against a zod schema. A failure is `400 invalid_request`
 * whose `details.field` is the dotted path of the first bad field and `details.issues` lists all.
 * Text holding U+0000 is refused first (`refuseNulCharacters`), so that is what the error names.
 */
export function parseRequest<Schema extends z.ZodType>(
  schema: Schema,
  value: unknown,
  what = "request body",
  options: ParseRequestOptions = {},
): z.output<Schema> {
  if (value === undefined && what === "request body") {
    throw new InvalidRequestError("the request needs a JSON body (Content-Type: application/json)", { field: "(body)" });
  }
  refuseNulCharacters(value, what, options.nulAllowedIn);
  const result = schema.safeParse(value);
  if (result.success) return result.data;
  const issues = result.error.issues.map((issue) => ({
    // An unknown field (a strict schema) is named itself, not its parent object.
    field: [...issue.path, ...(issue.code === "unrecognized_keys" ? issue.keys.slice(0, 1) : [])].map(String).join(".") || "(root)",
    message: issue.message,
  }));
  const first = issues[0]!;
  throw new InvalidRequestError(`${what}: ${first.field}: ${first.message}`, { field: first.field, issues });
}

/**
 * Postgres text and jsonb cannot hold U+0000, and no name, title or prompt needs one: a string
 * (or object key) anywhere in `value` that holds it is `400 invalid_request` naming its dotted
 * path, before anything is stored, rather than a database error later.
 */
export function refuseNulCharacters(value: unknown, what: string, allowedTopLevel: readonly string[] = []): void {
  const path = pathToNul(value, allowedTopLevel, true);
  if (path === undefined) return;
  const field = path.join(".") || "(root)";
  throw new InvalidRequestError(`${what}: ${field}: must not contain NUL characters (U+0000)`, { field });
}

/** The keys leading to the first string or key holding U+0000 (arrays' indexes included), or undefined. */
function pathToNul(value: unknown, allowedTopLevel: readonly string[], topLevel: boolean): string[] | undefined {
  if (typeof value === "string") return value.includes("\u0000") ? [] : undefined;
  if (value === null || typeof value !== "object") return undefined;
  for (const [key, item] of Object.entries(value)) {
    if (key.includes("\u0000")) return [key];
    if (topLevel && allowedTopLevel.includes(key)) continue;
    const rest = pathToNul(item, allowedTopLevel, false);
    if (rest) return [key, ...rest];
  }
  return undefined;
}
