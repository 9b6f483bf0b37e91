// The test harness itself (test/support): other suites rely on it for isolation.
import pg from "pg";
import { afterAll, describe, expect, it } from "vitest";
import { createTestDatabase } from "./support/database.ts";
import { createTestRedis, deleteKeysWithPrefix, uniqueQueuePrefix } from "./support/redis.ts";

async function scalar<T>(url: string, sql: string): Promise<T> {
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  try {
    return Object.values((await client.query(sql)).rows[0] as Record<string, T>)[0]!;
  } finally {
    await client.end();
  }
}

describe("createTestDatabase", () => {
  it("gives each caller its own migrated, empty database, and drop removes it", async () => {
    const [first, second] = await Promise.all([createTestDatabase(), createTestDatabase()]);
    try {
      expect(first.name).not.toBe(second.name);
      expect(await scalar<string>(first.url, "SELECT count(*)::text FROM _prisma_migrations WHERE finished_at IS NOT NULL")).not.toBe("0");
      await scalar(first.url, "INSERT INTO users (id, name) VALUES ('user_1', 'ada') RETURNING id");
      expect(await scalar<string>(first.url, "SELECT count(*)::text FROM users")).toBe("1");
      expect(await scalar<string>(second.url, "SELECT count(*)::text FROM users")).toBe("0");
    } finally {
      // A connection left open must not keep the database alive.
      const leaked = new pg.Client({ connectionString: first.url });
      await leaked.connect();
      leaked.on("error", () => undefined);
      await first.drop();
      await second.drop();
      await leaked.end().catch(() => undefined);
    }
    const exists = await scalar<string>(
      first.url.replace(/\/[^/]+$/, "/postgres"),
      `SELECT count(*)::text FROM pg_database WHERE datname IN ('${first.name}', '${second.name}')`,
    );
    expect(exists).toBe("0");
  });
});

describe("Redis helpers", () => {
  const redis = createTestRedis();
  afterAll(async () => {
    await redis.quit();
  });

  it("deletes every key with the prefix and nothing else", async () => {
    const prefix = uniqueQueuePrefix();
    const neighbour = uniqueQueuePrefix();
    expect(prefix).toMatch(/^agentq-test-[0-9a-f]{12}$/);
    expect(neighbour).not.toBe(prefix);
    const keys = Array.from({ length: 1500 }, (_, index) => `${prefix}:queue:${index}`);
    await redis.mset(...keys.flatMap((key) => [key, "1"]));
    await redis.set(`${neighbour}:queue:0`, "1");
    try {
      expect(await deleteKeysWithPrefix(redis, prefix)).toBe(1500);
      expect(await redis.exists(...keys.slice(0, 10))).toBe(0);
      expect(await redis.exists(`${neighbour}:queue:0`)).toBe(1);
    } finally {
      await deleteKeysWithPrefix(redis, neighbour);
    }
    expect(await redis.exists(`${neighbour}:queue:0`)).toBe(0);
  });

  it("refuses an empty prefix rather than deleting every key", async () => {
    await expect(deleteKeysWithPrefix(redis, "")).rejects.toThrow(/empty prefix/);
  });
});
