-- The rows a run's steps append (its events, its messages' run, its tool calls, its file reads) are
-- written by one statement only, the run's commit (packages/core/src/store/run-statement.ts), which
-- joins each row to the run row it has just updated under the run's fence, and by the statement that
-- creates the run: neither can name a run that does not exist. Their foreign keys to runs checked it
-- again, one query a row, about twenty a run; that was a tenth of Postgres's CPU in a run's steps.
-- A run deleted still takes these rows with it, as the keys' ON DELETE did: the trigger below.
-- DropForeignKey
ALTER TABLE "run_events" DROP CONSTRAINT "run_events_run_id_fkey";

-- DropForeignKey
ALTER TABLE "messages" DROP CONSTRAINT "messages_run_id_fkey";

-- DropForeignKey
ALTER TABLE "tool_calls" DROP CONSTRAINT "tool_calls_run_id_fkey";

-- DropForeignKey
ALTER TABLE "run_file_reads" DROP CONSTRAINT "run_file_reads_run_id_fkey";

-- What the dropped keys did when a run was deleted (a user's or a chat's cascade, or by hand): its
-- events, tool calls (their approvals follow by their own key) and file reads go, its messages stay
-- with the chat without a run. Once per statement, for every run it deleted.
CREATE FUNCTION "runs_delete_run_rows"() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  DELETE FROM "run_events" WHERE "run_id" IN (SELECT "id" FROM "deleted_runs");
  DELETE FROM "tool_calls" WHERE "run_id" IN (SELECT "id" FROM "deleted_runs");
  DELETE FROM "run_file_reads" WHERE "run_id" IN (SELECT "id" FROM "deleted_runs");
  UPDATE "messages" SET "run_id" = NULL WHERE "run_id" IN (SELECT "id" FROM "deleted_runs");
  RETURN NULL;
END
$$;

CREATE TRIGGER "runs_delete_run_rows" AFTER DELETE ON "runs" REFERENCING OLD TABLE AS "deleted_runs" FOR EACH STATEMENT EXECUTE FUNCTION "runs_delete_run_rows"();
