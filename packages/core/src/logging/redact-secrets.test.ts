import { describe, expect, it } from "vitest";
import { createSecretRedactor, redactSecrets } from "./redact-secrets.ts";

describe("redactSecrets", () => {
  it("removes a bearer token from a header value", () => {
    const line = JSON.stringify({ req: { headers: { authorization: "Bearer aq_abcDEF123-_xyz" } } });
    expect(redactSecrets(line)).not.toContain("aq_abcDEF123-_xyz");
  });

  it("removes a bearer token from free text", () => {
    expect(redactSecrets("sent Bearer aq_secretvalue to the server")).toBe("sent Bearer [REDACTED] to the server");
  });

  it("removes ?token= from a URL but keeps the other parameters", () => {
    expect(redactSecrets('"url":"/api/ws?token=aq_secret123&x=1"')).toBe('"url":"/api/ws?token=[REDACTED]&x=1"');
  });

  it("removes the password of a postgres and a redis URL", () => {
    const text = "postgresql://agentq:hunter2pass@db:5432/agentq redis://:redispass@cache:6379";
    const redacted = redactSecrets(text);
    expect(redacted).not.toContain("hunter2pass");
    expect(redacted).not.toContain("redispass");
    expect(redacted).toContain("postgresql://agentq:[REDACTED]@db:5432/agentq");
  });

  it("removes credential-named JSON fields", () => {
    const line = JSON.stringify({ token: "plain-token-value", openaiApiKey: "k-123456789", approval_secret: "s3cr3t-value" });
    const redacted = redactSecrets(line);
    expect(redacted).not.toContain("plain-token-value");
    expect(redacted).not.toContain("k-123456789");
    expect(redacted).not.toContain("s3cr3t-value");
  });

  it("removes provider keys by shape", () => {
    expect(redactSecrets("key sk-ant-api03-abcdefghijklmnop used")).toBe("key [REDACTED] used");
  });

  it("removes configured secret values wherever they appear", () => {
    const redact = createSecretRedactor({ secrets: ["my-approval-secret-value", undefined, "short"] });
    expect(redact("failed with my-approval-secret-value inside")).toBe("failed with [REDACTED] inside");
    expect(redact("a short word")).toBe("a short word");
  });

  it("leaves ordinary text alone", () => {
    const line = '{"level":30,"msg":"request completed","tokens":12,"url":"/api/me"}';
    expect(redactSecrets(line)).toBe(line);
  });
});
