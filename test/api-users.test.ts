// User management (API.md "Team operations", without the limit fields): list, change role, disable,
// rotate a token; the last enabled admin guard; who may do what.
import { createHash } from "node:crypto";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import WebSocket from "ws";
import { updateUser } from "@agentq/core";
import { requestJson, startTestApi, type TestApi } from "./support/test-api.ts";

let api: TestApi;
let adminId: string;

/** The event streams' heartbeat here (default 15 s): a stream's token is looked up again this often. */
const SSE_HEARTBEAT_MS = 300;

beforeAll(async () => {
  api = await startTestApi({ config: { sseHeartbeatMs: SSE_HEARTBEAT_MS } });
  adminId = (await requestJson(`${api.url}/api/me`, { token: api.adminToken })).body.id;
});

afterAll(async () => {
  await api?.close();
});

interface CreatedUser {
  id: string;
  name: string;
  role: "admin" | "user";
  token: string;
}

async function createUser(name: string, role: "admin" | "user" = "user"): Promise<CreatedUser> {
  const response = await requestJson(`${api.url}/api/users`, { token: api.adminToken, body: { name, role } });
  expect(response.status).toBe(201);
  return response.body;
}

function patchUser(userId: string, body: unknown, token = api.adminToken) {
  return requestJson(`${api.url}/api/users/${encodeURIComponent(userId)}`, { method: "PATCH", token, body });
}

/** A user's own limits as a new user has them: none (the deployment's settings apply). */
const NO_OWN_LIMITS = { max_active_runs: null, runs_per_day: null, tokens_per_day: null };

function rotateToken(userId: string, token = api.adminToken) {
  return requestJson(`${api.url}/api/users/${encodeURIComponent(userId)}/token`, { method: "POST", token });
}

async function meStatus(token: string): Promise<number> {
  return (await requestJson(`${api.url}/api/me`, { token })).status;
}

/** Opens /api/ws with the token and resolves with the status of the upgrade's answer (101 when it opened). */
function upgradeStatus(token: string): Promise<number> {
  return new Promise((resolve, reject) => {
    const socket = new WebSocket(`${api.url.replace("http", "ws")}/api/ws?token=${encodeURIComponent(token)}`);
    socket.once("open", () => {
      socket.close();
      resolve(101);
    });
    socket.once("unexpected-response", (_request, response) => {
      resolve(response.statusCode ?? 0);
      socket.terminate();
    });
    socket.once("error", reject);
  });
}

/** An open /api/ws connection: the messages it got, and the close code once it closed. */
async function openSocket(token: string) {
  const socket = new WebSocket(`${api.url.replace("http", "ws")}/api/ws?token=${encodeURIComponent(token)}`);
  const messages: { type: string; code?: string }[] = [];
  socket.on("message", (data) => messages.push(JSON.parse(data.toString())));
  const closed = new Promise<number>((resolve) => socket.once("close", (code) => resolve(code)));
  await new Promise<void>((resolve, reject) => {
    socket.once("open", () => resolve());
    socket.once("error", reject);
  });
  return { socket, messages, closed };
}

describe("GET /api/users", () => {
  it("lists every user, oldest first, with role, disabled and created_at and no token", async () => {
    const erin = await createUser("erin");
    const response = await requestJson(`${api.url}/api/users`, { token: api.adminToken });
    expect(response.status).toBe(200);
    const users = response.body.users as { id: string; name: string; created_at: string }[];
    const usage = { active_runs: 0, runs_today: 0, tokens_today: 0 };
    const limits = { max_active_runs: 20, runs_per_day: 0, tokens_per_day: 0 };
    expect(users[0]).toEqual({ id: adminId, name: "admin", role: "admin", disabled: false, ...NO_OWN_LIMITS, usage, limits, created_at: expect.any(String) });
    expect(users.find((user) => user.id === erin.id)).toEqual({
      id: erin.id,
      name: "erin",
      role: "user",
      disabled: false,
      ...NO_OWN_LIMITS,
      usage,
      limits,
      created_at: expect.any(String),
    });
    expect(new Date(users.find((user) => user.id === erin.id)!.created_at).toISOString()).toBe(users.find((user) => user.id === erin.id)!.created_at);
    const createdAt = users.map((user) => Date.parse(user.created_at));
    expect(createdAt).toEqual([...createdAt].sort((a, b) => a - b));
    expect(JSON.stringify(response.body)).not.toContain(erin.token);
    // Usage and limits, never anything of the user's chats or runs.
    expect(Object.keys(users[0]!).sort()).toEqual([
      "created_at",
      "disabled",
      "id",
      "limits",
      "max_active_runs",
      "name",
      "role",
      "runs_per_day",
      "tokens_per_day",
      "usage",
    ]);
  });

  it("is refused to a non-admin with 403 forbidden", async () => {
    const frank = await createUser("frank");
    const response = await requestJson(`${api.url}/api/users`, { token: frank.token });
    expect(response.status).toBe(403);
    expect(response.body.error.code).toBe("forbidden");
  });
});

