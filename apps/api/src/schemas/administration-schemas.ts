import { z } from "zod";
import { jsonObject, timestamp } from "./common-schemas.ts";

const count = () => z.number().int().min(0);

/** GET /api/services. */
export const serviceStatusSchema = z
  .object({
    workers: z
      .array(
        z.object({
          id: z.string(),
          host: z.string(),
          started_at: timestamp(),
          last_seen_at: timestamp().meta({ description: "a worker records itself every 10 s; one not seen for 30 s is not listed" }),
          active_runs: count(),
          concurrency: count(),
        }),
      )
      .meta({ description: "the worker processes alive now, longest running first" }),
    queue: z
      .object({
        waiting: count().nullable(),
        active: count().nullable(),
        delayed: count().nullable(),
        failed: count().nullable(),
        error: z.string().optional().meta({ description: "why the counts are null: Redis did not answer" }),
      })
      .meta({ description: "the run queue's jobs by state (BullMQ)" }),
    runs: z.object({ queued: count(), running: count(), awaiting_approval: count() }),
    jobs: z.object({ running: count() }),
    sandbox: z
      .object({ available: z.boolean(), reason: z.string().nullable() })
      .meta({ description: "the process sandbox on the API's host (each worker probes its own at start)" }),
  })
  .meta({ id: "ServiceStatus" });

export const auditEntrySchema = z
  .object({
    id: z.string(),
    at: timestamp(),
    actor_id: z.string().nullable().meta({ description: "the user who made the change; null for the system" }),
    action: z.string().meta({
      description: "`approval.decided`, `settings.updated`, `user.created`, `user.updated`, `user.token_rotated`, `mcp_server.added`, `mcp_server.removed`",
    }),
    target: z.string().meta({ description: "`approval:<id>`, `settings`, `user:<id>`, `mcp_server:<name>`" }),
    details: jsonObject().meta({ description: "what changed (never a secret)" }),
  })
  .meta({ id: "AuditEntry" });

export const auditPageSchema = z
  .object({
    entries: z.array(auditEntrySchema).meta({ description: "newest first" }),
    next_before: z.string().nullable().meta({ description: "the cursor of the next (older) page; null on the last one" }),
  })
  .meta({ id: "AuditPage" });
