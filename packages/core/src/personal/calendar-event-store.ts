import { z } from "zod";
import { NotFoundError } from "../errors/agentq-error.ts";
import type { GenerateId } from "../ids.ts";
import { queryParsed, type SqlRunner } from "../store/sql-pool.ts";
import { deleteOwnRow, invalidField, isoUtc, titleField, updateOwnRow } from "./personal-fields.ts";

/** An event as the API returns it (API.md "Personal data"): times in UTC; an all-day event from midnight to midnight UTC. */
export interface CalendarEventView {
  id: string;
  title: string;
  starts_at: string;
  ends_at: string;
  all_day: boolean;
  location: string | null;
  description: string | null;
  attendees: string[];
}

const DAY_MS = 24 * 60 * 60 * 1000;
const HOUR_MS = 60 * 60 * 1000;

/** A time with Z or an offset, or a date alone (`2026-12-14`: all-day events, and windows). */
export const timeOrDateField = () =>
  z.union([z.iso.datetime({ offset: true }), z.iso.date()], {
    message: "must be an ISO-8601 time with Z or an offset (2026-12-14T09:00:00+01:00) or a date (2026-12-14)",
  });

const attendeesField = () => z.array(z.string().trim().min(1).max(320)).max(100);

export const eventCreateSchema = z.object({
  title: titleField().describe("What the event is."),
  starts_at: timeOrDateField().describe("Start: an ISO-8601 time with Z or an offset; for an all-day event, its first date (2026-12-14)."),
  ends_at: timeOrDateField()
    .optional()
    .describe("End (default: one hour after the start). For an all-day event the date after its last day, as in iCalendar (default: one day)."),
  all_day: z.boolean().default(false).describe("An all-day event: starts_at and ends_at are dates."),
  location: z.string().trim().max(500).nullable().default(null),
  description: z.string().max(20_000).nullable().default(null),
  attendees: attendeesField().default([]).describe("Who attends: email addresses or names."),
});

export const eventPatchSchema = z.object({
  title: titleField().optional(),
  starts_at: timeOrDateField().optional().describe("A new start; without ends_at the event keeps its length."),
  ends_at: timeOrDateField().optional(),
  all_day: z.boolean().optional(),
  location: z.string().trim().max(500).nullable().optional(),
  description: z.string().max(20_000).nullable().optional(),
  attendees: attendeesField().optional().describe("Replaces the attendees."),
});

export const eventWindowSchema = z.object({
  from: timeOrDateField().optional().describe("Events that end after this time (a date: its midnight UTC)."),
  to: timeOrDateField().optional().describe("Events that start before this time."),
});

/** The most events one list answers, earliest first. */
export const EVENT_LIST_LIMIT = 1000;

const COLUMNS = "id, title, starts_at, ends_at, all_day, location, description, COALESCE(attendees, '{}') AS attendees";
const eventRow = z.object({
  id: z.string(),
  title: z.string(),
  starts_at: z.date(),
  ends_at: z.date(),
  all_day: z.boolean(),
  location: z.string().nullable(),
  description: z.string().nullable(),
  attendees: z.array(z.string()),
});

export type CalendarEventRow = z.output<typeof eventRow>;

function toEventView(row: CalendarEventRow): CalendarEventView {
  return { ...row, starts_at: isoUtc(row.starts_at), ends_at: isoUtc(row.ends_at) };
}

const isDateOnly = (value: string) => /^\d{4}-\d{2}-\d{2}$/.test(value);

/** Midnight UTC of the date a value names: a date alone, or the date part of a time as written (its own offset). */
function midnightOf(value: string): Date {
  return new Date(`${value.slice(0, 10)}T00:00:00.000Z`);
}

/** A window bound: a time as given, a date its midnight UTC. */
export function windowBound(value: string): Date {
  return isDateOnly(value) ? midnightOf(value) : new Date(value);
}

/**
 * The UTC start and end of an event. All-day: midnight of the first date to midnight after the last
 * (an end on or before the start date is one day). Timed: the times as given, the end by default one hour on.
 */
export function resolveEventTimes(input: { starts_at: string; ends_at: string | undefined; all_day: boolean; lengthMs?: number }): { start: Date; end: Date } {
  if (input.all_day) {
    const start = midnightOf(input.starts_at);
    const fallback = new Date(start.getTime() + Math.max(DAY_MS, Math.round((input.lengthMs ?? DAY_MS) / DAY_MS) * DAY_MS));
    const given = input.ends_at === undefined ? undefined : midnightOf(input.ends_at);
    return { start, end: given === undefined || given <= start ? fallback : given };
  }
  if (isDateOnly(input.starts_at)) throw invalidField("starts_at", "a date alone is for an all-day event (all_day: true); give a time with Z or an offset");
  const start = new Date(input.starts_at);
  if (input.ends_at === undefined) return { start, end: new Date(start.getTime() + (input.lengthMs ?? HOUR_MS)) };
  if (isDateOnly(input.ends_at)) throw invalidField("ends_at", "a date alone is for an all-day event (all_day: true); give a time with Z or an offset");
  const end = new Date(input.ends_at);
  if (end < start) throw invalidField("ends_at", "must not be before starts_at");
  return { start, end };
}

