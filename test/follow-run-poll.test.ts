// followRun's poll (apps/api/src/realtime/follow-run.ts): pub/sub may drop a message, so a follower
// replays from Postgres every pollMs when nothing arrives live. Events are written here without being
// published, as if their publish had been lost.
import type { OwnedRun, RunEventRecord } from "@agentq/core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { followRun } from "../apps/api/src/realtime/follow-run.ts";
import { manualRunHub } from "../apps/api/src/realtime/manual-run-hub.ts";
import { requestJson, startTestApi, type TestApi } from "./support/test-api.ts";

let api: TestApi;
let run: OwnedRun;

beforeAll(async () => {
  api = await startTestApi();
  const me = await requestJson(`${api.url}/api/me`, { token: api.adminToken });
  const chat = await requestJson(`${api.url}/api/chats`, { token: api.adminToken, body: { title: "poll" } });
  // No worker runs here: the run stays queued, with the events of its creation.
  const started = await requestJson(`${api.url}/api/chats/${chat.body.id}/runs`, { token: api.adminToken, body: { input: "hi" } });
  expect(started.status).toBe(202);
  run = { id: started.body.id, userId: me.body.id };
});

afterAll(async () => {
  await api?.close();
});

/** Stores the run's next event (what a worker's commit does) and returns it. */
async function storeEvent(seq: number): Promise<RunEventRecord> {
  const stored = await api.prisma.runEvent.create({ data: { runId: run.id, seq, type: "round.started", data: { round: seq } } });
  return { seq, type: "round.started", at: stored.createdAt.toISOString(), data: { round: seq } };
}

describe("followRun's poll", () => {
  it("replays from Postgres every pollMs while nothing arrives live, again after each poll and after a live message, and not once stopped", async () => {
    const { hub, publish } = manualRunHub();
    const delivered: number[] = [];
    const stored = await api.prisma.runEvent.findMany({ where: { runId: run.id }, select: { seq: true }, orderBy: { seq: "asc" } });
    const last = stored.at(-1)!.seq;
    const follower = await followRun({
      prisma: api.prisma,
      hub,
      runId: run.id,
      userId: run.userId,
      after: 0,
      pollMs: 100,
      onEvent: (event) => delivered.push(event.seq),
      onEnd: () => undefined,
    });
    expect(delivered).toEqual(stored.map((event) => event.seq));

    // Two unpublished events in turn: the first poll finds one, the poll after it the other.
    await storeEvent(last + 1);
    await expect.poll(() => delivered.at(-1), { timeout: 2000 }).toBe(last + 1);
    await storeEvent(last + 2);
    await expect.poll(() => delivered.at(-1), { timeout: 2000 }).toBe(last + 2);

    // A live message pushes the poll back; the poll still comes for what is stored after it.
    publish({ kind: "events", run_id: run.id, events: [await storeEvent(last + 3)] });
    await expect.poll(() => delivered.at(-1), { timeout: 2000 }).toBe(last + 3);
    await storeEvent(last + 4);
    await expect.poll(() => delivered.at(-1), { timeout: 2000 }).toBe(last + 4);

    follower.stop();
    await storeEvent(last + 5);
    await new Promise((resolve) => setTimeout(resolve, 400));
    expect(delivered.at(-1)).toBe(last + 4);
  });
});
