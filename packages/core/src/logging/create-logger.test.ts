import { describe, expect, it } from "vitest";
import { createLogger } from "./create-logger.ts";

function capturedLogger(secrets: string[] = []) {
  const lines: string[] = [];
  const logger = createLogger({ level: "debug", name: "test", secrets, destination: { write: (line: string) => void lines.push(line) } });
  return { logger, lines };
}

describe("createLogger", () => {
  it("writes JSON lines with the level, the name and the message", () => {
    const { logger, lines } = capturedLogger();
    logger.info({ port: 3000 }, "listening");
    expect(lines).toHaveLength(1);
    expect(JSON.parse(lines[0]!)).toMatchObject({ level: 30, name: "test", port: 3000, msg: "listening" });
  });

  it("scrubs authorization headers, URL passwords, ?token= and configured secrets from every line", () => {
    const { logger, lines } = capturedLogger(["approval-secret-0123456789"]);
    logger.info(
      {
        req: { headers: { authorization: "Bearer aq_header-token-value" }, url: "/api/ws?token=aq_query-token-value" },
        databaseUrl: "postgresql://agentq:db-password-value@db/agentq",
      },
      "started with approval-secret-0123456789",
    );
    logger.error({ err: new Error("upstream said: Bearer aq_error-token-value") }, "failed");
    const output = lines.join("");
    for (const secret of ["aq_header-token-value", "aq_query-token-value", "db-password-value", "approval-secret-0123456789", "aq_error-token-value"]) {
      expect(output).not.toContain(secret);
    }
    expect(output).toContain("postgresql://agentq:[REDACTED]@db/agentq");
  });

  it("honours the level", () => {
    const lines: string[] = [];
    const logger = createLogger({ level: "warn", destination: { write: (line: string) => void lines.push(line) } });
    logger.info("hidden");
    logger.warn("shown");
    expect(lines.map((line) => JSON.parse(line).msg)).toEqual(["shown"]);
  });
});
