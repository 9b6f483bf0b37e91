import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { rawRequest, requestJson, startTestApi, type TestApi } from "./support/test-api.ts";

let api: TestApi;
let workspaceId: string;

beforeAll(async () => {
  api = await startTestApi();
  const workspace = await requestJson(`${api.url}/api/workspaces`, { token: api.adminToken, body: { name: "errors" } });
  workspaceId = workspace.body.id;
});

afterAll(async () => {
  await api?.close();
});

/** Every non-2xx body is {error: {code, message, details?}} (API.md, "Errors"). */
function expectErrorShape(body: any, code: string): void {
  expect(body).toEqual({ error: expect.objectContaining({ code, message: expect.any(String) }) });
  expect(body.error.message.length).toBeGreaterThan(0);
}

describe("error responses", () => {
  it("answers malformed JSON with 400 invalid_request saying the body is not valid JSON", async () => {
    const response = await requestJson(`${api.url}/api/workspaces`, { token: api.adminToken, body: '{"name": "x",' });
    expect(response.status).toBe(400);
    expectErrorShape(response.body, "invalid_request");
    expect(response.body.error.details.reason).toMatch(/not valid JSON/);
  });

  it("answers a body over BODY_LIMIT with 413 payload_too_large", async () => {
    const content = "x".repeat(2 * 1024 * 1024);
    const response = await requestJson(`${api.url}/api/workspaces/${workspaceId}/files/big.txt`, {
      method: "PUT",
      token: api.adminToken,
      body: { content },
    });
    expect(response.status).toBe(413);
    expectErrorShape(response.body, "payload_too_large");
    const missing = await requestJson(`${api.url}/api/workspaces/${workspaceId}/files/big.txt`, { token: api.adminToken });
    expect(missing.status).toBe(404);
  });

  it("answers wrong types with 400 invalid_request naming the field", async () => {
    const response = await requestJson(`${api.url}/api/users`, { token: api.adminToken, body: { name: ["not", "a", "string"] } });
    expect(response.status).toBe(400);
    expectErrorShape(response.body, "invalid_request");
    expect(response.body.error.details.field).toBe("name");
    expect(response.body.error.details.issues).toEqual(expect.arrayContaining([expect.objectContaining({ field: "name" })]));
  });

  it("answers a JSON body that is not an object, and a missing body, with 400", async () => {
    const array = await requestJson(`${api.url}/api/workspaces`, { token: api.adminToken, body: "[1,2]" });
    expect(array.status).toBe(400);
    expectErrorShape(array.body, "invalid_request");
    const scalar = await requestJson(`${api.url}/api/workspaces`, { token: api.adminToken, body: '"just a string"' });
    expect(scalar.status).toBe(400);
    expectErrorShape(scalar.body, "invalid_request");
    const none = await requestJson(`${api.url}/api/workspaces`, { method: "POST", token: api.adminToken });
    expect(none.status).toBe(400);
    expectErrorShape(none.body, "invalid_request");
  });

  it("answers a non-JSON content type with 415 unsupported_media_type", async () => {
    const response = await requestJson(`${api.url}/api/workspaces`, {
      token: api.adminToken,
      body: "name=x",
      headers: { "content-type": "application/x-www-form-urlencoded" },
    });
    expect(response.status).toBe(415);
    expectErrorShape(response.body, "unsupported_media_type");
  });

  it("answers unknown routes and unknown methods with a 404 JSON error", async () => {
    const unknownApi = await requestJson(`${api.url}/api/nothing-here`, { token: api.adminToken });
    expect(unknownApi.status).toBe(404);
    expectErrorShape(unknownApi.body, "not_found");
    const unknownRoot = await requestJson(`${api.url}/nothing-here`);
    expect(unknownRoot.status).toBe(404);
    expectErrorShape(unknownRoot.body, "not_found");
    const wrongMethod = await requestJson(`${api.url}/api/workspaces`, { method: "DELETE", token: api.adminToken });
    expect(wrongMethod.status).toBe(404);
    expectErrorShape(wrongMethod.body, "not_found");
  });

  it("answers invalid percent-encoding in the path with 400, not 500", async () => {
    const response = await rawRequest(api.url, {
      path: `/api/workspaces/${workspaceId}/files/%zz.txt`,
      headers: { authorization: `Bearer ${api.adminToken}` },
    });
    expect(response.status).toBe(400);
    expectErrorShape(response.json, "invalid_request");
    const inId = await rawRequest(api.url, { path: "/api/workspaces/%E0%A4%A/files/a.txt", headers: { authorization: `Bearer ${api.adminToken}` } });
    expect(inId.status).toBe(400);
  });

  it("answers oversized headers with 431 and a JSON error", async () => {
    const response = await rawRequest(api.url, { path: "/api/me", headers: { authorization: `Bearer ${api.adminToken}`, "x-filler": "a".repeat(20_000) } });
    expect(response.status).toBe(431);
    expectErrorShape(response.json, "headers_too_large");
  });

  it("answers a query with odd types without a 500", async () => {
    const response = await requestJson(`${api.url}/api/workspaces?token[]=x&a[b]=c&a=1`, { token: api.adminToken });
    expect(response.status).toBe(200);
    const ws = await requestJson(`${api.url}/api/ws?token[]=x&token=y`);
    expect(ws.status).toBe(401);
  });

  it("answers a NUL character anywhere in a body, a path or a query with 400 naming the field, and stores nothing", async () => {
    // Postgres text and jsonb cannot hold U+0000: such input must be refused up front, not fail in the database as a 500.
    const token = api.adminToken;
    const chat = await requestJson(`${api.url}/api/chats`, { token, body: { title: "nul probe" } });
    expect(chat.status).toBe(201);
    const chatId: string = chat.body.id;
    const chatsBefore = await api.prisma.chat.count();
    const bodies: [string, string, unknown, string][] = [
      ["POST", "/api/chats", { title: "a\u0000b" }, "title"],
      ["POST", `/api/chats/${chatId}/runs`, { input: "hello\u0000world" }, "input"],
      ["POST", `/api/chats/${chatId}/runs`, { input: "hello", idempotency_key: "k\u0000" }, "idempotency_key"],
      ["POST", `/api/chats/${chatId}/runs`, { input: "hello", model: "m\u0000" }, "model"],
      ["POST", "/api/workspaces", { name: "w\u0000" }, "name"],
      ["POST", "/api/users", { name: "u\u0000" }, "name"],
      [
        "POST",
        "/api/approvals",
        { tool_approval_id: "ta_1", tool_approval_decision: "allow_task", arguments: { path: "x", nested: ["ok", "b\u0000"] } },
        "arguments.nested.1",
      ],
      ["POST", "/api/approvals", { tool_approval_id: "ta_1", tool_approval_decision: "allow_task", arguments: { "key\u0000": 1 } }, "arguments.key\u0000"],
      ["PATCH", "/api/settings", { web_fetch_allow: ["example.com", "a\u0000"] }, "web_fetch_allow.1"],
    ];
    for (const [method, path, body, field] of bodies) {
      const response = await requestJson(`${api.url}${path}`, { method, token, body });
      expect({ method, path, status: response.status }).toEqual({ method, path, status: 400 });
      expectErrorShape(response.body, "invalid_request");
      expect(response.body.error.details.field).toBe(field);
      expect(response.body.error.message).toMatch(/NUL/);
    }
    expect(await api.prisma.chat.count()).toBe(chatsBefore);
    expect(await api.prisma.run.count({ where: { chatId } })).toBe(0);
    const paths = [`/api/runs/run%00x`, `/api/chats/%00`, `/api/runs/r%00/events`, `/api/chats/${chatId}/grants/g%00`, `/api/tools?workspace_id=w%00`];
    for (const path of paths) {
      const method = path.includes("/grants/") ? "DELETE" : "GET";
      const response = await rawRequest(api.url, { method, path, headers: { authorization: `Bearer ${token}` } });
      expect({ path, status: response.status }).toEqual({ path, status: 400 });
      expectErrorShape(response.json, "invalid_request");
    }
  });

  it("answers deeply nested bodies, valid or cut off, with 400 and stores nothing", async () => {
    const token = api.adminToken;
    const chat = await requestJson(`${api.url}/api/chats`, { token, body: { title: "deep probe" } });
    const chatId: string = chat.body.id;
    const chatsBefore = await api.prisma.chat.count();
    const deepArray = (depth: number) => `${"[".repeat(depth)}${"]".repeat(depth)}`;
    const deepObject = (depth: number) => `${'{"a":'.repeat(depth)}1${"}".repeat(depth)}`;
    const bodies = [
      `{"title": ${deepArray(5000)}}`,
      `{"title": ${deepObject(5000)}}`,
      "[".repeat(20_000),
      `{"input": "x", "metadata": ${"{".repeat(20_000)}`,
      // One level over the limit is enough.
      `{"title": ${deepArray(64)}}`,
    ];
    const targets: [string, string][] = [
      ["POST", "/api/chats"],
      ["POST", `/api/chats/${chatId}/runs`],
      ["PUT", `/api/workspaces/${workspaceId}/files/deep.txt`],
      ["POST", "/api/approvals"],
      ["PATCH", "/api/settings"],
    ];
    for (const [method, path] of targets) {
      for (const body of bodies) {
        const response = await requestJson(`${api.url}${path}`, { method, token, body });
        expect({ method, path, status: response.status, size: body.length }).toEqual({ method, path, status: 400, size: body.length });
        expectErrorShape(response.body, "invalid_request");
        expect(response.body.error.message).toMatch(/64 levels/);
      }
    }
    // 63 levels inside the body object is within the limit: refused by validation (wrong type), not by depth.
    const allowed = await requestJson(`${api.url}/api/chats`, { token, body: `{"title": ${deepArray(63)}}` });
    expect(allowed.status).toBe(400);
    expect(allowed.body.error.details.field).toBe("title");
    expect(await api.prisma.chat.count()).toBe(chatsBefore);
    expect(await api.prisma.run.count({ where: { chatId } })).toBe(0);
    expect((await requestJson(`${api.url}/api/workspaces/${workspaceId}/files/deep.txt`, { token })).status).toBe(404);
  });

  it("echoes a sane X-Request-Id and replaces an unsafe one", async () => {
    const kept = await requestJson(`${api.url}/api/me`, { token: api.adminToken, headers: { "x-request-id": "client-id-123" } });
    expect(kept.headers.get("x-request-id")).toBe("client-id-123");
    const replaced = await requestJson(`${api.url}/api/me`, { token: api.adminToken, headers: { "x-request-id": "bad id\twith spaces" } });
    expect(replaced.headers.get("x-request-id")).toMatch(/^[0-9a-f-]{36}$/);
    const generated = await requestJson(`${api.url}/healthz`);
    expect(generated.headers.get("x-request-id")).toMatch(/^[0-9a-f-]{36}$/);
  });
});

describe("unexpected failures", () => {
  it("are 500 internal_error with the request id, logged, and leak nothing", async () => {
    const broken = await startTestApi();
    try {
      // A real failure that is no outage (Postgres and Redis answer): a table disappears under the running server.
      await broken.prisma.$executeRawUnsafe("DROP TABLE users CASCADE");
      const response = await requestJson(`${broken.url}/api/me`, {
        token: broken.adminToken,
        headers: { "x-request-id": "req-broken-1" },
      });
      expect(response.status).toBe(500);
      expectErrorShape(response.body, "internal_error");
      expect(response.body.error.details.request_id).toBe("req-broken-1");
      expect(JSON.stringify(response.body)).not.toMatch(/prisma|postgres|database|stack|agentq_test_/i);
      const logged = broken.logs.filter((line) => line.includes('"request_id":"req-broken-1"') && line.includes('"err"'));
      expect(logged.length).toBeGreaterThan(0);
    } finally {
      await broken.close();
    }
  });
});
