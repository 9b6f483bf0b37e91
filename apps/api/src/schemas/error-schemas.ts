import { z } from "zod";

/** API.md "Errors": every non-2xx answer. */
export const errorResponseSchema = z
  .object({
    error: z.object({
      code: z.string().meta({ description: "stable snake_case code (`invalid_request`, `not_found`, `run_in_progress`...)" }),
      message: z.string().meta({ description: "a sentence for a person, saying what to do" }),
      details: z
        .record(z.string(), z.unknown())
        .optional()
        .meta({ description: "structured fields: `field` (the bad input), `request_id` (500), the limit, the current revision..." }),
    }),
  })
  .meta({ id: "Error", description: "The body of every non-2xx answer" });
