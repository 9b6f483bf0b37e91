import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { scenarioInput } from "@agentq/core/testing/scenario-responder";
import { startTestStack, type TestStack } from "./support/test-stack.ts";

describe("idempotency_key", () => {
  let stack: TestStack;
  beforeAll(async () => {
    stack = await startTestStack();
  });
  afterAll(async () => {
    await stack?.close();
  });

  it("the same key from the same user returns the first run and creates no other", async () => {
    const chatId = await stack.createChat();
    const body = { input: scenarioInput([{ text: "once" }]), idempotency_key: "key-1" };
    const first = await stack.startRun(chatId, body);
    expect(first.status).toBe(202);
    // Even while the first run is active, the retry is not a multitask conflict: it is the same run.
    const second = await stack.startRun(chatId, body);
    expect(second.status).toBe(202);
    expect(second.body.id).toBe(first.body.id);
    await stack.waitForRun(first.body.id);
    const third = await stack.startRun(chatId, body);
    expect(third.body.id).toBe(first.body.id);
    expect(third.body.status).toBe("completed");
    expect(await stack.prisma.run.count({ where: { chatId } })).toBe(1);
    expect((await stack.events(first.body.id)).filter((event) => event.type === "run.started")).toHaveLength(1);
  });

  it("concurrent requests with the same key create a single run", async () => {
    const chatId = await stack.createChat();
    const body = { input: scenarioInput([{ text: "concurrent" }]), idempotency_key: "key-concurrent" };
    const responses = await Promise.all([1, 2, 3, 4].map(() => stack.startRun(chatId, body)));
    expect(responses.map((response) => response.status)).toEqual([202, 202, 202, 202]);
    expect(new Set(responses.map((response) => response.body.id)).size).toBe(1);
    expect(await stack.prisma.run.count({ where: { chatId } })).toBe(1);
    await stack.waitForRun(responses[0]!.body.id);
  });

  it("another user with the same key gets a run of their own", async () => {
    const alice = await stack.createUser("alice");
    const bob = await stack.createUser("bob");
    const aliceChat = await stack.createChat({ token: alice.token });
    const bobChat = await stack.createChat({ token: bob.token });
    const body = { input: scenarioInput([{ text: "mine" }]), idempotency_key: "shared-key" };
    const aliceRun = await stack.startRun(aliceChat, body, alice.token);
    const bobRun = await stack.startRun(bobChat, body, bob.token);
    expect(aliceRun.status).toBe(202);
    expect(bobRun.status).toBe(202);
    expect(bobRun.body.id).not.toBe(aliceRun.body.id);
    expect(bobRun.body.chat_id).toBe(bobChat);
    expect(await stack.prisma.run.count({ where: { chatId: { in: [aliceChat, bobChat] } } })).toBe(2);
    // Bob's key does not reveal Alice's run.
    expect((await stack.request("GET", `/api/runs/${aliceRun.body.id}`, { token: bob.token })).status).toBe(404);
    await stack.waitForRun(aliceRun.body.id, undefined, 20_000, alice.token);
    await stack.waitForRun(bobRun.body.id, undefined, 20_000, bob.token);
  });
});
