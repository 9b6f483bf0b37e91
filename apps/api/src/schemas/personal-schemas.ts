import { z } from "zod";
import { TASK_STATUSES } from "@agentq/core";
import { timestamp } from "./common-schemas.ts";

// Personal data (API.md "Personal data"): the answers of notes, tasks, calendar events and memories.

export const noteSchema = z
  .object({ id: z.string(), title: z.string(), content: z.string(), tags: z.array(z.string()), created_at: timestamp(), updated_at: timestamp() })
  .meta({ id: "Note" });
export const noteListSchema = z.object({ notes: z.array(noteSchema) }).meta({ id: "NoteList" });

export const taskSchema = z
  .object({
    id: z.string(),
    title: z.string(),
    notes: z.string(),
    status: z.enum(TASK_STATUSES).meta({ id: "TaskStatus" }),
    due_at: timestamp().nullable(),
    completed_at: timestamp().nullable().meta({ description: "when it was marked done; null while open" }),
    created_at: timestamp(),
    updated_at: timestamp(),
  })
  .meta({ id: "Task" });
export const taskListSchema = z.object({ tasks: z.array(taskSchema) }).meta({ id: "TaskList" });

export const calendarEventSchema = z
  .object({
    id: z.string(),
    title: z.string(),
    starts_at: timestamp(),
    ends_at: timestamp().meta({ description: "exclusive; an all-day event ends at midnight UTC after its last day" }),
    all_day: z.boolean(),
    location: z.string().nullable(),
    description: z.string().nullable(),
    attendees: z.array(z.string()),
  })
  .meta({ id: "CalendarEvent" });
export const calendarEventListSchema = z.object({ events: z.array(calendarEventSchema) }).meta({ id: "CalendarEventList" });

export const memorySchema = z.object({ id: z.string(), content: z.string(), tags: z.array(z.string()), created_at: timestamp() }).meta({ id: "Memory" });
export const memoryListSchema = z.object({ memories: z.array(memorySchema) }).meta({ id: "MemoryList" });
