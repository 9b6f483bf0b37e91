-- Admission picks a user's runs waiting for it oldest first and stops at the room their limits leave
-- (store/statements/admission-statements.ts): with created_at and id after dispatched_at, the index
-- hands them over in that order, and a user with thousands queued costs what is picked, not what
-- waits. It covers the two (user_id, status, ...) indexes it replaces: with both there, a plan made
-- while the tables were nearly empty could not tell them apart and often read every queued run of
-- the user through the created_at one to find the few admitted.
-- DropIndex
DROP INDEX "runs_user_id_status_dispatched_at_idx";

-- DropIndex
DROP INDEX "runs_user_id_status_created_at_idx";

-- CreateIndex
CREATE INDEX "runs_user_id_status_dispatched_at_created_at_id_idx" ON "runs"("user_id", "status", "dispatched_at", "created_at", "id");

-- The idle worker slots count every admitted run still queued (status queued, dispatched_at set);
-- on the status index alone that visited every queued run, thousands while a backlog waits.
-- CreateIndex
CREATE INDEX "runs_status_dispatched_at_idx" ON "runs"("status", "dispatched_at");

-- Autovacuum visits runs after 2,000 dead row versions rather than after a fifth of the table: every
-- change of a run's status or admission leaves index entries of the old version, and the lookups the
-- hot path makes at every take of a run step over them until a vacuum (runs/vacuum-runs.ts; where
-- autovacuum is off, the workers' sweep vacuums instead).
ALTER TABLE "runs" SET (autovacuum_vacuum_scale_factor = 0, autovacuum_vacuum_threshold = 2000);
