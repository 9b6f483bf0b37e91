-- A worker's lease length (its RUN_LEASE_MS), beside its slots: a decision that hands a run to a worker
-- gives it a lease of that worker's own length (packages/core/src/runs/resume-handover.ts), so a worker
-- that dies before taking the run holds it no longer than one that dies while executing it. Rows written
-- before this column (and by an older worker) read 30 s, RUN_LEASE_MS's default.
-- AlterTable
ALTER TABLE "workers" ADD COLUMN "lease_ms" INTEGER NOT NULL DEFAULT 30000;
