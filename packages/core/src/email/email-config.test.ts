import { describe, expect, it } from "vitest";
import { z } from "zod";
import { parseEnvironment } from "../config/environment-schema.ts";
import { DEFAULT_EMAIL_FROM, describeSmtpServer, emailConfigFromEnvironment, emailEnvironmentShape } from "./email-config.ts";

const schema = z.object(emailEnvironmentShape);

describe("email configuration", () => {
  it("no SMTP_URL: no sending; an empty value counts as unset", () => {
    expect(emailConfigFromEnvironment(parseEnvironment(schema, {}))).toBeNull();
    expect(emailConfigFromEnvironment(parseEnvironment(schema, { SMTP_URL: "", EMAIL_FROM: "" }))).toBeNull();
  });

  it("SMTP_URL and EMAIL_FROM (default agentq@localhost); the server is described without its credentials", () => {
    const config = emailConfigFromEnvironment(parseEnvironment(schema, { SMTP_URL: "smtps://me:hunter2-secret@mail.example.com:465" }));
    expect(config).toEqual({ smtpUrl: "smtps://me:hunter2-secret@mail.example.com:465", from: DEFAULT_EMAIL_FROM });
    expect(describeSmtpServer(config!)).toBe("smtps://mail.example.com:465");
    expect(emailConfigFromEnvironment(parseEnvironment(schema, { SMTP_URL: "smtp://mail.example.com", EMAIL_FROM: "bot@example.com" }))?.from).toBe(
      "bot@example.com",
    );
  });

  it("a bad SMTP_URL or EMAIL_FROM names the variable and never echoes the value (it may hold a password)", () => {
    const attempt = () => parseEnvironment(schema, { SMTP_URL: "http://me:hunter2-secret@mail.example.com", EMAIL_FROM: "not an address" });
    expect(attempt).toThrow(/SMTP_URL: expected a URL starting with smtp:\/\/ or smtps:\/\//);
    expect(attempt).toThrow(/EMAIL_FROM/);
    try {
      attempt();
    } catch (error) {
      expect(JSON.stringify({ message: (error as Error).message, details: (error as { details?: unknown }).details })).not.toContain("hunter2");
    }
  });
});
