import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { scenarioInput } from "@agentq/core/testing";
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
    // The model's answer is held until the retry has been answered: the first run is still active then.
    const body = { input: scenarioInput([{ text: "once", holdUntil: "idempotency-first" }]), idempotency_key: "key-1" };
    const first = await stack.startRun(chatId, body);
    expect(first.status).toBe(202);
    // Even while the first run is active, the retry is not a multitask conflict: it is the same run.
    const second = await stack.startRun(chatId, body);
    expect(second.status).toBe(202);
    expect(second.body.id).toBe(first.body.id);
    expect(["queued", "running"]).toContain(second.body.status);
    stack.provider.release("idempotency-first");
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
  it("a key older than 24 hours creates a new run, and the key then names the new run for 24 hours", async () => {
    const chatId = await stack.createChat();
    const body = { input: scenarioInput([{ text: "again" }]), idempotency_key: "key-expiring" };
    const first = await stack.startRun(chatId, body);
    await stack.waitForRun(first.body.id);
    const user = await stack.prisma.idempotencyKey.findFirstOrThrow({ where: { key: "key-expiring" } });
    expect(user.runId).toBe(first.body.id);
    expect(Math.abs(user.expiresAt.getTime() - (Date.now() + 24 * 60 * 60 * 1000))).toBeLessThan(60_000);
    await stack.prisma.idempotencyKey.update({
      where: { userId_key: { userId: user.userId, key: "key-expiring" } },
      data: { expiresAt: new Date(Date.now() - 1000) },
    });

    const second = await stack.startRun(chatId, body);
    expect(second.status).toBe(202);
    expect(second.body.id).not.toBe(first.body.id);
    const renewed = await stack.prisma.idempotencyKey.findUniqueOrThrow({ where: { userId_key: { userId: user.userId, key: "key-expiring" } } });
    expect(renewed.runId).toBe(second.body.id);
    expect(renewed.expiresAt.getTime()).toBeGreaterThan(Date.now() + 23 * 60 * 60 * 1000);
    expect((await stack.startRun(chatId, body)).body.id).toBe(second.body.id);
    await stack.waitForRun(second.body.id);
  });

  it("a used key returns its run even when the retry names another chat, or one that does not exist", async () => {
    const chatId = await stack.createChat();
    const otherChat = await stack.createChat();
    const body = { input: scenarioInput([{ text: "first chat" }]), idempotency_key: "key-other-chat" };
    const first = await stack.startRun(chatId, body);
    expect(first.status).toBe(202);
    for (const retryChat of [otherChat, "chat_does_not_exist"]) {
      const retry = await stack.startRun(retryChat, body);
      expect(retry.status).toBe(202);
      expect(retry.body).toMatchObject({ id: first.body.id, chat_id: chatId });
    }
    expect(await stack.prisma.run.count({ where: { chatId: otherChat } })).toBe(0);
    await stack.waitForRun(first.body.id);
  });

  it("a request refused with 409 or 404 keeps no key: the same key works once the chat is free", async () => {
    const chatId = await stack.createChat();
    const busy = await stack.run(chatId, { input: scenarioInput([{ text: "slow ".repeat(60), chunkDelayMs: 50 }]) });
    const body = { input: scenarioInput([{ text: "later" }]), idempotency_key: "key-refused" };
    const refused = await stack.startRun(chatId, body);
    expect(refused.status).toBe(409);
    expect(refused.body.error).toMatchObject({ code: "run_in_progress", details: { run_id: busy } });
    expect((await stack.startRun("chat_does_not_exist", body)).status).toBe(404);
    expect(await stack.prisma.idempotencyKey.count({ where: { key: "key-refused" } })).toBe(0);
    await stack.waitForRun(busy);
    const accepted = await stack.startRun(chatId, body);
    expect(accepted.status).toBe(202);
    expect(accepted.body.id).not.toBe(busy);
    await stack.waitForRun(accepted.body.id);
  });
});
