import { z } from "zod";
import {
  createCalendarEvent,
  createMemory,
  createNote,
  createTask,
  deleteCalendarEvent,
  deleteMemory,
  deleteNote,
  deleteTask,
  eventCreateSchema,
  eventPatchSchema,
  eventWindowSchema,
  generateId,
  getCalendarEvent,
  getNote,
  getTask,
  listCalendarEvents,
  listMemories,
  listNotes,
  listTasks,
  MAX_RECALL_LIMIT,
  memoryCreateSchema,
  noteCreateSchema,
  noteFilterSchema,
  notePatchSchema,
  recallMemories,
  renderCalendarFeed,
  sqlPoolOf,
  taskCreateSchema,
  taskFilterSchema,
  taskPatchSchema,
  updateCalendarEvent,
  updateNote,
  updateTask,
} from "@agentq/core";
import type { ApiDependencies } from "../api-dependencies.ts";
import { ANSWERED, defineRoute } from "../http/api-route.ts";
import { limitQuery } from "../schemas/common-schemas.ts";
import {
  calendarEventListSchema,
  calendarEventSchema,
  memoryListSchema,
  memorySchema,
  noteListSchema,
  noteSchema,
  taskListSchema,
  taskSchema,
} from "../schemas/personal-schemas.ts";

const sql = (dependencies: ApiDependencies) => sqlPoolOf(dependencies.prisma);

/** Notes (API.md "Personal data"): the caller's own only; someone else's is 404. */
export const noteRoutes = [
  defineRoute({
    method: "post",
    path: "/api/notes",
    operationId: "createNote",
    summary: "Create a note",
    body: noteCreateSchema,
    responses: { 201: { description: "the note", schema: noteSchema } },
    handler: async ({ dependencies, user, body }) => ({ status: 201, body: await createNote(sql(dependencies), generateId, user.id, body) }),
  }),
  defineRoute({
    method: "get",
    path: "/api/notes",
    operationId: "listNotes",
    summary: "The caller's notes, newest change first",
    query: noteFilterSchema,
    responses: { 200: { description: "the notes (at most 200)", schema: noteListSchema } },
    handler: async ({ dependencies, user, query }) => ({ status: 200, body: { notes: await listNotes(sql(dependencies), user.id, query) } }),
  }),
  defineRoute({
    method: "get",
    path: "/api/notes/:id",
    operationId: "getNote",
    summary: "A note",
    parameters: { id: "the note's id" },
    responses: { 200: { description: "the note", schema: noteSchema } },
    handler: async ({ dependencies, user, params }) => ({ status: 200, body: await getNote(sql(dependencies), user.id, params.id) }),
  }),
  defineRoute({
    method: "patch",
    path: "/api/notes/:id",
    operationId: "updateNote",
    summary: "Change the fields of a note the body names",
    parameters: { id: "the note's id" },
    body: notePatchSchema,
    responses: { 200: { description: "the note as changed", schema: noteSchema } },
    handler: async ({ dependencies, user, params, body }) => ({ status: 200, body: await updateNote(sql(dependencies), user.id, params.id, body) }),
  }),
  defineRoute({
    method: "delete",
    path: "/api/notes/:id",
    operationId: "deleteNote",
    summary: "Delete a note",
    parameters: { id: "the note's id" },
    responses: { 204: { description: "deleted" } },
    handler: async ({ dependencies, user, params }) => {
      await deleteNote(sql(dependencies), user.id, params.id);
      return { status: 204 };
    },
  }),
];

/** Tasks (API.md "Personal data"). */
export const taskRoutes = [
  defineRoute({
    method: "post",
    path: "/api/tasks",
    operationId: "createTask",
    summary: "Create a task",
    body: taskCreateSchema,
    responses: { 201: { description: "the task (open)", schema: taskSchema } },
    handler: async ({ dependencies, user, body }) => ({ status: 201, body: await createTask(sql(dependencies), generateId, user.id, body) }),
  }),
  defineRoute({
    method: "get",
    path: "/api/tasks",
    operationId: "listTasks",
    summary: "The caller's tasks, soonest due first",
    query: taskFilterSchema,
    responses: { 200: { description: "the tasks (at most 500)", schema: taskListSchema } },
    handler: async ({ dependencies, user, query }) => ({ status: 200, body: { tasks: await listTasks(sql(dependencies), user.id, query) } }),
  }),
  defineRoute({
    method: "get",
    path: "/api/tasks/:id",
    operationId: "getTask",
    summary: "A task",
    parameters: { id: "the task's id" },
    responses: { 200: { description: "the task", schema: taskSchema } },
    handler: async ({ dependencies, user, params }) => ({ status: 200, body: await getTask(sql(dependencies), user.id, params.id) }),
  }),
  defineRoute({
    method: "patch",
    path: "/api/tasks/:id",
    operationId: "updateTask",
    summary: "Change the fields of a task the body names",
    description: "`status: done` sets `completed_at` (a task already done keeps its first completion time); `status: open` clears it.",
    parameters: { id: "the task's id" },
    body: taskPatchSchema,
    responses: { 200: { description: "the task as changed", schema: taskSchema } },
    handler: async ({ dependencies, user, params, body }) => ({ status: 200, body: await updateTask(sql(dependencies), user.id, params.id, body) }),
  }),
  defineRoute({
    method: "delete",
    path: "/api/tasks/:id",
    operationId: "deleteTask",
    summary: "Delete a task",
    parameters: { id: "the task's id" },
    responses: { 204: { description: "deleted" } },
    handler: async ({ dependencies, user, params }) => {
      await deleteTask(sql(dependencies), user.id, params.id);
      return { status: 204 };
    },
  }),
];

