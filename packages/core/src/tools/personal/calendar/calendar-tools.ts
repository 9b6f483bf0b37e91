import { z } from "zod";
import {
  createCalendarEvent,
  deleteCalendarEvent,
  eventCreateSchema,
  eventPatchSchema,
  listCalendarEvents,
  timeOrDateField,
  updateCalendarEvent,
} from "../../../personal/calendar-event-store.ts";
import { idField } from "../../../personal/personal-fields.ts";
import type { ToolDefinition } from "../../tool-definition.ts";
import { type PersonalStore, recordLines, withPersonalStore } from "../personal-tool-support.ts";

const eventId = idField("The event_id of the event.");
const common = { family: "personal", feature: "calendar", requiresWorkspace: false } as const;

const windowSchema = z.object({
  from: timeOrDateField().describe("Start of the window (ISO-8601 time with Z or an offset, or a date)."),
  to: timeOrDateField().describe("End of the window."),
});

/** The user's calendar (API.md "Personal data"): listing taints; creating, changing and deleting events are `write` effects. */
export function createCalendarTools(store: PersonalStore | null): ToolDefinition[] {
  const create: ToolDefinition<z.output<typeof eventCreateSchema>> = {
    ...common,
    name: "create_event",
    description:
      "Put an event in the user's calendar. Times are ISO-8601 with Z or an offset (stored in UTC); an all-day event gives dates (all_day: true). Returns its event_id.",
    parameters: eventCreateSchema,
    effects: ["write"],
    taints: false,
    execute: (args, context) =>
      withPersonalStore(store, async ({ runner, generateId }) => {
        const event = await createCalendarEvent(runner, generateId, context.userId, args);
        return {
          ok: true,
          output: `Created event "${event.title}" from ${event.starts_at} to ${event.ends_at}. event_id: ${event.id}`,
          data: { event_id: event.id },
        };
      }),
  };

  const list: ToolDefinition<z.output<typeof windowSchema>> = {
    ...common,
    name: "list_events",
    description: "List the user's calendar events that overlap a time window, earliest first (times in UTC).",
    parameters: windowSchema,
    effects: ["read"],
    taints: true,
    execute: (args, context) =>
      withPersonalStore(store, async ({ runner }) => {
        const events = await listCalendarEvents(runner, context.userId, args);
        return { ok: true, output: recordLines("events", events), data: { count: events.length } };
      }),
    describeCall: (args) => `calendar events from ${args.from} to ${args.to}`,
  };

  const update: ToolDefinition<z.output<typeof eventPatchSchema> & { event_id: string }> = {
    ...common,
    name: "update_event",
    description: "Change an event: only the fields given change; a new starts_at without ends_at keeps its length.",
    parameters: eventPatchSchema.extend({ event_id: eventId }),
    effects: ["write"],
    taints: false,
    execute: ({ event_id, ...patch }, context) =>
      withPersonalStore(store, async ({ runner }) => {
        const event = await updateCalendarEvent(runner, context.userId, event_id, patch);
        return {
          ok: true,
          output: `Updated event "${event.title}" (${event.starts_at} to ${event.ends_at}). event_id: ${event.id}`,
          data: { event_id: event.id },
        };
      }),
  };

  const remove: ToolDefinition<{ event_id: string }> = {
    ...common,
    name: "delete_event",
    description: "Delete a calendar event.",
    parameters: z.object({ event_id: eventId }),
    effects: ["write"],
    taints: false,
    execute: (args, context) =>
      withPersonalStore(store, async ({ runner }) => {
        await deleteCalendarEvent(runner, context.userId, args.event_id);
        return { ok: true, output: `Deleted event ${args.event_id}.` };
      }),
  };

  return [create, list, update, remove];
}
