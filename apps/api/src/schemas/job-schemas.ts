import { z } from "zod";
import { JobStatus } from "@agentq/core";
import { timestamp } from "./common-schemas.ts";

export const jobStatusSchema = z.enum(JobStatus).meta({ id: "JobStatus", description: "`lost`: its worker died" });

export const jobSchema = z
  .object({
    id: z.string(),
    name: z.string(),
    command: z.string(),
    workspace_id: z.string(),
    run_id: z.string().nullable(),
    status: jobStatusSchema,
    exit_code: z.number().int().nullable(),
    started_at: timestamp(),
    ended_at: timestamp().nullable(),
  })
  .meta({ id: "Job" });

export const jobListSchema = z.object({ jobs: z.array(jobSchema) }).meta({ id: "JobList" });

export const jobOutputSchema = z
  .object({
    output: z.string().meta({ description: "UTF-8 text; an omitted middle is announced in it" }),
    offset: z.number().int(),
    next_offset: z.number().int(),
    complete: z.boolean().meta({ description: "the job has ended and `next_offset` is the end of its output" }),
  })
  .meta({ id: "JobOutput" });
