-- Run creation in one statement (runs/create-run.ts): the statement takes the chat's row lock by
-- bumping this count, and a creation that waited for another one's lock sees, in the row it then
-- updates, whether its snapshot already held that creation's run.
ALTER TABLE "chats" ADD COLUMN "runs_created" INTEGER NOT NULL DEFAULT 0;
