// Personal data over REST (issue 15, API.md "Personal data"): notes, tasks, calendar events and the
// iCalendar feed, memories. Each kind: create, list with its filters, read, change only what a PATCH
// names, delete; another user's is 404 and invisible; bad input is 400 naming the field.
import ICAL from "ical.js";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startTestStack, type TestStack } from "./support/test-stack.ts";

describe("personal data over REST", () => {
  let stack: TestStack;
  let other: { id: string; token: string };
  beforeAll(async () => {
    stack = await startTestStack({ workers: 0 });
    other = await stack.createUser("personal-other");
  }, 60_000);
  afterAll(async () => {
    await stack?.close();
  });

  const expectBadField = (result: { status: number; body: any }, field: string) => {
    expect(result.status).toBe(400);
    expect(result.body.error.code).toBe("invalid_request");
    expect(result.body.error.details.field).toBe(field);
  };

  /** Someone else's resource: every route on it answers 404, exactly like a missing one. */
  const expectHiddenFromOther = async (path: string, patch: Record<string, unknown>) => {
    for (const [method, body] of [
      ["GET", undefined],
      ["PATCH", patch],
      ["DELETE", undefined],
    ] as const) {
      const result = await stack.request(method, path, { token: other.token, ...(body ? { body } : {}) });
      expect(result.status, `${method} ${path} by another user`).toBe(404);
      expect(result.body.error.code).toBe("not_found");
    }
  };

  it("notes: create, search title and content, filter by tag, read, patch only named fields, delete", async () => {
    const created = await stack.request("POST", "/api/notes", {
      body: { title: "Groceries", content: "oat milk, Coffee beans", tags: ["home", "home", "shopping"] },
    });
    expect(created.status).toBe(201);
    expect(created.body).toMatchObject({ title: "Groceries", content: "oat milk, Coffee beans", tags: ["home", "shopping"] });
    const id = created.body.id as string;
    const second = (await stack.request("POST", "/api/notes", { body: { title: "Coffee with Ada", tags: ["work"] } })).body;
    expect(second).toMatchObject({ content: "", tags: ["work"] });
    await stack.request("POST", "/api/notes", { body: { title: "100% done", content: "x" } });

    const titles = async (query: string) => ((await stack.request("GET", `/api/notes${query}`)).body.notes as any[]).map((note) => note.title).sort();
    expect(await titles("?query=coffee")).toEqual(["Coffee with Ada", "Groceries"]);
    expect(await titles("?query=OAT")).toEqual(["Groceries"]);
    expect(await titles("?tag=work")).toEqual(["Coffee with Ada"]);
    expect(await titles("?query=coffee&tag=home")).toEqual(["Groceries"]);
    // LIKE wildcards in the query match themselves.
    expect(await titles(`?query=${encodeURIComponent("%")}`)).toEqual(["100% done"]);
    expect(await titles("?query=nothing-like-this")).toEqual([]);

    expect((await stack.request("GET", `/api/notes/${id}`)).body).toEqual(created.body);
    const patched = await stack.request("PATCH", `/api/notes/${id}`, { body: { content: "oat milk" } });
    expect(patched.status).toBe(200);
    expect(patched.body).toMatchObject({ id, title: "Groceries", content: "oat milk", tags: ["home", "shopping"], created_at: created.body.created_at });
    expect(Date.parse(patched.body.updated_at)).toBeGreaterThanOrEqual(Date.parse(created.body.updated_at));

    await expectHiddenFromOther(`/api/notes/${id}`, { title: "mine now" });
    expect((await stack.request("GET", "/api/notes", { token: other.token })).body.notes).toEqual([]);
    expect((await stack.request("GET", `/api/notes/${id}`)).body.title).toBe("Groceries");

    expectBadField(await stack.request("POST", "/api/notes", { body: { title: "" } }), "title");
    expectBadField(await stack.request("POST", "/api/notes", { body: { title: "t", tags: "home" } }), "tags");
    expectBadField(await stack.request("PATCH", `/api/notes/${id}`, { body: { content: 5 } }), "content");

    expect((await stack.request("DELETE", `/api/notes/${id}`)).status).toBe(204);
    expect((await stack.request("GET", `/api/notes/${id}`)).status).toBe(404);
    expect((await stack.request("DELETE", `/api/notes/${id}`)).status).toBe(404);
  });

  it("tasks: status and due filters, completion sets completed_at once, reopening clears it", async () => {
    const dueSoon = (await stack.request("POST", "/api/tasks", { body: { title: "File taxes", due_at: "2026-12-20T17:00:00+01:00" } })).body;
    expect(dueSoon).toMatchObject({ title: "File taxes", notes: "", status: "open", due_at: "2026-12-20T16:00:00.000Z", completed_at: null });
    const dueLater = (await stack.request("POST", "/api/tasks", { body: { title: "Renew passport", notes: "photos first", due_at: "2027-02-01T00:00:00Z" } }))
      .body;
    const undated = (await stack.request("POST", "/api/tasks", { body: { title: "Read a book" } })).body;
    expect(undated.due_at).toBeNull();

    const ids = async (query: string) => ((await stack.request("GET", `/api/tasks${query}`)).body.tasks as any[]).map((task) => task.id);
    expect(await ids("")).toEqual([dueSoon.id, dueLater.id, undated.id]);
    expect(await ids(`?due_before=${encodeURIComponent("2027-01-01T00:00:00Z")}`)).toEqual([dueSoon.id]);

    const done = await stack.request("PATCH", `/api/tasks/${dueSoon.id}`, { body: { status: "done" } });
    expect(done.status).toBe(200);
    expect(done.body).toMatchObject({ status: "done", title: "File taxes", due_at: dueSoon.due_at });
    expect(done.body.completed_at).not.toBeNull();
    const again = await stack.request("PATCH", `/api/tasks/${dueSoon.id}`, { body: { status: "done", notes: "paid" } });
    expect(again.body).toMatchObject({ completed_at: done.body.completed_at, notes: "paid" });
    expect(await ids("?status=done")).toEqual([dueSoon.id]);
    expect(await ids("?status=open")).toEqual([dueLater.id, undated.id]);

    const reopened = await stack.request("PATCH", `/api/tasks/${dueSoon.id}`, { body: { status: "open", due_at: null } });
    expect(reopened.body).toMatchObject({ status: "open", completed_at: null, due_at: null, notes: "paid" });
    expect((await stack.request("GET", `/api/tasks/${dueLater.id}`)).body).toEqual(dueLater);

    await expectHiddenFromOther(`/api/tasks/${dueLater.id}`, { status: "done" });
    expect((await stack.request("GET", "/api/tasks", { token: other.token })).body.tasks).toEqual([]);
    expect((await stack.request("GET", `/api/tasks/${dueLater.id}`)).body.status).toBe("open");

    expectBadField(await stack.request("POST", "/api/tasks", { body: { title: "x", due_at: "tomorrow" } }), "due_at");
    expectBadField(await stack.request("POST", "/api/tasks", { body: { title: "x", due_at: "2026-12-20T17:00:00" } }), "due_at");
    expectBadField(await stack.request("GET", "/api/tasks?status=pending"), "status");
    expectBadField(await stack.request("GET", "/api/tasks?due_before=soon"), "due_before");
    expectBadField(await stack.request("PATCH", `/api/tasks/${dueLater.id}`, { body: { status: "finished" } }), "status");

    expect((await stack.request("DELETE", `/api/tasks/${undated.id}`)).status).toBe(204);
    expect(await ids("")).not.toContain(undated.id);
  });

  it("calendar: offsets stored as UTC, all-day dates, overlap windows, patches, and a feed that parses back", async () => {
    const meeting = await stack.request("POST", "/api/calendar/events", {
      body: {
        title: "Planning",
        starts_at: "2026-12-14T10:00:00+02:00",
        ends_at: "2026-12-14T11:30:00+02:00",
        location: "Room 4",
        description: "Quarterly plan",
        attendees: ["ada@example.com", "Grace Hopper <grace@example.com>", "Linus"],
      },
    });
    expect(meeting.status).toBe(201);
    expect(meeting.body).toMatchObject({
      starts_at: "2026-12-14T08:00:00.000Z",
      ends_at: "2026-12-14T09:30:00.000Z",
      all_day: false,
      location: "Room 4",
      attendees: ["ada@example.com", "Grace Hopper <grace@example.com>", "Linus"],
    });
    const holiday = (
      await stack.request("POST", "/api/calendar/events", { body: { title: "Holiday", starts_at: "2026-12-24", ends_at: "2026-12-27", all_day: true } })
    ).body;
    expect(holiday).toMatchObject({ starts_at: "2026-12-24T00:00:00.000Z", ends_at: "2026-12-27T00:00:00.000Z", all_day: true, location: null, attendees: [] });
    const oneDay = (await stack.request("POST", "/api/calendar/events", { body: { title: "Birthday", starts_at: "2026-12-16", all_day: true } })).body;
    expect(oneDay.ends_at).toBe("2026-12-17T00:00:00.000Z");
    const call = (await stack.request("POST", "/api/calendar/events", { body: { title: "Call", starts_at: "2026-12-15T09:00:00Z" } })).body;
    expect(call.ends_at).toBe("2026-12-15T10:00:00.000Z");

    const window = async (from: string, to: string) =>
      ((await stack.request("GET", `/api/calendar/events?from=${encodeURIComponent(from)}&to=${encodeURIComponent(to)}`)).body.events as any[]).map(
        (event) => event.title,
      );
    expect(await window("2026-12-14", "2026-12-21")).toEqual(["Planning", "Call", "Birthday"]);
    // Overlap, not containment: a window inside the meeting, one ending as it starts, one starting as it ends.
    expect(await window("2026-12-14T09:00:00+01:00", "2026-12-14T09:10:00+01:00")).toEqual(["Planning"]);
    expect(await window("2026-12-14T07:00:00Z", "2026-12-14T08:00:00Z")).toEqual([]);
    expect(await window("2026-12-14T09:30:00Z", "2026-12-14T12:00:00Z")).toEqual([]);
    expect(await window("2026-12-26T12:00:00Z", "2026-12-26T13:00:00Z")).toEqual(["Holiday"]);

    // Moving the start keeps the length; other fields stay.
    const moved = await stack.request("PATCH", `/api/calendar/events/${meeting.body.id}`, { body: { starts_at: "2026-12-15T14:00:00Z", location: null } });
    expect(moved.status).toBe(200);
    expect(moved.body).toMatchObject({
      title: "Planning",
      starts_at: "2026-12-15T14:00:00.000Z",
      ends_at: "2026-12-15T15:30:00.000Z",
      location: null,
      description: "Quarterly plan",
    });
    expect((await stack.request("GET", `/api/calendar/events/${meeting.body.id}`)).body).toEqual(moved.body);

    await expectHiddenFromOther(`/api/calendar/events/${holiday.id}`, { title: "mine" });
    expect((await stack.request("GET", "/api/calendar/events", { token: other.token })).body.events).toEqual([]);

    expectBadField(await stack.request("POST", "/api/calendar/events", { body: { title: "x", starts_at: "2026-12-14 10:00" } }), "starts_at");
    expectBadField(await stack.request("POST", "/api/calendar/events", { body: { title: "x", starts_at: "2026-12-14" } }), "starts_at");
    expectBadField(
      await stack.request("POST", "/api/calendar/events", { body: { title: "x", starts_at: "2026-12-14T10:00:00Z", ends_at: "2026-12-14T09:00:00Z" } }),
      "ends_at",
    );
    expectBadField(await stack.request("GET", "/api/calendar/events?from=yesterday"), "from");
    expectBadField(await stack.request("GET", "/api/calendar/events?from=2026-12-20&to=2026-12-10"), "to");
    expectBadField(await stack.request("PATCH", `/api/calendar/events/${call.id}`, { body: { ends_at: "2026-12-15T08:00:00Z" } }), "ends_at");

    // The feed, with the token in the URL as a calendar app subscribes; parsed back with ical.js.
    const token = stack.api.adminToken;
    const response = await fetch(`${stack.url}/api/calendar.ics?token=${encodeURIComponent(token)}`);
    expect(response.status).toBe(200);
    expect(response.headers.get("content-type")).toMatch(/^text\/calendar/);
    const calendar = new ICAL.Component(ICAL.parse(await response.text()));
    const events = new Map(calendar.getAllSubcomponents("vevent").map((component) => [component.getFirstPropertyValue("summary"), new ICAL.Event(component)]));
    expect([...events.keys()].sort()).toEqual(["Birthday", "Call", "Holiday", "Planning"]);
    const planning = events.get("Planning")!;
    expect(planning.startDate.toJSDate().toISOString()).toBe("2026-12-15T14:00:00.000Z");
    expect(planning.endDate.toJSDate().toISOString()).toBe("2026-12-15T15:30:00.000Z");
    expect(planning.description).toBe("Quarterly plan");
    expect(planning.uid).toBe(`${meeting.body.id}@agentq`);
    expect(planning.attendees.map((attendee) => String(attendee.getFirstValue()).toLowerCase()).sort()).toEqual([
      "mailto:ada@example.com",
      "mailto:grace@example.com",
    ]);
    const holidayEvent = events.get("Holiday")!;
    expect(holidayEvent.startDate.isDate).toBe(true);
    expect(holidayEvent.startDate.toString()).toBe("2026-12-24");
    expect(holidayEvent.endDate.toString()).toBe("2026-12-27");
    // Another user's feed holds none of these; a bad token is refused; the token is not accepted where no route declares it.
    const otherFeed = await fetch(`${stack.url}/api/calendar.ics?token=${encodeURIComponent(other.token)}`);
    expect(new ICAL.Component(ICAL.parse(await otherFeed.text())).getAllSubcomponents("vevent")).toEqual([]);
    expect((await fetch(`${stack.url}/api/calendar.ics?token=aq_not_a_token`)).status).toBe(401);
    expect((await fetch(`${stack.url}/api/calendar/events?token=${encodeURIComponent(token)}`)).status).toBe(401);

    expect((await stack.request("DELETE", `/api/calendar/events/${call.id}`)).status).toBe(204);
    expect(await window("2026-12-15", "2026-12-16")).toEqual(["Planning"]);
  });

  it("memories: full-text ranking, the trigram fallback for misspelt and short queries, isolation, delete", async () => {
    const remember = async (content: string, tags: string[] = [], token?: string) =>
      (await stack.request("POST", "/api/memories", { token, body: { content, tags } })).body;
    const wifi = await remember("The office wifi password is hunter2", ["office"]);
    expect(wifi).toMatchObject({ content: "The office wifi password is hunter2", tags: ["office"] });
    const both = await remember("Ada prefers tea; the office kitchen has tea and coffee, tea on the left shelf");
    const coffee = await remember("Grace drinks coffee every morning");
    await remember("My own wifi password is secret-of-other", [], other.token);

    const recall = async (query: string, token?: string) =>
      ((await stack.request("GET", `/api/memories?query=${encodeURIComponent(query)}`, { token })).body.memories as any[]).map((memory) => memory.id);
    // Ranked: the memory where "tea" weighs most comes first; stemming matches "drinking".
    expect(await recall("tea")).toEqual([both.id]);
    expect((await recall("coffee")).sort()).toEqual([both.id, coffee.id].sort());
    expect(await recall("drinking coffee")).toEqual([coffee.id]);
    expect((await recall("wifi password"))[0]).toBe(wifi.id);
    // Full-text search finds nothing for a misspelling or a prefix: the trigram fallback does.
    expect((await recall("wifi pasword"))[0]).toBe(wifi.id);
    expect((await recall("passw"))[0]).toBe(wifi.id);
    expect(await recall("zzzzqqq")).toEqual([]);
    // Only the caller's memories.
    const otherIds = await recall("wifi password", other.token);
    expect(otherIds).toHaveLength(1);
    expect(otherIds).not.toContain(wifi.id);
    expect((await stack.request("GET", "/api/memories")).body.memories.map((memory: any) => memory.id)).toEqual([coffee.id, both.id, wifi.id]);
    expect((await stack.request("GET", `/api/memories?query=tea&limit=1`)).body.memories).toHaveLength(1);

    expect((await stack.request("DELETE", `/api/memories/${wifi.id}`, { token: other.token })).status).toBe(404);
    expectBadField(await stack.request("POST", "/api/memories", { body: { content: "   " } }), "content");
    expectBadField(await stack.request("GET", "/api/memories?query=tea&limit=0"), "limit");
    expect((await stack.request("DELETE", `/api/memories/${wifi.id}`)).status).toBe(204);
    expect(await recall("wifi password")).toEqual([]);
  });
});
