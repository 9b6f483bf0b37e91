import { z } from "zod";
import { idField } from "../../../personal/personal-fields.ts";
import { createTask, deleteTask, listTasks, taskCreateSchema, taskFilterSchema, taskPatchSchema, updateTask } from "../../../personal/task-store.ts";
import type { ToolDefinition } from "../../tool-definition.ts";
import { type PersonalStore, recordLines, withPersonalStore } from "../personal-tool-support.ts";

const taskId = idField("The task_id of the task.");
const common = { family: "personal", feature: "tasks", requiresWorkspace: false } as const;

/** The user's task list (API.md "Personal data"): listing taints; creating, changing, completing and deleting are `write` effects. */
export function createTaskTools(store: PersonalStore | null): ToolDefinition[] {
  const create: ToolDefinition<z.output<typeof taskCreateSchema>> = {
    ...common,
    name: "create_task",
    description: "Add a task to the user's task list (title, optional notes and due_at). Returns its task_id.",
    parameters: taskCreateSchema,
    effects: ["write"],
    taints: false,
    execute: (args, context) =>
      withPersonalStore(store, async ({ runner, generateId }) => {
        const task = await createTask(runner, generateId, context.userId, args);
        return { ok: true, output: `Created task "${task.title}". task_id: ${task.id}`, data: { task_id: task.id } };
      }),
  };

  const list: ToolDefinition<z.output<typeof taskFilterSchema>> = {
    ...common,
    name: "list_tasks",
    description: "List the user's tasks, soonest due first; optionally only `open` or `done` ones, or those due before a time.",
    parameters: taskFilterSchema,
    effects: ["read"],
    taints: true,
    execute: (args, context) =>
      withPersonalStore(store, async ({ runner }) => {
        const tasks = await listTasks(runner, context.userId, args);
        return { ok: true, output: recordLines("tasks", tasks), data: { count: tasks.length } };
      }),
    describeCall: (args) => `tasks${args.status ? ` (${args.status})` : ""}${args.due_before ? ` due before ${args.due_before}` : ""}`,
  };

  const update: ToolDefinition<z.output<typeof taskPatchSchema> & { task_id: string }> = {
    ...common,
    name: "update_task",
    description: "Change a task: only the fields given change (due_at null removes the due time; status done/open completes or reopens it).",
    parameters: taskPatchSchema.extend({ task_id: taskId }),
    effects: ["write"],
    taints: false,
    execute: ({ task_id, ...patch }, context) =>
      withPersonalStore(store, async ({ runner }) => {
        const task = await updateTask(runner, context.userId, task_id, patch);
        return { ok: true, output: `Updated task "${task.title}" (${task.status}). task_id: ${task.id}`, data: { task_id: task.id } };
      }),
  };

  const complete: ToolDefinition<{ task_id: string }> = {
    ...common,
    name: "complete_task",
    description: "Mark a task done.",
    parameters: z.object({ task_id: taskId }),
    effects: ["write"],
    taints: false,
    execute: (args, context) =>
      withPersonalStore(store, async ({ runner }) => {
        const task = await updateTask(runner, context.userId, args.task_id, { status: "done" });
        return { ok: true, output: `Completed task "${task.title}". task_id: ${task.id}`, data: { task_id: task.id } };
      }),
  };

  const remove: ToolDefinition<{ task_id: string }> = {
    ...common,
    name: "delete_task",
    description: "Delete a task.",
    parameters: z.object({ task_id: taskId }),
    effects: ["write"],
    taints: false,
    execute: (args, context) =>
      withPersonalStore(store, async ({ runner }) => {
        await deleteTask(runner, context.userId, args.task_id);
        return { ok: true, output: `Deleted task ${args.task_id}.` };
      }),
  };

  return [create, list, update, complete, remove];
}
