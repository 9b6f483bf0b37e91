import type { z } from "zod";
import { InvalidRequestError } from "@agentq/core/errors/agentq-error";

/**
 * Validates a request body (or query) against a zod schema. A failure is `400 invalid_request`
 * whose `details.field` is the dotted path of the first bad field and `details.issues` lists all.
 */
export function parseRequest<Schema extends z.ZodType>(schema: Schema, value: unknown, what = "request body"): z.output<Schema> {
  if (value === undefined && what === "request body") {
    throw new InvalidRequestError("the request needs a JSON body (Content-Type: application/json)", { field: "(body)" });
  }
  const result = schema.safeParse(value);
  if (result.success) return result.data;
  const issues = result.error.issues.map((issue) => ({
    field: issue.path.map(String).join(".") || "(root)",
    message: issue.message,
  }));
  const first = issues[0]!;
  throw new InvalidRequestError(`${what}: ${first.field}: ${first.message}`, { field: first.field, issues });
}