describe("PATCH /api/users/:id", () => {
  it("changes a user's role: a promoted user may use admin routes, a demoted one may not", async () => {
    const grace = await createUser("grace");
    const promoted = await patchUser(grace.id, { role: "admin" });
    expect(promoted.status).toBe(200);
    expect(promoted.body).toEqual({ id: grace.id, name: "grace", role: "admin", disabled: false, ...NO_OWN_LIMITS, created_at: expect.any(String) });
    expect((await requestJson(`${api.url}/api/users`, { token: grace.token })).status).toBe(200);

    const demoted = await patchUser(grace.id, { role: "user" });
    expect(demoted.status).toBe(200);
    expect(demoted.body.role).toBe("user");
    expect((await requestJson(`${api.url}/api/users`, { token: grace.token })).status).toBe(403);
  });

  it("disables a user: their token answers 401 on HTTP and on the WebSocket upgrade at once, and works again once enabled", async () => {
    const heidi = await createUser("heidi");
    expect(await meStatus(heidi.token)).toBe(200);
    expect(await upgradeStatus(heidi.token)).toBe(101);

    const disabled = await patchUser(heidi.id, { disabled: true });
    expect(disabled.status).toBe(200);
    expect(disabled.body).toMatchObject({ id: heidi.id, disabled: true, role: "user" });

    const refused = await requestJson(`${api.url}/api/me`, { token: heidi.token });
    expect(refused.status).toBe(401);
    expect(refused.body.error.code).toBe("unauthorized");
    expect((await requestJson(`${api.url}/api/chats`, { token: heidi.token, body: { title: "x" } })).status).toBe(401);
    expect(await upgradeStatus(heidi.token)).toBe(401);
    // The user stays listed, marked disabled.
    const listed = (await requestJson(`${api.url}/api/users`, { token: api.adminToken })).body.users.find((user: { id: string }) => user.id === heidi.id);
    expect(listed.disabled).toBe(true);

    expect((await patchUser(heidi.id, { disabled: false })).body.disabled).toBe(false);
    expect(await meStatus(heidi.token)).toBe(200);
    expect(await upgradeStatus(heidi.token)).toBe(101);
  });

  it("refuses to leave no enabled admin with 409 last_admin, and allows it while another admin is enabled", async () => {
    for (const body of [{ role: "user" }, { disabled: true }, { role: "user", disabled: true }]) {
      const refused = await patchUser(adminId, body);
      expect(refused.status, JSON.stringify(body)).toBe(409);
      expect(refused.body.error.code).toBe("last_admin");
    }
    // A disabled admin does not count.
    const ivan = await createUser("ivan", "admin");
    expect((await patchUser(ivan.id, { disabled: true })).status).toBe(200);
    expect(await meStatus(ivan.token)).toBe(401);
    expect((await patchUser(adminId, { role: "user" })).body.error.code).toBe("last_admin");

    // With another enabled admin, an admin may step down (here: disable themselves).
    expect((await patchUser(ivan.id, { disabled: false })).status).toBe(200);
    const selfDisabled = await patchUser(ivan.id, { disabled: true }, ivan.token);
    expect(selfDisabled.status).toBe(200);
    expect(await meStatus(ivan.token)).toBe(401);
    expect(await meStatus(api.adminToken)).toBe(200);

    const users = (await requestJson(`${api.url}/api/users`, { token: api.adminToken })).body.users as { id: string; role: string; disabled: boolean }[];
    expect(users.find((user) => user.id === adminId)).toMatchObject({ role: "admin", disabled: false });
  });

  it("lets exactly one of two demotions that would each leave one admin succeed when they race", async () => {
    // In-process, through core: over HTTP the loser is often refused earlier (403, its caller already
    // demoted), which would not exercise the row locks at all.
    for (let attempt = 0; attempt < 5; attempt += 1) {
      const deputy = await createUser(`deputy-${attempt}`, "admin");
      const outcomes = await Promise.allSettled([updateUser(api.prisma, deputy.id, { role: "user" }), updateUser(api.prisma, adminId, { disabled: true })]);
      const refused = outcomes.filter((outcome) => outcome.status === "rejected");
      expect(refused).toHaveLength(1);
      expect((refused[0] as PromiseRejectedResult).reason).toMatchObject({ code: "last_admin" });
      expect(await api.prisma.user.count({ where: { role: "admin", disabled: false } })).toBe(1);
      // Put the bootstrap admin back for the rest of the file.
      await updateUser(api.prisma, adminId, { role: "admin", disabled: false });
      await updateUser(api.prisma, deputy.id, { disabled: true });
    }
    expect(await meStatus(api.adminToken)).toBe(200);
  });

  it("refuses a non-admin with 403, even for their own id, and changes nothing", async () => {
    const karl = await createUser("karl");
    for (const target of [karl.id, adminId]) {
      const response = await patchUser(target, { role: "admin" }, karl.token);
      expect(response.status).toBe(403);
      expect(response.body.error.code).toBe("forbidden");
    }
    expect(await api.prisma.user.findUniqueOrThrow({ where: { id: karl.id } })).toMatchObject({ role: "user", disabled: false });
  });

  it("refuses bad input with 400 invalid_request naming the field", async () => {
    const laura = await createUser("laura");
    const cases: [unknown, string][] = [
      [{ role: "root" }, "role"],
      [{ disabled: "yes" }, "disabled"],
      [{ disabled: null }, "disabled"],
      [{ max_active_runs: 0 }, "max_active_runs"],
      [{ max_active_runs: 2.5 }, "max_active_runs"],
      [{ role: "user", tokens_per_day: -1 }, "tokens_per_day"],
      [{ runs_per_day: "10" }, "runs_per_day"],
      [{}, "(root)"],
      [[], "(root)"],
    ];
    for (const [body, field] of cases) {
      const response = await patchUser(laura.id, body);
      expect(response.status, JSON.stringify(body)).toBe(400);
      expect(response.body.error.code).toBe("invalid_request");
      expect(response.body.error.details.field, JSON.stringify(body)).toBe(field);
    }
    expect(await api.prisma.user.findUniqueOrThrow({ where: { id: laura.id } })).toMatchObject({ role: "user", disabled: false });
  });

  it("answers an unknown user with 404 not_found", async () => {
    const response = await patchUser("usr_does-not-exist", { disabled: true });
    expect(response.status).toBe(404);
    expect(response.body.error.code).toBe("not_found");
  });
});

