-- Admission asks first whether the user has runs waiting for it (queued, dispatched_at null), and
-- counts their active runs only then (store/statements/admission-statements.ts).
CREATE INDEX "runs_user_id_status_dispatched_at_idx" ON "runs"("user_id", "status", "dispatched_at");