export async function createCalendarEvent(
  runner: SqlRunner,
  generateId: GenerateId,
  userId: string,
  input: z.output<typeof eventCreateSchema>,
): Promise<CalendarEventView> {
  const { start, end } = resolveEventTimes({ starts_at: input.starts_at, ends_at: input.ends_at, all_day: input.all_day });
  const [row] = await queryParsed(
    runner,
    `INSERT INTO calendar_events (id, user_id, title, starts_at, ends_at, all_day, location, description, attendees)
     VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9) RETURNING ${COLUMNS}`,
    [generateId("event"), userId, input.title, start, end, input.all_day, input.location || null, input.description, input.attendees],
    eventRow,
  );
  return toEventView(row!);
}

/** The caller's events that overlap the window (start before `to`, end after `from`), earliest first. */
export async function listCalendarEventRows(runner: SqlRunner, userId: string, window: { from?: Date; to?: Date }): Promise<CalendarEventRow[]> {
  return queryParsed(
    runner,
    `SELECT ${COLUMNS} FROM calendar_events WHERE user_id = $1
       AND ($2::timestamptz IS NULL OR ends_at > $2 OR (ends_at = starts_at AND starts_at >= $2))
       AND ($3::timestamptz IS NULL OR starts_at < $3)
     ORDER BY starts_at, id LIMIT ${EVENT_LIST_LIMIT}`,
    [userId, window.from ?? null, window.to ?? null],
    eventRow,
  );
}

export async function listCalendarEvents(runner: SqlRunner, userId: string, window: z.output<typeof eventWindowSchema>): Promise<CalendarEventView[]> {
  const from = window.from === undefined ? undefined : windowBound(window.from);
  const to = window.to === undefined ? undefined : windowBound(window.to);
  if (from !== undefined && to !== undefined && to < from) throw invalidField("to", "must not be before from");
  const rows = await listCalendarEventRows(runner, userId, { ...(from ? { from } : {}), ...(to ? { to } : {}) });
  return rows.map(toEventView);
}

async function selectOwnEvent(runner: SqlRunner, userId: string, eventId: string): Promise<CalendarEventRow> {
  const [row] = await queryParsed(runner, `SELECT ${COLUMNS} FROM calendar_events WHERE id = $1 AND user_id = $2`, [eventId, userId], eventRow);
  if (!row) throw new NotFoundError("event");
  return row;
}

export async function getCalendarEvent(runner: SqlRunner, userId: string, eventId: string): Promise<CalendarEventView> {
  return toEventView(await selectOwnEvent(runner, userId, eventId));
}

/** Changes the named fields; a new start without an end keeps the event's length. */
export async function updateCalendarEvent(
  runner: SqlRunner,
  userId: string,
  eventId: string,
  patch: z.output<typeof eventPatchSchema>,
): Promise<CalendarEventView> {
  const current = await selectOwnEvent(runner, userId, eventId);
  const timesChange = patch.starts_at !== undefined || patch.ends_at !== undefined || patch.all_day !== undefined;
  let times: { start: Date; end: Date } | undefined;
  if (timesChange) {
    const allDay = patch.all_day ?? current.all_day;
    const currentStart = allDay ? current.starts_at.toISOString().slice(0, 10) : current.starts_at.toISOString();
    const currentEnd = allDay ? current.ends_at.toISOString().slice(0, 10) : current.ends_at.toISOString();
    times = resolveEventTimes({
      starts_at: patch.starts_at ?? currentStart,
      ends_at: patch.ends_at ?? (patch.starts_at === undefined ? currentEnd : undefined),
      all_day: allDay,
      lengthMs: current.ends_at.getTime() - current.starts_at.getTime(),
    });
  }
  const row = await updateOwnRow(runner, {
    table: "calendar_events",
    resource: "event",
    columns: COLUMNS,
    userId,
    id: eventId,
    changes: {
      title: patch.title,
      starts_at: times?.start,
      ends_at: times?.end,
      all_day: patch.all_day,
      location: patch.location === undefined ? undefined : patch.location || null,
      description: patch.description,
      attendees: patch.attendees,
    },
    row: eventRow,
  });
  return toEventView(row);
}

export function deleteCalendarEvent(runner: SqlRunner, userId: string, eventId: string): Promise<void> {
  return deleteOwnRow(runner, { table: "calendar_events", resource: "event", userId, id: eventId });
}
