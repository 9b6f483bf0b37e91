import { z } from "zod";
import { NotFoundError } from "../errors/agentq-error.ts";
import type { GenerateId } from "../ids.ts";
import { queryParsed, type SqlRunner } from "../store/sql-pool.ts";
import { deleteOwnRow, isoTimeField, isoUtc, titleField, updateOwnRow } from "./personal-fields.ts";

export const TASK_STATUSES = ["open", "done"] as const;
export type TaskStatus = (typeof TASK_STATUSES)[number];

/** A task as the API returns it (API.md "Personal data"). */
export interface TaskView {
  id: string;
  title: string;
  notes: string;
  status: TaskStatus;
  due_at: string | null;
  completed_at: string | null;
  created_at: string;
  updated_at: string;
}

export const taskCreateSchema = z.object({
  title: titleField().describe("What is to be done."),
  notes: z.string().max(50_000).default("").describe("Details."),
  due_at: isoTimeField().nullable().default(null).describe("When it is due (ISO-8601 with Z or an offset)."),
});

export const taskPatchSchema = z.object({
  title: titleField().optional(),
  notes: z.string().max(50_000).optional(),
  due_at: isoTimeField().nullable().optional().describe("A new due time; null removes it."),
  status: z.enum(TASK_STATUSES).optional().describe("`done` completes the task (sets completed_at), `open` reopens it."),
});

export const taskFilterSchema = z.object({
  status: z.enum(TASK_STATUSES).optional().describe("Only tasks with this status."),
  due_before: isoTimeField().optional().describe("Only tasks due before this time."),
});

/** The most tasks one list answers: soonest due first, then the newest. */
export const TASK_LIST_LIMIT = 500;

const COLUMNS = "id, title, notes, status::text AS status, due_at, completed_at, created_at, updated_at";
const taskRow = z.object({
  id: z.string(),
  title: z.string(),
  notes: z.string(),
  status: z.enum(TASK_STATUSES),
  due_at: z.date().nullable(),
  completed_at: z.date().nullable(),
  created_at: z.date(),
  updated_at: z.date(),
});

function toTaskView(row: z.output<typeof taskRow>): TaskView {
  return {
    ...row,
    due_at: isoUtc(row.due_at),
    completed_at: isoUtc(row.completed_at),
    created_at: isoUtc(row.created_at),
    updated_at: isoUtc(row.updated_at),
  };
}

const toDate = (value: string | null | undefined) => (value === undefined ? undefined : value === null ? null : new Date(value));

export async function createTask(runner: SqlRunner, generateId: GenerateId, userId: string, input: z.output<typeof taskCreateSchema>): Promise<TaskView> {
  const [row] = await queryParsed(
    runner,
    `INSERT INTO tasks (id, user_id, title, notes, due_at) VALUES ($1, $2, $3, $4, $5) RETURNING ${COLUMNS}`,
    [generateId("task"), userId, input.title, input.notes, toDate(input.due_at)],
    taskRow,
  );
  return toTaskView(row!);
}

export async function listTasks(runner: SqlRunner, userId: string, filter: z.output<typeof taskFilterSchema>): Promise<TaskView[]> {
  const rows = await queryParsed(
    runner,
    `SELECT ${COLUMNS} FROM tasks WHERE user_id = $1
       AND ($2::text IS NULL OR status = $2::"TaskStatus")
       AND ($3::timestamptz IS NULL OR due_at < $3)
     ORDER BY due_at ASC NULLS LAST, created_at DESC, id LIMIT ${TASK_LIST_LIMIT}`,
    [userId, filter.status ?? null, toDate(filter.due_before) ?? null],
    taskRow,
  );
  return rows.map(toTaskView);
}

export async function getTask(runner: SqlRunner, userId: string, taskId: string): Promise<TaskView> {
  const [row] = await queryParsed(runner, `SELECT ${COLUMNS} FROM tasks WHERE id = $1 AND user_id = $2`, [taskId, userId], taskRow);
  if (!row) throw new NotFoundError("task");
  return toTaskView(row);
}

/** Changes the named fields; a status change sets completed_at (done) or clears it (open), once. */
export async function updateTask(runner: SqlRunner, userId: string, taskId: string, patch: z.output<typeof taskPatchSchema>): Promise<TaskView> {
  const row = await updateOwnRow(runner, {
    table: "tasks",
    resource: "task",
    columns: COLUMNS,
    userId,
    id: taskId,
    changes: {
      title: patch.title,
      notes: patch.notes,
      due_at: toDate(patch.due_at),
      // Completing a done task keeps its first completion time.
      completed_at:
        patch.status === undefined ? undefined : patch.status === "done" ? { sql: "CASE WHEN status = 'done' THEN completed_at ELSE now() END" } : null,
      status: patch.status === undefined ? undefined : { sql: `'${patch.status}'::"TaskStatus"` },
    },
    row: taskRow,
  });
  return toTaskView(row);
}

export function deleteTask(runner: SqlRunner, userId: string, taskId: string): Promise<void> {
  return deleteOwnRow(runner, { table: "tasks", resource: "task", userId, id: taskId });
}
