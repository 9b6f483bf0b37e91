-- 20270102000000_worker_lease_ms gave `lease_ms` a default of 30 s, so a worker of an earlier release,
-- which does not write it, read as one that takes handovers (packages/core/src/runs/resume-handover.ts),
-- and would have dropped the offer it could not read. Null now marks such a worker: it is offered runs
-- without a handover. Workers of this release write their lease length again at their next beat (10 s).
-- AlterTable
ALTER TABLE "workers" ALTER COLUMN "lease_ms" DROP NOT NULL, ALTER COLUMN "lease_ms" DROP DEFAULT;
UPDATE "workers" SET "lease_ms" = NULL;
