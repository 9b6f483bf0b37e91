import { createHash } from "node:crypto";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { requestJson, startTestApi, type TestApi } from "./support/test-api.ts";

let api: TestApi;

beforeAll(async () => {
  api = await startTestApi();
});

afterAll(async () => {
  await api?.close();
});

async function createUser(name: string, role?: "admin" | "user") {
  const response = await requestJson(`${api.url}/api/users`, {
    token: api.adminToken,
    body: role === undefined ? { name } : { name, role },
  });
  expect(response.status).toBe(201);
  return response.body as { id: string; name: string; role: string; token: string };
}

describe("authentication", () => {
  it("refuses a request without a token with 401 unauthorized", async () => {
    const response = await requestJson(`${api.url}/api/me`);
    expect(response.status).toBe(401);
    expect(response.body.error.code).toBe("unauthorized");
    expect(typeof response.body.error.message).toBe("string");
  });

  it("refuses an unknown token and a non-bearer scheme", async () => {
    const unknown = await requestJson(`${api.url}/api/me`, { token: "aq_not-a-real-token" });
    expect(unknown.status).toBe(401);
    expect(unknown.body.error.code).toBe("unauthorized");
    const basic = await requestJson(`${api.url}/api/me`, { headers: { authorization: `Basic ${api.adminToken}` } });
    expect(basic.status).toBe(401);
  });

  it("does not accept ?token= outside the WebSocket path", async () => {
    const response = await requestJson(`${api.url}/api/me?token=${encodeURIComponent(api.adminToken)}`);
    expect(response.status).toBe(401);
  });

  it("accepts ?token= on the WebSocket path /api/ws", async () => {
    const valid = await requestJson(`${api.url}/api/ws?token=${encodeURIComponent(api.adminToken)}`);
    expect(valid.status).not.toBe(401);
    const invalid = await requestJson(`${api.url}/api/ws?token=aq_wrong`);
    expect(invalid.status).toBe(401);
  });

  it("refuses unauthenticated requests to unknown /api paths with 401, not 404", async () => {
    const response = await requestJson(`${api.url}/api/does-not-exist`);
    expect(response.status).toBe(401);
  });

  it("answers GET /api/me with the caller", async () => {
    const response = await requestJson(`${api.url}/api/me`, { token: api.adminToken });
    expect(response.status).toBe(200);
    expect(response.body).toMatchObject({ id: expect.any(String), name: "admin", role: "admin" });
    // With their usage and the limits that apply (Team operations).
    expect(response.body.usage).toEqual({ active_runs: 0, runs_today: 0, tokens_today: 0 });
    expect(response.body.limits).toEqual({ max_active_runs: 20, runs_per_day: 0, tokens_per_day: 0 });
  });
});

describe("users", () => {
  it("lets an admin create a user whose token works and is stored only as a hash", async () => {
    const created = await createUser("alice");
    expect(created).toEqual({ id: expect.any(String), name: "alice", role: "user", token: expect.stringMatching(/^aq_[A-Za-z0-9_-]{43}$/) });

    const me = await requestJson(`${api.url}/api/me`, { token: created.token });
    expect(me.status).toBe(200);
    expect(me.body).toMatchObject({ id: created.id, name: "alice", role: "user" });

    const rows = await api.prisma.apiToken.findMany({ where: { userId: created.id } });
    expect(rows).toHaveLength(1);
    expect(rows[0]!.tokenHash).toBe(createHash("sha256").update(created.token).digest("hex"));
    const everyStoredValue = JSON.stringify(await api.prisma.apiToken.findMany()) + JSON.stringify(await api.prisma.user.findMany());
    expect(everyStoredValue).not.toContain(created.token);
    expect(everyStoredValue).not.toContain(created.token.slice(3));
  });

  it("never shows a user's token again", async () => {
    const created = await createUser("token-once");
    const me = await requestJson(`${api.url}/api/me`, { token: created.token });
    expect(JSON.stringify(me.body)).not.toContain(created.token);
  });

  it("lets an admin create another admin", async () => {
    const created = await createUser("second-admin", "admin");
    expect(created.role).toBe("admin");
    const response = await requestJson(`${api.url}/api/users`, { token: created.token, body: { name: "made-by-second" } });
    expect(response.status).toBe(201);
  });

  it("refuses POST /api/users from a non-admin with 403 forbidden", async () => {
    const user = await createUser("bob");
    const response = await requestJson(`${api.url}/api/users`, { token: user.token, body: { name: "mallory" } });
    expect(response.status).toBe(403);
    expect(response.body.error.code).toBe("forbidden");
    expect(await api.prisma.user.count({ where: { name: "mallory" } })).toBe(0);
  });

  it("refuses a duplicate name with 409 user_exists", async () => {
    await createUser("carol");
    const response = await requestJson(`${api.url}/api/users`, { token: api.adminToken, body: { name: "carol" } });
    expect(response.status).toBe(409);
    expect(response.body.error.code).toBe("user_exists");
    expect(await api.prisma.user.count({ where: { name: "carol" } })).toBe(1);
  });

  it("refuses a bad name or role with 400 naming the field", async () => {
    for (const name of ["", "has space", "-leading-dash", "x".repeat(65), "ünïcode"]) {
      const response = await requestJson(`${api.url}/api/users`, { token: api.adminToken, body: { name } });
      expect(response.status, name).toBe(400);
      expect(response.body.error.code).toBe("invalid_request");
      expect(response.body.error.details.field).toBe("name");
    }
    const role = await requestJson(`${api.url}/api/users`, { token: api.adminToken, body: { name: "dave", role: "root" } });
    expect(role.status).toBe(400);
    expect(role.body.error.details.field).toBe("role");
    const missing = await requestJson(`${api.url}/api/users`, { token: api.adminToken, body: {} });
    expect(missing.status).toBe(400);
    expect(missing.body.error.details.field).toBe("name");
  });
});
