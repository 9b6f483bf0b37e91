import type { LiveWorker, Logger } from "@agentq/core";
import { describe, expect, it } from "vitest";
import { LiveWorkers } from "./live-workers.ts";

const logger = { warn: () => undefined } as unknown as Logger;
const beat = new Date("2026-12-07T20:00:00Z");
const later = new Date("2026-12-07T20:00:10Z");

function liveWorkers(list: () => Promise<LiveWorker[]>, random = () => 0): LiveWorkers {
  return new LiveWorkers({ list, random, refreshMs: 60_000, logger });
}

describe("LiveWorkers", () => {
  it("picks nobody before any worker is seen", async () => {
    const workers = liveWorkers(async () => []);
    await workers.start();
    expect(workers.pick()).toBeNull();
    await workers.close();
  });

  it("weights a pick by free slots plus one, and counts each pick as a slot taken", async () => {
    // a: 1 free slot (weight 2), b: 3 free slots (weight 4). A point in [0, 2) picks a, in [2, 6) b.
    let point = 0;
    const workers = liveWorkers(
      async () => [
        { id: "a", freeSlots: 1, lastSeenAt: beat },
        { id: "b", freeSlots: 3, lastSeenAt: beat },
      ],
      () => point,
    );
    await workers.start();
    point = 1.9 / 6;
    expect(workers.pick()).toBe("a");
    // a has no free slot left now (weight 1), b still 3 (weight 4): 1.9 of 5 falls on b.
    point = 1.9 / 5;
    expect(workers.pick()).toBe("b");
    // b down to 2 free (weight 3), a weight 1: the point just below 1 of 4 is a's, at 1 b's.
    point = 0.99 / 4;
    expect(workers.pick()).toBe("a");
    point = 1 / 4;
    expect(workers.pick()).toBe("b");
    await workers.close();
  });

  it("spreads a burst over the workers instead of sending it all to the idlest", async () => {
    const workers = new LiveWorkers({
      list: async () => [
        { id: "a", freeSlots: 50, lastSeenAt: beat },
        { id: "b", freeSlots: 50, lastSeenAt: beat },
      ],
      refreshMs: 60_000,
      logger,
    });
    await workers.start();
    const picks = Array.from({ length: 100 }, () => workers.pick());
    const toA = picks.filter((id) => id === "a").length;
    // Each pick takes a slot: after 100 picks of 100 free slots both are nearly full, whatever the draws.
    expect(toA).toBeGreaterThanOrEqual(40);
    expect(toA).toBeLessThanOrEqual(60);
    await workers.close();
  });

  it("skips a worker nobody heard until a newer beat of it is read", async () => {
    let rows: LiveWorker[] = [{ id: "gone", freeSlots: 5, lastSeenAt: beat }];
    const workers = liveWorkers(async () => rows);
    await workers.start();
    expect(workers.pick()).toBe("gone");
    workers.unheard("gone");
    expect(workers.pick()).toBeNull();
    // Read again, same beat: still skipped.
    await workers.refresh();
    expect(workers.pick()).toBeNull();
    // It beat again (it was only reconnecting): picked again.
    rows = [{ id: "gone", freeSlots: 5, lastSeenAt: later }];
    await workers.refresh();
    expect(workers.pick()).toBe("gone");
    await workers.close();
  });

  it("reads the list again at once when no worker is known, at most every 100 ms", async () => {
    let rows: LiveWorker[] = [];
    let reads = 0;
    const workers = liveWorkers(async () => {
      reads += 1;
      return rows;
    });
    await workers.start();
    rows = [{ id: "first", freeSlots: 4, lastSeenAt: beat }];
    // Read a moment ago, at the start: not again yet.
    expect(workers.pick()).toBeNull();
    expect(reads).toBe(1);
    await new Promise((resolve) => setTimeout(resolve, 120));
    expect(workers.pick()).toBeNull();
    expect(reads).toBe(2);
    await new Promise((resolve) => setImmediate(resolve));
    expect(workers.pick()).toBe("first");
    expect(reads).toBe(2);
    await workers.close();
  });

  it("reads one list at a time: a refresh asked for during a read settles with that read", async () => {
    let reads = 0;
    let answer: (rows: LiveWorker[]) => void = () => undefined;
    const workers = liveWorkers(() => {
      reads += 1;
      return new Promise<LiveWorker[]>((resolve) => (answer = resolve));
    });
    const starting = workers.start();
    const again = workers.refresh();
    expect(reads).toBe(1);
    answer([{ id: "a", freeSlots: 1, lastSeenAt: beat }]);
    await Promise.all([starting, again]);
    expect(workers.pick()).toBe("a");
    // Once it settled, the next refresh reads again.
    const next = workers.refresh();
    expect(reads).toBe(2);
    answer([]);
    await next;
    await workers.close();
  });

  it("keeps the workers it read last when a read fails", async () => {
    let fail = false;
    const workers = liveWorkers(async () => {
      if (fail) throw new Error("Postgres is gone");
      return [{ id: "a", freeSlots: 1, lastSeenAt: beat }];
    });
    await workers.start();
    fail = true;
    await workers.refresh();
    expect(workers.pick()).toBe("a");
    await workers.close();
  });
});
