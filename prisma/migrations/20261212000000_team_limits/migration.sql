-- Team operations: per-user limits (null = the deployment's setting) and admission of queued runs.
ALTER TABLE "users" ADD COLUMN "max_active_runs" INTEGER;
ALTER TABLE "users" ADD COLUMN "runs_per_day" INTEGER;
ALTER TABLE "users" ADD COLUMN "tokens_per_day" INTEGER;

-- When the run was admitted (handed to the queue); null: queued and waiting for admission.
ALTER TABLE "runs" ADD COLUMN "dispatched_at" TIMESTAMPTZ(3);

-- Runs that exist before admission did were all handed to the queue when they were created.
UPDATE "runs" SET "dispatched_at" = "created_at";

-- CreateIndex
-- A user's queued and running runs: what admission (runs/admit-runs.ts) counts and picks from.
CREATE INDEX "runs_user_id_status_created_at_idx" ON "runs"("user_id", "status", "created_at");