describe("a WebSocket opened before the token stopped working", () => {
  it("is closed (4401) at its next subscribe once the user is disabled or the token replaced", async () => {
    const rupert = await createUser("rupert");
    const before = await openSocket(rupert.token);
    // While the token works, a subscribe to an unknown run is just not_found.
    before.socket.send(JSON.stringify({ type: "subscribe", run_id: "run_missing" }));
    await expect.poll(() => before.messages.map((message) => message.code)).toContain("not_found");

    await patchUser(rupert.id, { disabled: true });
    before.socket.send(JSON.stringify({ type: "subscribe", run_id: "run_missing" }));
    expect(await before.closed).toBe(4401);
    expect(before.messages.at(-1)).toMatchObject({ type: "error", code: "unauthorized" });

    await patchUser(rupert.id, { disabled: false });
    const beforeRotation = await openSocket(rupert.token);
    await rotateToken(rupert.id);
    beforeRotation.socket.send(JSON.stringify({ type: "subscribe", run_id: "run_missing" }));
    expect(await beforeRotation.closed).toBe(4401);
  });
});

describe("an event stream opened before the token stopped working", () => {
  it("stays open across heartbeats while the token works, ends at the next one once the user is disabled, and reconnecting is 401", async () => {
    const sybil = await createUser("sybil");
    const chat = await requestJson(`${api.url}/api/chats`, { token: sybil.token, body: { title: "streamed" } });
    expect(chat.status).toBe(201);
    // No worker here: the run stays queued, so its stream stays open until something ends it.
    const run = await requestJson(`${api.url}/api/chats/${chat.body.id}/runs`, { token: sybil.token, body: { input: "hello" } });
    expect(run.status).toBeLessThan(300);
    const eventsUrl = `${api.url}/api/runs/${run.body.id}/events`;
    const stream = await fetch(eventsUrl, { headers: { authorization: `Bearer ${sybil.token}`, accept: "text/event-stream" } });
    expect(stream.status).toBe(200);
    const reader = stream.body!.getReader();
    const decoder = new TextDecoder();
    // Two heartbeats go by with the token still working: the stream stays open through them.
    let received = "";
    while (received.split(": keep-alive").length - 1 < 2) {
      const chunk = await reader.read();
      expect(chunk.done).toBe(false);
      received += decoder.decode(chunk.value, { stream: true });
    }

    await patchUser(sybil.id, { disabled: true });
    const startedWaiting = Date.now();
    while (!(await reader.read()).done) {
      // keep-alive comments until the heartbeat that finds the token refused
    }
    // Ended at a heartbeat soon after (a few of them, on a loaded machine), not left open.
    expect(Date.now() - startedWaiting).toBeLessThan(SSE_HEARTBEAT_MS + 5_000);
    const again = await fetch(eventsUrl, { headers: { authorization: `Bearer ${sybil.token}`, accept: "text/event-stream" } });
    expect(again.status).toBe(401);
  });
});

