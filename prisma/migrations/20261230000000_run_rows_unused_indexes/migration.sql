-- Two indexes that no query reads, updated at every message and tool call a run's commit writes:
-- a chat's messages are read by chat and position, and a run's tool calls by run, which the
-- (run_id, call_id) key already orders the lookup of. The trigger that clears a deleted run's
-- messages (migration run_rows_without_foreign_keys) was the only reader of messages by run: it
-- now finds them by their chat.
-- DropIndex
DROP INDEX "messages_run_id_idx";

-- DropIndex
DROP INDEX "tool_calls_run_id_round_idx";

CREATE OR REPLACE FUNCTION "runs_delete_run_rows"() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  DELETE FROM "run_events" WHERE "run_id" IN (SELECT "id" FROM "deleted_runs");
  DELETE FROM "tool_calls" WHERE "run_id" IN (SELECT "id" FROM "deleted_runs");
  DELETE FROM "run_file_reads" WHERE "run_id" IN (SELECT "id" FROM "deleted_runs");
  UPDATE "messages" AS m SET "run_id" = NULL
  FROM "deleted_runs" AS d
  WHERE m."chat_id" = d."chat_id" AND m."run_id" = d."id";
  RETURN NULL;
END
$$;
