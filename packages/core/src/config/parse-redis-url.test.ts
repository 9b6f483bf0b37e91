import { describe, expect, it } from "vitest";
import { commonConfigFromEnvironment, commonEnvironmentSchema, InvalidEnvironmentError, parseEnvironment } from "./environment-schema.ts";
import { hashTagOf, parseRedisUrl } from "./parse-redis-url.ts";

describe("parseRedisUrl", () => {
  it("keeps a one-server URL as it is", () => {
    expect(parseRedisUrl("rediss://:secret@cache.example:6380/2")).toEqual({ kind: "server", url: "rediss://:secret@cache.example:6380/2" });
  });

  it("reads a cluster's node list, TLS, user and percent-encoded password", () => {
    expect(parseRedisUrl("rediss+cluster://agentq:p%40ss%3Aword@10.0.0.1:7000,node-b.example:7001,[::1]:7002,node-c/")).toEqual({
      kind: "cluster",
      nodes: [
        { host: "10.0.0.1", port: 7000 },
        { host: "node-b.example", port: 7001 },
        { host: "::1", port: 7002 },
        { host: "node-c", port: 6379 },
      ],
      tls: true,
      username: "agentq",
      password: "p@ss:word",
    });
    expect(parseRedisUrl("redis+cluster://127.0.0.1:7000")).toMatchObject({ kind: "cluster", tls: false, username: undefined, password: undefined });
  });

  it("refuses other schemes, empty nodes and a database other than 0, without repeating the URL", () => {
    expect(() => parseRedisUrl("http://127.0.0.1:6379")).toThrow(/redis\+cluster:\/\//);
    expect(() => parseRedisUrl("redis+cluster://:hunter2@a:7000,,b:7001")).toThrow(/host:port separated by commas/);
    expect(() => parseRedisUrl("redis+cluster://a:7000/3")).toThrow(/only database 0/);
    expect(() => parseRedisUrl("redis+cluster://:hunter2@a:99999")).not.toThrow(/hunter2/);
  });
});

describe("hashTagOf", () => {
  it("is what Redis hashes: the first non-empty {...}", () => {
    expect(hashTagOf("{agentq}:runs:wait")).toBe("agentq");
    expect(hashTagOf("team-a:{agentq}:runs")).toBe("agentq");
    expect(hashTagOf("agentq")).toBeUndefined();
    expect(hashTagOf("{}agentq")).toBeUndefined();
    expect(hashTagOf("agentq{")).toBeUndefined();
  });
});

describe("REDIS_URL and QUEUE_PREFIX together", () => {
  const configOf = (environment: Record<string, string>) => commonConfigFromEnvironment(parseEnvironment(commonEnvironmentSchema, environment));

  it("a cluster with an unbraced prefix stops with a message naming QUEUE_PREFIX and the fix", () => {
    let error: unknown;
    try {
      configOf({ REDIS_URL: "redis+cluster://127.0.0.1:7000,127.0.0.1:7001", QUEUE_PREFIX: "agentq-prod" });
    } catch (thrown) {
      error = thrown;
    }
    expect(error).toBeInstanceOf(InvalidEnvironmentError);
    expect((error as InvalidEnvironmentError).message).toContain("QUEUE_PREFIX");
    expect((error as InvalidEnvironmentError).message).toContain("QUEUE_PREFIX={agentq-prod}");
  });

  it("a cluster with a braced prefix, and one server with any prefix, are accepted", () => {
    expect(configOf({ REDIS_URL: "redis+cluster://127.0.0.1:7000", QUEUE_PREFIX: "{agentq}" }).queuePrefix).toBe("{agentq}");
    expect(configOf({ REDIS_URL: "redis://127.0.0.1:6379", QUEUE_PREFIX: "agentq" }).redisUrl).toBe("redis://127.0.0.1:6379");
  });
});
