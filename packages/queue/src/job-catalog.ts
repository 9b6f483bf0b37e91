import { z } from "zod";

/**
 * Every job agentq puts on a queue: its name and the zod schema of its payload, checked when it is
 * enqueued and again when a worker pulls it. Payloads carry ids only; state is in Postgres.
 */
export const JOB_CATALOG = {
  /** Execute a run from wherever Postgres says it stands. */
  "run.execute": z.object({ run_id: z.string().min(1).max(200) }).strict(),
  /** Make the next attempt of a webhook delivery (`attempts_made` so far: a duplicate job of one attempt does nothing). */
  "webhook.deliver": z.object({ delivery_id: z.string().min(1).max(200), attempts_made: z.number().int().min(0) }).strict(),
} as const;

export type JobName = keyof typeof JOB_CATALOG;
export type JobPayload<Name extends JobName> = z.infer<(typeof JOB_CATALOG)[Name]>;

/** The queue that carries runs. */
export const RUN_QUEUE_NAME = "runs";

/** The queue that carries webhook deliveries: apart from runs, so a slow endpoint never holds a run's slot. */
export const WEBHOOK_QUEUE_NAME = "webhooks";

export class InvalidJobError extends Error {
  constructor(name: string, problem: string) {
    super(`invalid job ${name}: ${problem}`);
    this.name = "InvalidJobError";
  }
}

export function parseJob<Name extends JobName>(name: string, data: unknown): { name: Name; payload: JobPayload<Name> } {
  if (!(name in JOB_CATALOG)) throw new InvalidJobError(name, "unknown job name");
  const parsed = JOB_CATALOG[name as Name].safeParse(data);
  if (!parsed.success) throw new InvalidJobError(name, parsed.error.issues.map((issue) => `${issue.path.join(".")}: ${issue.message}`).join("; "));
  return { name: name as Name, payload: parsed.data as JobPayload<Name> };
}

/**
 * Deterministic job id of a run's execution. `generation` names the run's state when it was
 * enqueued (its last event seq and lease version): a double click, a retried decision, or two
 * reconcilers racing produce the same id, and BullMQ keeps one job per id.
 */
export function runJobId(runId: string, generation: string): string {
  return `run-${runId}-${generation}`;
}

/** The generation part of a run job's id: the run's last event seq and lease version when enqueued. */
export function runGeneration(lastEventSeq: number, leaseVersion: number): string {
  return `${lastEventSeq}-${leaseVersion}`;
}

/** Deterministic job id of one attempt of a webhook delivery. */
export function webhookJobId(deliveryId: string, attemptsMade: number): string {
  return `webhook-${deliveryId}-${attemptsMade}`;
}
