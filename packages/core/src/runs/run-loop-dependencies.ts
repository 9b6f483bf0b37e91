import type { Clock } from "../clock.ts";
import type { RunEventPublisher } from "../events/run-event.ts";
import type { GenerateId } from "../ids.ts";
import type { ModelClient, ModelToolSchema } from "../models/model-client.ts";
import type { PrismaClient } from "../store/create-prisma-client.ts";
import type { RunCommitter } from "../store/run-commit-batcher.ts";
import type { ToolDefinition } from "../tools/tool-definition.ts";

/** Resolves a run's model name to a client (provider chosen by name, API.md "Model names"). */
export interface ModelResolver {
  resolve(modelName: string): { client: ModelClient; model: string; contextWindow: number };
}

/** The tools the system has; policy decides which a run is offered. */
export interface ToolCatalog {
  list(): readonly ToolDefinition[];
  get(name: string): ToolDefinition | undefined;
  toModelSchema(tool: ToolDefinition): ModelToolSchema;
}

/** The state a run was in when it was handed to the queue: the job id is derived from it. */
export interface RunGeneration {
  lastEventSeq: number;
  leaseVersion: number;
}

/** Hands a run to some worker (a queue job whose id is derived from the run's generation). */
export interface RunScheduler {
  schedule(runId: string, generation: RunGeneration): Promise<void>;
  /**
   * Admits the queued runs of the user who owns `runId` that their limits leave room for and hands
   * them on (runs/admit-runs.ts): after a run of theirs ends or parks, or a chat's next run is unblocked.
   */
  admitFor(runId: string): Promise<void>;
}

export interface LoopLogger {
  info(object: Record<string, unknown>, message: string): void;
  warn(object: Record<string, unknown>, message: string): void;
  error(object: Record<string, unknown>, message: string): void;
}

export interface RunLoopDependencies {
  prisma: PrismaClient;
  publisher: RunEventPublisher;
  models: ModelResolver;
  tools: ToolCatalog;
  scheduler: RunScheduler;
  clock: Clock;
  generateId: GenerateId;
  /** Ids that are also capabilities (approval ids). Default: `generateSecretId`, 256 random bits. */
  generateSecretId?: GenerateId;
  logger: LoopLogger;
  /** Key that seals approval records (APPROVAL_SECRET, or the one generated and stored once). */
  approvalSecret: string;
  /** Milliseconds between text-delta publishes (deltas are coalesced). Default 25. */
  deltaFlushMs?: number;
  /**
   * How a step's change is committed: a RunCommitBatcher (createRunCommitBatcher; group commit: the
   * steps of many runs share a statement under load, and each goes alone at once when few are in flight).
   */
  commits: RunCommitter;
}
