import { nextRunnableRunOfChat } from "./run-lease.ts";
import type { RunLoopDependencies } from "./run-loop-dependencies.ts";

/** Hands the chat's oldest waiting run to a worker once nothing blocks it any more. */
export async function scheduleNextRunOfChat(dependencies: Pick<RunLoopDependencies, "prisma" | "scheduler" | "logger">, chatId: string): Promise<void> {
  const next = await nextRunnableRunOfChat(dependencies.prisma, chatId);
  if (!next) return;
  await dependencies.scheduler.schedule(next.id, { lastEventSeq: next.lastEventSeq, leaseVersion: next.leaseVersion }).catch((error: unknown) => {
    dependencies.logger.warn({ run_id: next.id, err: error }, "could not enqueue the chat's next run; the reconciler will");
  });
}
