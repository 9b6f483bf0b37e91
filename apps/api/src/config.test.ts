import { isAbsolute } from "node:path";
import { fileURLToPath } from "node:url";
import { describe, expect, it } from "vitest";
import { parseApiConfig } from "./config.ts";

describe("parseApiConfig", () => {
  it("gives every variable its documented default", () => {
    const config = parseApiConfig({});
    expect(config.databaseUrl).toBe("postgresql://postgres@127.0.0.1:5432/agentq");
    expect(config.redisUrl).toBe("redis://127.0.0.1:6379");
    expect(config.port).toBe(3000);
    expect(config.host).toBe("127.0.0.1");
    expect(config.adminToken).toBeUndefined();
    expect(isAbsolute(config.workspacesRoot)).toBe(true);
    expect(config.workspacesRoot.endsWith("data/workspaces")).toBe(true);
    expect(config.fileRoots).toEqual([]);
    expect(config.openaiBaseUrl).toBe("http://127.0.0.1:11434/v1");
    expect(config.defaultModel).toBe("llama3.1");
    expect(config.logLevel).toBe("info");
    expect(config.bodyLimitBytes).toBe(1024 * 1024);
    expect(config.toolEnvAllow).toEqual(["PATH", "HOME", "LANG", "TERM"]);
    expect(config.queuePrefix).toBe("agentq");
    expect(config.searxngUrl).toBeUndefined();
    expect(config.sseHeartbeatMs).toBe(15_000);
    // The console's build in this checkout, wherever the process was started from.
    expect(config.consoleDirectory).toBe(fileURLToPath(new URL("../../console/dist", import.meta.url)));
  });

  it("reads the given values", () => {
    const config = parseApiConfig({
      PORT: "0",
      FILE_ROOTS: "/srv/a:/srv/b",
      BODY_LIMIT: "512kb",
      TOOL_ENV_ALLOW: "PATH, LANG",
      QUEUE_PREFIX: "{agentq-test}",
      ADMIN_TOKEN: "a-long-enough-admin-token",
      CONSOLE_DIR: "/srv/console",
    });
    expect(config.port).toBe(0);
    expect(config.fileRoots).toEqual(["/srv/a", "/srv/b"]);
    expect(config.bodyLimitBytes).toBe(512 * 1024);
    expect(config.toolEnvAllow).toEqual(["PATH", "LANG"]);
    expect(config.queuePrefix).toBe("{agentq-test}");
    expect(config.adminToken).toBe("a-long-enough-admin-token");
    expect(config.consoleDirectory).toBe("/srv/console");
  });

  it("treats an empty value as unset", () => {
    expect(parseApiConfig({ OPENAI_API_KEY: "", PORT: "" }).openaiApiKey).toBeUndefined();
    expect(parseApiConfig({ PORT: "" }).port).toBe(3000);
  });

  it("names every bad variable without echoing its value", () => {
    let message = "";
    try {
      parseApiConfig({ PORT: "eighty", REDIS_URL: "http://nope", FILE_ROOTS: "relative/dir", ADMIN_TOKEN: "short-secret" });
    } catch (error) {
      message = (error as Error).message;
    }
    expect(message).toContain("PORT");
    expect(message).toContain("REDIS_URL");
    expect(message).toContain("FILE_ROOTS");
    expect(message).toContain("ADMIN_TOKEN");
    expect(message).not.toContain("short-secret");
  });

  it("rejects a port above 65535 and an unreadable body limit", () => {
    expect(() => parseApiConfig({ PORT: "70000" })).toThrow(/PORT/);
    expect(() => parseApiConfig({ BODY_LIMIT: "lots" })).toThrow(/BODY_LIMIT/);
    expect(() => parseApiConfig({ LOG_LEVEL: "loud" })).toThrow(/LOG_LEVEL/);
  });
});
