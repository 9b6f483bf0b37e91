import type { RunGeneration, RunLoopDependencies } from "./run-loop-dependencies.ts";

/**
 * Hands a chat's run that nothing blocks any more to a worker: the commit that finished the run ahead
 * of it named it (store/run-statement.ts). If the queue refuses, the reconciler hands it on later.
 */
export async function scheduleRunOfChat(
  dependencies: Pick<RunLoopDependencies, "scheduler" | "logger">,
  next: { id: string; generation: RunGeneration },
): Promise<void> {
  await dependencies.scheduler.schedule(next.id, next.generation).catch((error: unknown) => {
    dependencies.logger.warn({ run_id: next.id, err: error }, "could not enqueue the chat's next run; the reconciler will");
  });
}
