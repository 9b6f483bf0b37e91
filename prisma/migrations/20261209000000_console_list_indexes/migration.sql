-- The web console's lists: a chat's runs newest first (GET /api/chats/:id/runs, and each chat's last
-- run in GET /api/chats), and a user's pending approvals newest first (GET /api/approvals).
CREATE INDEX "runs_chat_id_created_at_idx" ON "runs"("chat_id", "created_at");
CREATE INDEX "approvals_user_id_status_created_at_idx" ON "approvals"("user_id", "status", "created_at");
