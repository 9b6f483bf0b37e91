// The API's subscription hub against the real Redis: one channel per user, messages routed to the
// followers of the run they name, and a refused SUBSCRIBE that is asked again by the next follower.
import { randomBytes } from "node:crypto";
import type { RunChannelMessage } from "@agentq/core";
import { createRedis, publishMessage, type RedisClient, userRunsChannel } from "@agentq/queue";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { RunSubscriptionHub } from "../apps/api/src/realtime/run-subscription-hub.ts";
import { createTestRedis, TEST_REDIS_URL, uniqueQueuePrefix } from "./support/redis.ts";
import { waitUntil } from "./support/wait-until.ts";

const prefix = uniqueQueuePrefix();
const aclUser = `agentq-hub-test-${randomBytes(4).toString("hex")}`;
const aclPassword = randomBytes(12).toString("hex");
let admin: ReturnType<typeof createTestRedis>;
let publisher: RedisClient;
let subscriber: RedisClient;
let hub: RunSubscriptionHub;

beforeAll(async () => {
  admin = createTestRedis();
  publisher = createRedis({ url: TEST_REDIS_URL, maxRetriesPerRequest: null });
  // A user of its own, so that the test can refuse it the channels and then allow them again.
  await admin.call("ACL", "SETUSER", aclUser, "on", `>${aclPassword}`, "~*", "&*", "+@all");
  const url = new URL(TEST_REDIS_URL);
  url.username = aclUser;
  url.password = aclPassword;
  subscriber = createRedis({ url: url.toString(), maxRetriesPerRequest: null });
  hub = new RunSubscriptionHub(subscriber, prefix, { subscribeWaitMs: 100 });
});

afterAll(async () => {
  hub.close();
  await subscriber.quit();
  await admin.call("ACL", "DELUSER", aclUser);
  await publisher.quit();
  await admin.quit();
});

const message = (runId: string, seq: number): RunChannelMessage => ({
  kind: "events",
  run_id: runId,
  events: [{ seq, type: "round.started", at: new Date(0).toISOString(), data: { round: seq } }],
});

describe("RunSubscriptionHub", () => {
  it("delivers each message on a user's channel to the followers of its run only", async () => {
    const heard: string[] = [];
    const stopA = await hub.subscribe({ id: "run_a", userId: "usr_1" }, (m) => heard.push(`a:${m.run_id}`));
    const stopB = await hub.subscribe({ id: "run_b", userId: "usr_1" }, (m) => heard.push(`b:${m.run_id}`));
    const channel = userRunsChannel(prefix, "usr_1");
    await publishMessage(publisher, channel, JSON.stringify(message("run_b", 1)));
    await publishMessage(publisher, channel, JSON.stringify(message("run_other", 1)));
    await publishMessage(publisher, channel, JSON.stringify(message("run_a", 1)));
    await waitUntil("both followed runs heard", () => (heard.length >= 2 ? true : undefined));
    expect(heard).toEqual(["b:run_b", "a:run_a"]);
    stopA();
    stopB();
    await waitUntil("the user's channel released", async () =>
      Number(((await admin.pubsub("NUMSUB", channel)) as [string, number])[1]) === 0 ? true : undefined,
    );
  });

  it("splits a payload of several messages (the publisher's batch of a tick) among their runs' followers, in order", async () => {
    const heard: string[] = [];
    const stopA = await hub.subscribe({ id: "run_e", userId: "usr_3" }, (m) => heard.push(`e:${m.kind === "events" ? m.events[0]!.seq : "delta"}`));
    const stopB = await hub.subscribe({ id: "run_f", userId: "usr_3" }, (m) => heard.push(`f:${m.kind === "events" ? m.events[0]!.seq : "delta"}`));
    const batch = [message("run_e", 1), message("run_other", 1), message("run_f", 1), { kind: "delta", run_id: "run_e", text: "t" }, message("run_e", 2)];
    await publishMessage(publisher, userRunsChannel(prefix, "usr_3"), JSON.stringify(batch));
    await waitUntil("every message of the batch heard", () => (heard.length >= 4 ? true : undefined));
    expect(heard).toEqual(["e:1", "f:1", "e:delta", "e:2"]);
    stopA();
    stopB();
  });

  it("asks Redis again for the next follower after a SUBSCRIBE refused once its first follower went on", async () => {
    // Redis holds every command for 400 ms: the first follower stops waiting (100 ms here) and goes
    // on, as it would during a failover. Held before its SUBSCRIBE, the channels are taken from the
    // hub's Redis user, so the SUBSCRIBE is refused once Redis goes on.
    await admin.call("CLIENT", "PAUSE", "400", "ALL");
    const revoked = publisher.call("ACL", "SETUSER", aclUser, "resetchannels");
    await new Promise((resolve) => setTimeout(resolve, 50));
    const stopFirst = await hub.subscribe({ id: "run_c", userId: "usr_2" }, () => undefined);
    await revoked;
    await new Promise((resolve) => setTimeout(resolve, 100));
    await admin.call("ACL", "SETUSER", aclUser, "&*");
    const heard: number[] = [];
    const stop = await hub.subscribe({ id: "run_d", userId: "usr_2" }, (m) => heard.push(m.kind === "events" ? m.events[0]!.seq : -1));
    await publishMessage(publisher, userRunsChannel(prefix, "usr_2"), JSON.stringify(message("run_d", 7)));
    await waitUntil("the run heard after the retry", () => (heard.length === 1 ? true : undefined));
    expect(heard).toEqual([7]);
    stop();
    stopFirst();
  });
});
