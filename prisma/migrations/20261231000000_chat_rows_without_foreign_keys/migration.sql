-- A chat's messages are written by one statement only, the run's commit (packages/core/src/store/run-statement.ts),
-- which joins each to the chat row it has just updated (the chat's message count); a run is inserted
-- by one statement only, its creation (store/statements/run-create-statements.ts), which joins it to
-- the chat row it has just locked, owned by the user it names. Neither can name a chat or user that
-- does not exist. The foreign keys checked it again, one query a message and two a run, about eight a
-- run (W1), each also locking the chat's or the user's row; without them Postgres spends 5-7 % less CPU
-- a run (W1, four interleaved pairs). A deleted chat still takes its messages and runs with it, as
-- the keys' ON DELETE did: the trigger below. A deleted user's chats go by their own key, and so
-- their runs: a run's user is its chat's.
-- DropForeignKey
ALTER TABLE "messages" DROP CONSTRAINT "messages_chat_id_fkey";

-- DropForeignKey
ALTER TABLE "runs" DROP CONSTRAINT "runs_chat_id_fkey";

-- DropForeignKey
ALTER TABLE "runs" DROP CONSTRAINT "runs_user_id_fkey";

-- What the dropped keys did when a chat was deleted (its user's cascade, or by hand): its messages and
-- its runs go (and with each run, by the trigger runs_delete_run_rows, its events, tool calls and file
-- reads). Messages first, so the runs' trigger finds none of theirs left to clear. Once per statement.
CREATE FUNCTION "chats_delete_chat_rows"() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  DELETE FROM "messages" WHERE "chat_id" IN (SELECT "id" FROM "deleted_chats");
  DELETE FROM "runs" WHERE "chat_id" IN (SELECT "id" FROM "deleted_chats");
  RETURN NULL;
END
$$;

CREATE TRIGGER "chats_delete_chat_rows" AFTER DELETE ON "chats" REFERENCING OLD TABLE AS "deleted_chats" FOR EACH STATEMENT EXECUTE FUNCTION "chats_delete_chat_rows"();
