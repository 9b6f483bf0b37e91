-- Approvals and grants are written by one statement only, the run's commit (packages/core/src/store/run-statement.ts):
-- an approval joined to the run row it has just updated under the run's fence, for a tool call of
-- that run that the same commit inserts or updates; a grant joined to the same run row, which names
-- its chat (and the run itself, for a task grant). Neither can name a run, chat or tool call that does
-- not exist. The foreign keys checked it again, a query each, each also locking the row it found:
-- about four a decided approval (W2, PARKED), the run's row among them, which the same statement has
-- just updated. A deleted run still takes its approvals and grants with it, and a deleted chat its
-- grants, as the keys' ON DELETE did: the two triggers below, replaced.
-- DropForeignKey
ALTER TABLE "approvals" DROP CONSTRAINT "approvals_run_id_fkey";

-- DropForeignKey
ALTER TABLE "approvals" DROP CONSTRAINT "approvals_tool_call_row_id_fkey";

-- DropForeignKey
ALTER TABLE "grants" DROP CONSTRAINT "grants_chat_id_fkey";

-- DropForeignKey
ALTER TABLE "grants" DROP CONSTRAINT "grants_run_id_fkey";

-- A deleted run's rows, as before (migration run_rows_without_foreign_keys), and now its approvals and
-- its task grants. Once per statement, for every run it deleted.
CREATE OR REPLACE FUNCTION "runs_delete_run_rows"() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  DELETE FROM "run_events" WHERE "run_id" IN (SELECT "id" FROM "deleted_runs");
  DELETE FROM "approvals" WHERE "run_id" IN (SELECT "id" FROM "deleted_runs");
  DELETE FROM "grants" WHERE "run_id" IN (SELECT "id" FROM "deleted_runs");
  DELETE FROM "tool_calls" WHERE "run_id" IN (SELECT "id" FROM "deleted_runs");
  DELETE FROM "run_file_reads" WHERE "run_id" IN (SELECT "id" FROM "deleted_runs");
  UPDATE "messages" SET "run_id" = NULL WHERE "run_id" IN (SELECT "id" FROM "deleted_runs");
  RETURN NULL;
END
$$;

-- A deleted chat's rows, as before (migration chat_rows_without_foreign_keys), and now its grants: the
-- chat's own (allow_chat, no run) and, with them, its runs' task grants.
CREATE OR REPLACE FUNCTION "chats_delete_chat_rows"() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  DELETE FROM "grants" WHERE "chat_id" IN (SELECT "id" FROM "deleted_chats");
  DELETE FROM "messages" WHERE "chat_id" IN (SELECT "id" FROM "deleted_chats");
  DELETE FROM "runs" WHERE "chat_id" IN (SELECT "id" FROM "deleted_chats");
  RETURN NULL;
END
$$;
