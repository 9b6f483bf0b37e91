// Personal data (API.md "Personal data"): notes, tasks, calendar events and memories of one user,
// read and written with plain SQL so that the API and the workers' tools share every statement.
export * from "./calendar-event-store.ts";
export { renderCalendarFeed } from "./calendar-feed.ts";
export * from "./memory-store.ts";
export * from "./note-store.ts";
export { idField, isoTimeField, tagsField, titleField } from "./personal-fields.ts";
export * from "./task-store.ts";
