import type { z } from "zod";
import { InvalidRequestError } from "@agentq/core/errors/agentq-error";

export interface ParseRequestOptions {
  /** Top-level fields whose text may hold U+0000 (a file's content: it goes to disk, not to Postgres). */
  nulAllowedIn?: readonly string[];
}

/**
 * Validates a request body (or query) against a zod schema. A failure is `400 invalid_request`
 * whose `details.field` is the dotted path of the first bad field and `details.issues` lists all.
 * Text holding U+0000 is refused first (`refuseNulCharacters`).
 */
export function parseRequest<Schema extends z.ZodType>(schema: Schema, value: unknown, what = "request body", options: ParseRequestOptions = {}): z.output<Schema> {
  if (value === undefined && what === "request body") {
    throw new InvalidRequestError("the request needs a JSON body (Content-Type: application/json)", { field: "(body)" });
  }
  refuseNulCharacters(value, what, options.nulAllowedIn);
  const result = schema.safeParse(value);
  if (result.success) return result.data;
  const issues = result.error.issues.map((issue) => ({
    field: issue.path.map(String).join(".") || "(root)",
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
  const field = findNul(value, [], allowedTopLevel);
  if (field !== undefined) {
    const name = field.join(".") || "(root)";
    throw new InvalidRequestError(`${what}: ${name}: must not contain NUL characters (U+0000)`, { field: name });
  }
}

function findNul(value: unknown, path: string[], allowedTopLevel: readonly string[]): string[] | undefined {
  if (typeof value === "string") return value.includes("\u0000") ? path : undefined;
  if (Array.isArray(value)) {
    for (let index = 0; index < value.length; index += 1) {
      const found = findNul(value[index], [...path, String(index)], allowedTopLevel);
      if (found) return found;
    }
    return undefined;
  }
  if (value !== null && typeof value === "object") {
    for (const [key, item] of Object.entries(value)) {
      if (key.includes("\u0000")) return [...path, key];
      if (path.length === 0 && allowedTopLevel.includes(key)) continue;
      const found = findNul(item, [...path, key], allowedTopLevel);
      if (found) return found;
    }
  }
  return undefined;
}