describe("POST /api/users/:id/token", () => {
  it("gives a new token shown once: the old one answers 401 at once, the new one 200, and only its hash is stored", async () => {
    const mallory = await createUser("mallory");
    const rotated = await rotateToken(mallory.id);
    expect(rotated.status).toBe(201);
    expect(rotated.body).toEqual({ token: expect.stringMatching(/^aq_[A-Za-z0-9_-]{43}$/) });
    const token = rotated.body.token as string;
    expect(token).not.toBe(mallory.token);

    expect(await meStatus(mallory.token)).toBe(401);
    expect(await upgradeStatus(mallory.token)).toBe(401);
    const me = await requestJson(`${api.url}/api/me`, { token });
    expect(me.status).toBe(200);
    expect(me.body.id).toBe(mallory.id);

    const rows = await api.prisma.apiToken.findMany({ where: { userId: mallory.id } });
    expect(rows.map((row) => row.tokenHash)).toEqual([createHash("sha256").update(token).digest("hex")]);
    const everyStoredValue = JSON.stringify(await api.prisma.apiToken.findMany()) + JSON.stringify(await api.prisma.user.findMany());
    expect(everyStoredValue).not.toContain(token.slice(3));
  });

  it("lets a user rotate their own token, and answers someone else's id with 404", async () => {
    const niaj = await createUser("niaj");
    const olivia = await createUser("olivia");
    const own = await rotateToken(niaj.id, niaj.token);
    expect(own.status).toBe(201);
    expect(await meStatus(niaj.token)).toBe(401);
    expect(await meStatus(own.body.token)).toBe(200);

    for (const target of [olivia.id, adminId]) {
      const refused = await rotateToken(target, own.body.token);
      expect(refused.status).toBe(404);
      expect(refused.body.error.code).toBe("not_found");
    }
    expect(await meStatus(olivia.token)).toBe(200);
    expect(await meStatus(api.adminToken)).toBe(200);
  });

  it("refuses a run's creation, whose own statement checks the token, with a rotated or a disabled user's token: 401, nothing created", async () => {
    const quentin = await createUser("quentin");
    const chat = await requestJson(`${api.url}/api/chats`, { token: quentin.token, body: {} });
    expect(chat.status).toBe(201);
    const start = (token: string, body: unknown = { input: "hello", multitask: "enqueue" }) =>
      requestJson(`${api.url}/api/chats/${chat.body.id}/runs`, { token, body });
    const runsOfChat = () => api.prisma.run.count({ where: { chatId: chat.body.id } });
    expect((await start(quentin.token)).status).toBe(202);

    const rotated = await rotateToken(quentin.id);
    // One statement (enqueue), a transaction (a key, an interrupt), and a bad body: the token comes first.
    for (const body of [
      { input: "hello", multitask: "enqueue" },
      { input: "hello", idempotency_key: "k-1" },
      { input: "hello", multitask: "interrupt" },
      { input: 42 },
    ]) {
      const refused = await start(quentin.token, body);
      expect(refused.status, JSON.stringify(body)).toBe(401);
      expect(refused.body.error.code).toBe("unauthorized");
    }
    expect(await runsOfChat()).toBe(1);

    const created = await start(rotated.body.token);
    expect(created.status).toBe(202);
    expect(created.body).toMatchObject({ chat_id: chat.body.id, status: "queued" });
    // Someone else's chat is still 404 for a token that works.
    const other = await createUser("ruth");
    expect((await start(other.token)).status).toBe(404);

    await patchUser(quentin.id, { disabled: true });
    expect((await start(rotated.body.token)).status).toBe(401);
    expect(await runsOfChat()).toBe(2);
  });

  it("answers an unknown user with 404, and a disabled user's new token with 401 until they are enabled", async () => {
    expect((await rotateToken("usr_does-not-exist")).status).toBe(404);
    const peggy = await createUser("peggy");
    await patchUser(peggy.id, { disabled: true });
    const rotated = await rotateToken(peggy.id);
    expect(rotated.status).toBe(201);
    expect(await meStatus(rotated.body.token)).toBe(401);
    await patchUser(peggy.id, { disabled: false });
    expect(await meStatus(rotated.body.token)).toBe(200);
    expect(await meStatus(peggy.token)).toBe(401);
  });
});
