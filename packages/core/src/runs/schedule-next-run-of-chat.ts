import { nextRunnableRunOfChat } from "./run-lease.ts";
import type { RunGeneration, RunLoopDependencies } from "./run-loop-dependencies.ts";

/** Hands the chat's oldest waiting run to a worker once nothing blocks it any more. */
export async function scheduleNextRunOfChat(dependencies: Pick<RunLoopDependencies, "prisma" | "scheduler" | "logger">, chatId: string): Promise<void> {
  const next = await nextRunnableRunOfChat(dependencies.prisma, chatId);
  if (next) await scheduleRunOfChat(dependencies, { id: next.id, generation: { lastEventSeq: next.lastEventSeq, leaseVersion: next.leaseVersion } });
}

/** Hands a chat's run that nothing blocks any more to a worker; if the queue refuses, the reconciler will. */
export async function scheduleRunOfChat(
  dependencies: Pick<RunLoopDependencies, "scheduler" | "logger">,
  next: { id: string; generation: RunGeneration },
): Promise<void> {
  await dependencies.scheduler.schedule(next.id, next.generation).catch((error: unknown) => {
    dependencies.logger.warn({ run_id: next.id, err: error }, "could not enqueue the chat's next run; the reconciler will");
  });
}