/** Calendar events and the iCalendar feed (API.md "Personal data"). */
export const calendarRoutes = [
  defineRoute({
    method: "post",
    path: "/api/calendar/events",
    operationId: "createCalendarEvent",
    summary: "Create a calendar event",
    description:
      "Times are ISO-8601 with `Z` or an offset and are stored in UTC. An all-day event (`all_day: true`) gives dates: `ends_at` is the date after its last day " +
      "(as in iCalendar; absent, or not after `starts_at`: one day). A timed event without `ends_at` lasts an hour.",
    body: eventCreateSchema,
    responses: { 201: { description: "the event", schema: calendarEventSchema } },
    handler: async ({ dependencies, user, body }) => ({ status: 201, body: await createCalendarEvent(sql(dependencies), generateId, user.id, body) }),
  }),
  defineRoute({
    method: "get",
    path: "/api/calendar/events",
    operationId: "listCalendarEvents",
    summary: "The caller's events that overlap a window, earliest first",
    description: "An event overlaps when it starts before `to` and ends after `from`; either bound may be left out.",
    query: eventWindowSchema,
    responses: { 200: { description: "the events (at most 1000)", schema: calendarEventListSchema } },
    handler: async ({ dependencies, user, query }) => ({ status: 200, body: { events: await listCalendarEvents(sql(dependencies), user.id, query) } }),
  }),
  defineRoute({
    method: "get",
    path: "/api/calendar/events/:id",
    operationId: "getCalendarEvent",
    summary: "A calendar event",
    parameters: { id: "the event's id" },
    responses: { 200: { description: "the event", schema: calendarEventSchema } },
    handler: async ({ dependencies, user, params }) => ({ status: 200, body: await getCalendarEvent(sql(dependencies), user.id, params.id) }),
  }),
  defineRoute({
    method: "patch",
    path: "/api/calendar/events/:id",
    operationId: "updateCalendarEvent",
    summary: "Change the fields of an event the body names",
    description: "A new `starts_at` without `ends_at` keeps the event's length.",
    parameters: { id: "the event's id" },
    body: eventPatchSchema,
    responses: { 200: { description: "the event as changed", schema: calendarEventSchema } },
    handler: async ({ dependencies, user, params, body }) => ({ status: 200, body: await updateCalendarEvent(sql(dependencies), user.id, params.id, body) }),
  }),
  defineRoute({
    method: "delete",
    path: "/api/calendar/events/:id",
    operationId: "deleteCalendarEvent",
    summary: "Delete a calendar event",
    parameters: { id: "the event's id" },
    responses: { 204: { description: "deleted" } },
    handler: async ({ dependencies, user, params }) => {
      await deleteCalendarEvent(sql(dependencies), user.id, params.id);
      return { status: 204 };
    },
  }),
  defineRoute({
    method: "get",
    path: "/api/calendar.ics",
    operationId: "getCalendarFeed",
    summary: "The caller's calendar as an iCalendar feed (RFC 5545)",
    description:
      "Every event from a year ago on, times in UTC, all-day events as dates. A calendar app subscribes with the token in the URL: " +
      "`/api/calendar.ics?token=<token>` (the token is redacted from logs).",
    queryToken: true,
    responses: { 200: { description: "the feed", alternatives: { "text/calendar": { schema: z.string().meta({ description: "a VCALENDAR" }) } } } },
    handler: async ({ dependencies, user, response }): Promise<typeof ANSWERED> => {
      const feed = await renderCalendarFeed(sql(dependencies), { userId: user.id, userName: user.name, host: "agentq", now: new Date() });
      response.status(200).setHeader("Content-Type", "text/calendar; charset=utf-8");
      response.setHeader("Cache-Control", "private, no-cache");
      response.send(feed);
      return ANSWERED;
    },
  }),
];

const memoryQuery = z.object({
  query: z.string().trim().min(1).max(1000).optional().meta({ description: "ranks the memories by full-text relevance (trigram similarity as the fallback)" }),
  limit: limitQuery(100, MAX_RECALL_LIMIT),
});

/** Memories (API.md "Personal data"). */
export const memoryRoutes = [
  defineRoute({
    method: "post",
    path: "/api/memories",
    operationId: "createMemory",
    summary: "Remember something",
    body: memoryCreateSchema,
    responses: { 201: { description: "the memory", schema: memorySchema } },
    handler: async ({ dependencies, user, body }) => ({ status: 201, body: await createMemory(sql(dependencies), generateId, user.id, body) }),
  }),
  defineRoute({
    method: "get",
    path: "/api/memories",
    operationId: "listMemories",
    summary: "The caller's memories: newest first, or the best matches of `query`",
    query: memoryQuery,
    responses: { 200: { description: "the memories (without a query: at most 500; with one: at most `limit`)", schema: memoryListSchema } },
    handler: async ({ dependencies, user, query }) => ({
      status: 200,
      body: {
        memories:
          query.query === undefined
            ? await listMemories(sql(dependencies), user.id)
            : await recallMemories(sql(dependencies), user.id, { query: query.query, limit: query.limit }),
      },
    }),
  }),
  defineRoute({
    method: "delete",
    path: "/api/memories/:id",
    operationId: "deleteMemory",
    summary: "Forget a memory",
    parameters: { id: "the memory's id" },
    responses: { 204: { description: "deleted" } },
    handler: async ({ dependencies, user, params }) => {
      await deleteMemory(sql(dependencies), user.id, params.id);
      return { status: 204 };
    },
  }),
];
