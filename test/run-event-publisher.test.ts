// The worker's and the API's event publisher against the real Redis: the messages of one channel
// published in the same tick leave as one PUBLISH (a JSON array, in order), a lone one stays a bare
// object, other channels and later ticks get their own, and a large burst is split.
import type { RunChannelMessage } from "@agentq/core";
import { createRedis, createRedisRunEventPublisher, PUBLISH_BATCH_CHARACTERS, parseRunChannelPayload, type RedisClient, userRunsChannel } from "@agentq/queue";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { TEST_REDIS_URL, uniqueQueuePrefix } from "./support/redis.ts";
import { waitUntil } from "./support/wait-until.ts";

const prefix = uniqueQueuePrefix();
let connection: RedisClient;
let subscriber: RedisClient;
const received = new Map<string, string[]>();

beforeAll(async () => {
  connection = createRedis({ url: TEST_REDIS_URL, maxRetriesPerRequest: null, autoPipelining: true });
  subscriber = createRedis({ url: TEST_REDIS_URL, maxRetriesPerRequest: null });
  subscriber.on("message", (channel: string, text: string) => received.set(channel, [...(received.get(channel) ?? []), text]));
  await subscriber.subscribe(userRunsChannel(prefix, "usr_a"), userRunsChannel(prefix, "usr_b"), userRunsChannel(prefix, "usr_c"));
});

afterAll(async () => {
  await subscriber.quit();
  await connection.quit();
});

const event = (seq: number) => ({ seq, type: "round.started" as const, at: new Date(0).toISOString(), data: { round: seq } });
const heard = (userId: string) => received.get(userRunsChannel(prefix, userId)) ?? [];

describe("createRedisRunEventPublisher", () => {
  it("sends one channel's messages of a tick as one array in order, a lone message as an object, and a later tick apart", async () => {
    const publisher = createRedisRunEventPublisher(connection, prefix);
    await Promise.all([
      publisher.publishEvents({ id: "run_1", userId: "usr_a" }, [event(1), event(2)]),
      publisher.publishDelta({ id: "run_2", userId: "usr_b" }, "hello"),
      publisher.publishDelta({ id: "run_1", userId: "usr_a" }, "text"),
      publisher.publishEvents({ id: "run_3", userId: "usr_a" }, [event(1)]),
    ]);
    await publisher.publishEvents({ id: "run_1", userId: "usr_a" }, [event(3)]);
    await waitUntil("both channels heard", () => (heard("usr_a").length === 2 && heard("usr_b").length === 1 ? true : undefined));

    const [batch, later] = heard("usr_a").map((text) => JSON.parse(text) as unknown);
    expect(batch).toEqual([
      { kind: "events", run_id: "run_1", events: [event(1), event(2)] },
      { kind: "delta", run_id: "run_1", text: "text" },
      { kind: "events", run_id: "run_3", events: [event(1)] },
    ]);
    expect(later).toEqual({ kind: "events", run_id: "run_1", events: [event(3)] });
    expect(JSON.parse(heard("usr_b")[0]!)).toEqual({ kind: "delta", run_id: "run_2", text: "hello" });
    // What the API's hub reads: the same messages, in order, either way.
    expect(parseRunChannelPayload(heard("usr_a")[0]!)?.map((message: RunChannelMessage) => message.run_id)).toEqual(["run_1", "run_1", "run_3"]);
    expect(parseRunChannelPayload(heard("usr_a")[1]!)).toEqual([later]);
    expect(parseRunChannelPayload("not json")).toBeNull();
    // Whatever in a payload is not a message object is dropped, so the hub reads run_id of objects only.
    expect(parseRunChannelPayload('[null, 5, {"kind":"delta","run_id":"run_1","text":"t"}]')).toEqual([{ kind: "delta", run_id: "run_1", text: "t" }]);
    expect(parseRunChannelPayload("null")).toEqual([]);
  });

  it("publishes a channel at once when its pending messages reach the bound, keeping their order", async () => {
    const publisher = createRedisRunEventPublisher(connection, prefix);
    const large = "x".repeat(PUBLISH_BATCH_CHARACTERS / 2);
    await Promise.all([1, 2, 3].map((index) => publisher.publishDelta({ id: "run_big", userId: "usr_c" }, `${index}${large}`)));
    await waitUntil("the burst heard", () => (heard("usr_c").length === 2 ? true : undefined));
    const order = heard("usr_c").flatMap((text) => parseRunChannelPayload(text)!.map((message) => (message.kind === "delta" ? message.text[0] : "?")));
    expect(order).toEqual(["1", "2", "3"]);
    expect(heard("usr_c").map((text) => parseRunChannelPayload(text)!.length)).toEqual([2, 1]);
  });
});
