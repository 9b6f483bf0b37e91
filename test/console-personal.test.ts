// The console's personal-data pages in a real browser against a real API, worker, Postgres and Redis:
// notes (create, search, edit, delete), tasks (add, complete, filter), the calendar's week view (an
// event added in the page, one a run created), and memories (remember, search, forget).
import type { Page } from "playwright-core";
import { scenarioInput } from "@agentq/core/testing";
import { beforeAll, describe, expect, it } from "vitest";
import { saveScreenshot } from "./support/browser.ts";
import { useConsoleSession } from "./support/console-session.ts";
import type { TestStack } from "./support/test-stack.ts";

const session = useConsoleSession();
let stack: TestStack;

beforeAll(() => {
  stack = session.stack;
});

async function navigate(page: Page, name: string): Promise<void> {
  await page.getByRole("navigation", { name: "Main" }).getByRole("link", { name }).click();
}

/** `YYYY-MM-DD` of a local date in the browser (the test and the browser share the machine's zone). */
function localDate(date: Date): string {
  return `${date.getFullYear()}-${String(date.getMonth() + 1).padStart(2, "0")}-${String(date.getDate()).padStart(2, "0")}`;
}

describe("personal data pages", () => {
  it("notes: creates, searches, edits and deletes a note; note text is shown as text", async () => {
    await stack.request("POST", "/api/notes", { body: { title: "Tax papers", content: "in the blue folder" } });
    const page = await session.open();
    await navigate(page, "Notes");
    const form = page.getByRole("form", { name: "New note" });
    await form.getByLabel("Title").fill("Trip ideas");
    await form.getByLabel("Content").fill("<img src=x onerror=alert(1)> Lisbon in spring");
    await form.getByLabel("Tags").fill("travel, ideas");
    await form.getByRole("button", { name: "Create note" }).click();
    const list = page.getByRole("list", { name: "Your notes" });
    await list.getByText("Trip ideas").waitFor();
    await list.getByText("<img src=x onerror=alert(1)> Lisbon in spring").waitFor();
    await list.getByText("Tax papers").waitFor();

    await page.getByLabel("Search notes").fill("lisbon");
    await list.getByText("Tax papers").waitFor({ state: "detached" });
    await list.getByText("Trip ideas").waitFor();
    await page.getByLabel("Search notes").fill("");
    await list.getByText("Tax papers").waitFor();
    await saveScreenshot(page, "personal-notes");

    await list.getByRole("button", { name: "Edit Trip ideas" }).click();
    const edit = page.getByRole("form", { name: "Edit note Trip ideas" });
    await edit.getByLabel("Title").fill("Trip ideas 2027");
    await edit.getByRole("button", { name: "Save note" }).click();
    await list.getByText("Trip ideas 2027").waitFor();
    const stored = (await stack.request("GET", "/api/notes?query=2027")).body.notes;
    expect(stored).toHaveLength(1);
    expect(stored[0]).toMatchObject({ title: "Trip ideas 2027", tags: ["travel", "ideas"] });

    await list.getByRole("button", { name: "Delete Trip ideas 2027" }).click();
    await list.getByText("Trip ideas 2027").waitFor({ state: "detached" });
    expect((await stack.request("GET", "/api/notes?query=2027")).body.notes).toEqual([]);
  });

  it("tasks: adds a task with a due time, marks it done, and finds it under Done", async () => {
    const page = await session.open();
    await navigate(page, "Tasks");
    const form = page.getByRole("form", { name: "New task" });
    await form.getByLabel("Task").fill("Call the plumber");
    await form.getByLabel("Due").fill("2026-12-18T09:30");
    await form.getByRole("button", { name: "Add task" }).click();
    const list = page.getByRole("list", { name: "Your tasks" });
    await list.getByText("Call the plumber").waitFor();
    const [task] = (await stack.request("GET", "/api/tasks?status=open")).body.tasks.filter((listed: any) => listed.title === "Call the plumber");
    expect(task.due_at).toBe(new Date("2026-12-18T09:30").toISOString());

    await list.getByRole("button", { name: "Mark done Call the plumber" }).click();
    await list.getByText("Call the plumber").waitFor({ state: "detached" });
    expect((await stack.request("GET", `/api/tasks/${task.id}`)).body.status).toBe("done");
    await page.getByLabel("Show").selectOption("done");
    await list.getByText("Call the plumber").waitFor();
    await saveScreenshot(page, "personal-tasks");
  });

  it("calendar: the week view shows an event added in the page and one a run created, and deletes one", async () => {
    const today = new Date();
    const chatId = await stack.createChat();
    const start = new Date(today.getFullYear(), today.getMonth(), today.getDate(), 14, 0);
    const runId = await stack.run(chatId, {
      input: scenarioInput([
        { tool: "create_event", args: { title: "Dentist", starts_at: start.toISOString(), location: "Harbour Street" } },
        { text: "booked" },
      ]),
    });
    expect((await stack.waitForRun(runId)).status).toBe("completed");

    const page = await session.open();
    await navigate(page, "Calendar");
    const form = page.getByRole("form", { name: "New event" });
    await form.getByLabel("Event").fill("Team offsite");
    await form.getByLabel("Date").fill(localDate(today));
    await form.getByLabel("All day").check();
    await form.getByRole("button", { name: "Add event" }).click();

    const todayLabel = today.toLocaleDateString("en-US", { weekday: "short", day: "numeric", month: "short" });
    const day = page.getByRole("list", { name: "Week" }).getByRole("listitem", { name: todayLabel, exact: true });
    await day.getByText("Team offsite").waitFor();
    await day.getByText("Dentist").waitFor();
    await day.getByText("Harbour Street").waitFor();
    await saveScreenshot(page, "personal-calendar");
    const [offsite] = (await stack.request("GET", "/api/calendar/events")).body.events.filter((event: any) => event.title === "Team offsite");
    expect(offsite).toMatchObject({ all_day: true, starts_at: `${localDate(today)}T00:00:00.000Z` });

    await day.getByRole("button", { name: "Delete Dentist" }).click();
    await day.getByText("Dentist").waitFor({ state: "detached" });
    expect((await stack.request("GET", "/api/calendar/events")).body.events.map((event: any) => event.title)).toEqual(["Team offsite"]);

    await page.getByRole("button", { name: "Next week" }).click();
    await page.getByRole("list", { name: "Week" }).waitFor();
    expect(await page.getByText("Team offsite").count()).toBe(0);
  });

  it("memories: remembers, searches by relevance, forgets", async () => {
    await stack.request("POST", "/api/memories", { body: { content: "Prefers window seats on flights" } });
    const page = await session.open();
    await navigate(page, "Memories");
    const form = page.getByRole("form", { name: "New memory" });
    await form.getByLabel("Remember").fill("The garage code is 4711");
    await form.getByRole("button", { name: "Remember" }).click();
    const list = page.getByRole("list", { name: "Your memories" });
    await list.getByText("The garage code is 4711").waitFor();
    await list.getByText("Prefers window seats on flights").waitFor();

    await page.getByLabel("Search memories").fill("garag");
    await list.getByText("Prefers window seats on flights").waitFor({ state: "detached" });
    await list.getByText("The garage code is 4711").waitFor();
    await saveScreenshot(page, "personal-memories");

    await list.getByRole("button", { name: "Forget The garage code is 4711" }).click();
    await page.getByText("Nothing matches").waitFor();
    expect((await stack.request("GET", "/api/memories")).body.memories.map((memory: any) => memory.content)).toEqual(["Prefers window seats on flights"]);
  });
});
