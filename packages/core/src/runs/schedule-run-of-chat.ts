import type { RunGeneration, RunLoopDependencies } from "./run-loop-dependencies.ts";

/**
 * A chat's run that nothing blocks any more (the commit that finished the run ahead of it named it,
 * store/run-statement.ts) goes through admission like every new run: its user's limits decide
 * whether it is handed to a worker now. If the queue refuses, the reconciler hands it on later.
 */
export async function scheduleRunOfChat(
  dependencies: Pick<RunLoopDependencies, "scheduler" | "logger">,
  next: { id: string; generation: RunGeneration },
): Promise<void> {
  await dependencies.scheduler.admitFor(next.id).catch((error: unknown) => {
    dependencies.logger.warn({ run_id: next.id, err: error }, "could not admit the chat's next run; the sweep will");
  });
}
