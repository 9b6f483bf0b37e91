import type { z } from "zod";

/** A message a channel carried, as `schema` reads it; null for anything else (a channel is Redis', so checked like any input). */
export function parseMessage<Schema extends z.ZodType>(schema: Schema, text: string): z.output<Schema> | null {
  let json: unknown;
  try {
    json = JSON.parse(text);
  } catch {
    return null;
  }
  const parsed = schema.safeParse(json);
  return parsed.success ? parsed.data : null;
}
