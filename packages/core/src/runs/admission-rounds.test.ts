import { describe, expect, it } from "vitest";
import type { PrismaClient } from "../store/create-prisma-client.ts";
import type { AdmittedRun, DispatchDependencies } from "./admit-runs.ts";
import { AdmissionRounds } from "./admission-rounds.ts";

/** A fake round: records who it admitted for, waits for the test to let it finish, enqueues `runs`. */
function fakeDispatch(runs: string[] = []) {
  const rounds: { userId: string; finish: () => void }[] = [];
  const dispatch = async (dependencies: DispatchDependencies, owner: { userId: string } | { runId: string }): Promise<AdmittedRun[]> => {
    const userId = "userId" in owner ? owner.userId : owner.runId;
    await new Promise<void>((finish) => rounds.push({ userId, finish }));
    const admitted = runs.map((id) => ({ id, generation: { lastEventSeq: 1, leaseVersion: 0 } }));
    for (const run of admitted) await dependencies.schedule(run.id, run.generation).catch(() => undefined);
    return admitted;
  };
  return { rounds, dispatch };
}

const logger = { info: () => undefined, warn: () => undefined, error: () => undefined };
const now = new Date("2026-12-05T00:00:00Z");

function dependencies(schedule: DispatchDependencies["schedule"] = async () => undefined): DispatchDependencies {
  return { prisma: {} as PrismaClient, clock: () => now, logger, schedule };
}

const settle = () => new Promise((resolve) => setImmediate(resolve));

describe("AdmissionRounds", () => {
  it("requests made while a round runs share one next round, and none is served by the round already running", async () => {
    const fake = fakeDispatch();
    const admissions = new AdmissionRounds(dependencies(), fake.dispatch);
    const settled: string[] = [];
    void admissions.request("user-1").then(() => settled.push("first"));
    await settle();
    void admissions.request("user-1").then(() => settled.push("second"));
    void admissions.request("user-1").then(() => settled.push("third"));
    await settle();
    expect(fake.rounds).toHaveLength(1);
    fake.rounds[0]!.finish();
    await settle();
    // The first round served only the request that started it; the next one started for the other two.
    expect(settled).toEqual(["first"]);
    expect(fake.rounds).toHaveLength(2);
    fake.rounds[1]!.finish();
    await settle();
    expect(settled).toEqual(["first", "second", "third"]);
    expect(fake.rounds).toHaveLength(2);
  });

  it("the next round starts once the current one's admission is committed, and its requests also wait for the current one's enqueues", async () => {
    const enqueues: (() => void)[] = [];
    const admissions: (() => void)[] = [];
    const rounds = new AdmissionRounds(
      dependencies(() => new Promise<void>((enqueued) => enqueues.push(enqueued))),
      async (dispatchDependencies, _owner, onAdmitted) => {
        const round = admissions.length + 1;
        await new Promise<void>((admit) => admissions.push(admit));
        onAdmitted?.();
        await dispatchDependencies.schedule(`run-${round}`, { lastEventSeq: 1, leaseVersion: 0 });
        return [];
      },
    );
    const settled: string[] = [];
    void rounds.request("user-1").then(() => settled.push("first"));
    await settle();
    void rounds.request("user-1").then(() => settled.push("second"));
    await settle();
    expect(admissions).toHaveLength(1);
    // The first round committed its admission; its enqueue is still in flight.
    admissions[0]!();
    await settle();
    expect(admissions).toHaveLength(2);
    expect(settled).toEqual([]);
    admissions[1]!();
    await settle();
    expect(enqueues).toHaveLength(2);
    // The second round is done, but the run its request created may be one the first round admitted.
    enqueues[1]!();
    await settle();
    expect(settled).toEqual([]);
    enqueues[0]!();
    await settle();
    expect(settled).toEqual(["first", "second"]);
  });

  it("users' rounds run side by side", async () => {
    const fake = fakeDispatch();
    const admissions = new AdmissionRounds(dependencies(), fake.dispatch);
    void admissions.request("user-1");
    void admissions.request("user-2");
    await settle();
    expect(fake.rounds.map((round) => round.userId)).toEqual(["user-1", "user-2"]);
  });

  it("an enqueue that failed is reported once for its run, whichever round admitted it", async () => {
    const fake = fakeDispatch(["run-a", "run-b"]);
    const unavailable = new Error("the queue is down");
    const admissions = new AdmissionRounds(
      dependencies(async (runId) => {
        if (runId === "run-b") throw unavailable;
      }),
      fake.dispatch,
    );
    const first = admissions.request("user-1");
    await settle();
    const second = admissions.request("user-1");
    fake.rounds[0]!.finish();
    await first;
    await settle();
    fake.rounds[1]!.finish();
    await second;
    expect(admissions.takeFailure("run-a")).toBeUndefined();
    expect(admissions.takeFailure("run-b")).toBe(unavailable);
    expect(admissions.takeFailure("run-b")).toBeUndefined();
  });

  it("a round that fails resolves its requests (the sweep admits later) and the next round still runs", async () => {
    let calls = 0;
    const admissions = new AdmissionRounds(dependencies(), async () => {
      calls += 1;
      if (calls === 1) throw new Error("Postgres is gone");
      return [];
    });
    await expect(admissions.request("user-1")).resolves.toBeUndefined();
    await expect(admissions.request("user-1")).resolves.toBeUndefined();
    expect(calls).toBe(2);
  });
});
