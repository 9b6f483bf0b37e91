-- Run creation and admission in one statement each (runs/create-run.ts, runs/admit-runs.ts): each
-- takes its row's lock (the chat's, the user's) by bumping a count, and a statement that waited for
-- another's lock sees, in the row it then updates, whether its snapshot already held that change.
ALTER TABLE "chats" ADD COLUMN "runs_created" INTEGER NOT NULL DEFAULT 0;
ALTER TABLE "users" ADD COLUMN "admissions" INTEGER NOT NULL DEFAULT 0;
