import { Webhook } from "standardwebhooks";
import { describe, expect, it } from "vitest";
import { signWebhook } from "./sign-webhook.ts";
import { generateWebhookSecret } from "./webhook-secret.ts";
import { WEBHOOK_MAX_ATTEMPTS, WEBHOOK_RETRY_DELAYS_MS, webhookRetryDelayMs } from "./webhook-retry-schedule.ts";

describe("webhook signatures (Standard Webhooks)", () => {
  const secret = generateWebhookSecret();
  const body = JSON.stringify({ type: "run.completed", data: { run_id: "run_1" } });
  const timestamp = Math.floor(Date.now() / 1000);
  const headers = (signature: string, id = "msg_1") => ({ "webhook-id": id, "webhook-timestamp": String(timestamp), "webhook-signature": signature });

  it("the standardwebhooks verifier accepts what is signed", () => {
    const signature = signWebhook({ secret, id: "msg_1", timestamp, body });
    expect(signature).toMatch(/^v1,[A-Za-z0-9+/]+=*$/);
    expect(new Webhook(secret).verify(body, headers(signature))).toEqual(JSON.parse(body));
  });

  it("and refuses another body, another id, another secret", () => {
    const signature = signWebhook({ secret, id: "msg_1", timestamp, body });
    expect(() => new Webhook(secret).verify(body.replace("run_1", "run_2"), headers(signature))).toThrow();
    expect(() => new Webhook(secret).verify(body, headers(signature, "msg_2"))).toThrow();
    expect(() => new Webhook(generateWebhookSecret()).verify(body, headers(signature))).toThrow();
  });
});

describe("the webhook retry schedule", () => {
  it("retries within a minute first, and makes at least 5 attempts over at least 10 minutes", () => {
    expect(webhookRetryDelayMs(1, () => 1)).toBeLessThanOrEqual(60_000);
    expect(WEBHOOK_MAX_ATTEMPTS).toBeGreaterThanOrEqual(5);
    const total = WEBHOOK_RETRY_DELAYS_MS.slice(0, 4).reduce((sum, delay) => sum + delay, 0);
    expect(total).toBeGreaterThanOrEqual(600_000);
  });

  it("grows, adds at most 10 % at random, and ends after the last attempt", () => {
    for (let attempts = 1; attempts < WEBHOOK_MAX_ATTEMPTS - 1; attempts += 1) {
      expect(webhookRetryDelayMs(attempts + 1, () => 0)!).toBeGreaterThan(webhookRetryDelayMs(attempts, () => 0)!);
    }
    expect(webhookRetryDelayMs(2, () => 1)).toBe(Math.round(WEBHOOK_RETRY_DELAYS_MS[1] * 1.1));
    expect(webhookRetryDelayMs(WEBHOOK_MAX_ATTEMPTS, () => 0)).toBeNull();
  });

  it("follows a schedule given in place of the default, and ends after that schedule's last delay", () => {
    const schedule = [100, 200];
    expect(webhookRetryDelayMs(1, () => 0, schedule)).toBe(100);
    expect(webhookRetryDelayMs(2, () => 1, schedule)).toBe(220);
    expect(webhookRetryDelayMs(3, () => 0, schedule)).toBeNull();
  });
});
