import type { PrismaClient, RunEventRecord, RunEventsPage } from "@agentq/core";
import { NotFoundError } from "@agentq/core";
import { describe, expect, it } from "vitest";
import { followRun } from "./follow-run.ts";
import { manualRunHub } from "./manual-run-hub.ts";

const event = (seq: number): RunEventRecord => ({ seq, type: "round.started", at: new Date(0).toISOString(), data: { round: seq } });

/** A first read that answers once the test releases it, so live messages can arrive while it is in flight. */
function heldRead(answer: () => RunEventsPage) {
  let release: () => void = () => undefined;
  const released = new Promise<void>((resolve) => (release = resolve));
  const read = async () => {
    await released;
    return answer();
  };
  return { read, release };
}

// No statement runs in these tests: the first read is the test's, and each follow is stopped before its poll.
const prisma = {} as PrismaClient;

/**
 * Follows run_1 with a first read the test holds, once the hub has its listener: what it delivered,
 * the follow's promise, and the hub's controls (publish while the first read is held, then release it).
 */
async function heldFollow(answer: () => RunEventsPage) {
  const { hub, publish, subscribed } = manualRunHub();
  const first = heldRead(answer);
  const delivered: number[] = [];
  const following = followRun({
    prisma,
    hub,
    runId: "run_1",
    userId: "user_1",
    after: 0,
    firstRead: first.read,
    onEvent: (e) => delivered.push(e.seq),
    onEnd: () => undefined,
  });
  await expect.poll(subscribed).toBe(true);
  return { delivered, following, publish, subscribed, release: first.release };
}

describe("followRun with a first read that checks access", () => {
  it("delivers nothing, not even live events that arrived during the check, when the first read refuses", async () => {
    const { delivered, following, publish, subscribed, release } = await heldFollow(() => {
      throw new NotFoundError("run");
    });
    publish({ kind: "events", run_id: "run_1", events: [event(1)] });
    release();
    await expect(following).rejects.toBeInstanceOf(NotFoundError);
    publish({ kind: "events", run_id: "run_1", events: [event(2)] });
    await new Promise((resolve) => setTimeout(resolve, 10));
    expect(delivered).toEqual([]);
    expect(subscribed()).toBe(false);
  });

  it("delivers the replay first, then the live events that arrived during it, in order and once", async () => {
    const { delivered, following, publish, release } = await heldFollow(() => ({ run: { status: "running", lastEventSeq: 2 }, events: [event(1), event(2)] }));
    publish({ kind: "events", run_id: "run_1", events: [event(2), event(3)] });
    release();
    const follower = await following;
    await expect.poll(() => delivered).toEqual([1, 2, 3]);
    follower.stop();
  });
});
