import { createHash } from "node:crypto";
import { afterAll, describe, expect, it } from "vitest";
import { bootstrapAdmin, createPrismaClient } from "@agentq/core";
import { createTestDatabase, type TestDatabase } from "./support/database.ts";
import { requestJson, startTestApi, TEST_ADMIN_TOKEN } from "./support/test-api.ts";

const databases: TestDatabase[] = [];
async function freshDatabase(): Promise<TestDatabase> {
  const database = await createTestDatabase();
  databases.push(database);
  return database;
}

afterAll(async () => {
  for (const database of databases) await database.drop();
});

function bootstrapLines(logs: string[]): string[] {
  return logs.filter((line) => line.includes("bootstrap admin token"));
}

describe("bootstrap admin", () => {
  it("registers ADMIN_TOKEN for the user admin and logs no token", async () => {
    const api = await startTestApi();
    try {
      const me = await requestJson(`${api.url}/api/me`, { token: TEST_ADMIN_TOKEN });
      expect(me.body).toMatchObject({ id: expect.any(String), name: "admin", role: "admin" });
      const tokens = await api.prisma.apiToken.findMany({ where: { userId: me.body.id } });
      expect(tokens.map((token) => token.tokenHash)).toEqual([createHash("sha256").update(TEST_ADMIN_TOKEN).digest("hex")]);
      expect(bootstrapLines(api.logs)).toEqual([]);
      expect(api.logs.join("")).not.toContain(TEST_ADMIN_TOKEN);
    } finally {
      await api.close();
    }
  });

  it("generates a token when ADMIN_TOKEN is absent, logs it once, and not again on the next start", async () => {
    const database = await freshDatabase();
    const first = await startTestApi({ database, config: { adminToken: undefined } });
    let token: string;
    try {
      const lines = bootstrapLines(first.logs);
      expect(lines).toHaveLength(1);
      token = /bootstrap admin token: (aq_[A-Za-z0-9_-]{43})/.exec(lines[0]!)?.[1] ?? "";
      expect(token).not.toBe("");
      const me = await requestJson(`${first.url}/api/me`, { token });
      expect(me.status).toBe(200);
      expect(me.body.name).toBe("admin");
      expect(me.body.role).toBe("admin");
    } finally {
      await first.close();
    }

    const second = await startTestApi({ database, config: { adminToken: undefined } });
    try {
      expect(bootstrapLines(second.logs)).toEqual([]);
      expect((await requestJson(`${second.url}/api/me`, { token })).status).toBe(200);
      expect(await second.prisma.user.count()).toBe(1);
      expect(await second.prisma.apiToken.count()).toBe(1);
    } finally {
      await second.close();
    }
  });

  it("creates one admin and one token when several instances bootstrap at once", async () => {
    const database = await freshDatabase();
    const clients = Array.from({ length: 5 }, () => createPrismaClient({ databaseUrl: database.url, poolSize: 1 }));
    try {
      const results = await Promise.all(clients.map((client) => bootstrapAdmin(client)));
      expect(results.filter((result) => result.generatedToken !== undefined)).toHaveLength(1);
      expect(new Set(results.map((result) => result.adminUserId)).size).toBe(1);
      expect(await clients[0]!.user.count()).toBe(1);
      expect(await clients[0]!.apiToken.count()).toBe(1);

      const withToken = await Promise.all(clients.map((client) => bootstrapAdmin(client, { adminToken: TEST_ADMIN_TOKEN })));
      expect(withToken.every((result) => result.generatedToken === undefined)).toBe(true);
      expect(await clients[0]!.user.count()).toBe(1);
      expect(await clients[0]!.apiToken.count()).toBe(2);
    } finally {
      await Promise.all(clients.map((client) => client.$disconnect()));
    }
  });

  it("two API instances starting together on one database agree on one admin", async () => {
    const database = await freshDatabase();
    const [first, second] = await Promise.all([
      startTestApi({ database, config: { adminToken: undefined } }),
      startTestApi({ database, config: { adminToken: undefined } }),
    ]);
    try {
      expect(bootstrapLines([...first.logs, ...second.logs])).toHaveLength(1);
      expect(await first.prisma.user.count({ where: { name: "admin" } })).toBe(1);
      expect(await first.prisma.apiToken.count()).toBe(1);
    } finally {
      await Promise.all([first.close(), second.close()]);
    }
  });

  it("gives the admin role back to a user named admin that lost it", async () => {
    const database = await freshDatabase();
    const client = createPrismaClient({ databaseUrl: database.url, poolSize: 1 });
    try {
      await client.user.create({ data: { id: "usr_demoted", name: "admin", role: "user" } });
      await bootstrapAdmin(client, { adminToken: TEST_ADMIN_TOKEN });
      expect((await client.user.findUniqueOrThrow({ where: { name: "admin" } })).role).toBe("admin");
    } finally {
      await client.$disconnect();
    }
  });
});
