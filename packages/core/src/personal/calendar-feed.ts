import type { ICalAttendeeData } from "ical-generator";
import type { SqlRunner } from "../store/sql-pool.ts";
import { listCalendarEventRows } from "./calendar-event-store.ts";

/** How far back the feed reaches: calendar apps re-fetch it often, and old events stay where they were. */
const FEED_PAST_DAYS = 366;

/** `Ada <ada@example.com>` or `ada@example.com` as an ATTENDEE; a name alone has no address to give (it stays in the event's JSON only). */
function attendeeOf(text: string): ICalAttendeeData | undefined {
  const named = /^(.*?)\s*<([^<>\s]+@[^<>\s]+)>$/.exec(text);
  if (named) return { email: named[2]!, ...(named[1] ? { name: named[1].replace(/^"|"$/g, "") } : {}) };
  return /^[^\s@]+@[^\s@]+$/.test(text) ? { email: text } : undefined;
}

/**
 * The user's calendar as an iCalendar feed (RFC 5545): every event from a year ago on, times in UTC,
 * all-day events as DATE values. `host` names the deployment in the UIDs (`<event id>@<host>`).
 * ical-generator (and luxon under it) is loaded at the first feed: the processes that never serve one
 * do not keep its modules in their heap.
 */
export async function renderCalendarFeed(runner: SqlRunner, input: { userId: string; userName: string; host: string; now: Date }): Promise<string> {
  const rows = await listCalendarEventRows(runner, input.userId, { from: new Date(input.now.getTime() - FEED_PAST_DAYS * 24 * 60 * 60 * 1000) });
  const { default: ical } = await import("ical-generator");
  const calendar = ical({ name: `agentq: ${input.userName}`, prodId: { company: "agentq", product: "calendar", language: "EN" }, ttl: 15 * 60 });
  for (const row of rows) {
    calendar.createEvent({
      id: `${row.id}@${input.host}`,
      summary: row.title,
      start: row.starts_at,
      end: row.ends_at,
      allDay: row.all_day,
      timezone: row.all_day ? null : "UTC",
      stamp: input.now,
      location: row.location,
      description: row.description,
      attendees: row.attendees.map(attendeeOf).filter((attendee) => attendee !== undefined),
    });
  }
  return calendar.toString();
}
