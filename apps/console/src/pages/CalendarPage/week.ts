import type { CalendarEvent } from "../../api/types.ts";

const DAY_MS = 24 * 60 * 60 * 1000;

/** Local midnight of the Monday of `date`'s week. */
export function startOfWeek(date: Date): Date {
  const start = new Date(date.getFullYear(), date.getMonth(), date.getDate());
  start.setDate(start.getDate() - ((start.getDay() + 6) % 7));
  return start;
}

export function addDays(date: Date, days: number): Date {
  const next = new Date(date);
  next.setDate(next.getDate() + days);
  return next;
}

/** `YYYY-MM-DD` of a local date. */
export function localDate(date: Date): string {
  return `${date.getFullYear()}-${String(date.getMonth() + 1).padStart(2, "0")}-${String(date.getDate()).padStart(2, "0")}`;
}

/**
 * The events shown on one local day: timed events that overlap it (local time), all-day events whose
 * dates cover it (all-day events are dates, the same everywhere, so they are compared as dates).
 */
export function eventsOnDay(events: readonly CalendarEvent[], day: Date): CalendarEvent[] {
  const dayStart = day.getTime();
  const dayEnd = addDays(day, 1).getTime();
  const date = localDate(day);
  return events.filter((event) => {
    if (event.all_day) return event.starts_at.slice(0, 10) <= date && date < event.ends_at.slice(0, 10);
    const start = Date.parse(event.starts_at);
    const end = Date.parse(event.ends_at);
    return start < dayEnd && (end > dayStart || (end === start && start >= dayStart));
  });
}

export function formatClock(iso: string): string {
  return new Date(iso).toLocaleTimeString(undefined, { hour: "2-digit", minute: "2-digit" });
}

export { DAY_MS };
