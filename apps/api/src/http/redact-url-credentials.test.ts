import { describe, expect, it } from "vitest";
import { redactQueryCredentials, redactUrlCredentials } from "./redact-url-credentials.ts";

describe("redactUrlCredentials", () => {
  it("replaces the value of token-like parameters, whatever their spelling, and keeps the rest", () => {
    expect(redactUrlCredentials("/api/ws?token=aq_secret")).toBe("/api/ws?token=[REDACTED]");
    expect(redactUrlCredentials("/api/runs/r/events?after=3&token=aq_secret&x=1")).toBe("/api/runs/r/events?after=3&token=[REDACTED]&x=1");
    expect(redactUrlCredentials("/api/ws?tok%65n=aq_secret")).toBe("/api/ws?tok%65n=[REDACTED]");
    expect(redactUrlCredentials("/api/ws?TOKEN=a&token[]=b&access_token=c&api_key=d")).toBe(
      "/api/ws?TOKEN=[REDACTED]&token[]=[REDACTED]&access_token=[REDACTED]&api_key=[REDACTED]",
    );
    expect(redactUrlCredentials("/x?token")).toBe("/x?token=[REDACTED]");
    expect(redactUrlCredentials("/x?%E0%A4%A=1&token=s#frag")).toBe("/x?%E0%A4%A=1&token=[REDACTED]#frag");
  });

  it("leaves URLs without credentials as they are", () => {
    for (const url of ["/api/me", "/api/chats?limit=5&before=abc", "/api/workspaces/w/tree?path=src", "/x?"]) expect(redactUrlCredentials(url)).toBe(url);
  });
});

describe("redactQueryCredentials", () => {
  it("replaces credential values of a parsed query and leaves other fields", () => {
    expect(redactQueryCredentials({ token: "s", "token[]": ["s"], after: "3" })).toEqual({ token: "[REDACTED]", "token[]": "[REDACTED]", after: "3" });
    expect(redactQueryCredentials(undefined)).toBeUndefined();
  });
});
