import { z } from "zod";

/** An ISO-8601 UTC time, as every time in the API is written. */
export const timestamp = () => z.iso.datetime();

/** A JSON object whose fields the API does not fix (tool arguments, event data, JSON Schemas). */
export const jsonObject = () => z.record(z.string(), z.unknown());

/** A list answer's `limit` query: a whole number in 1..max, `fallback` when absent. */
export function limitQuery(fallback: number, max: number) {
  return z
    .string()
    .regex(/^\d{1,6}$/, `limit must be a whole number from 1 to ${max}`)
    .transform(Number)
    .pipe(z.number().int().min(1, `limit must be at least 1`).max(max, `limit must be at most ${max}`))
    .optional()
    .transform((value) => value ?? fallback)
    .meta({ description: `how many to return: 1-${max}, default ${fallback}` });
}
