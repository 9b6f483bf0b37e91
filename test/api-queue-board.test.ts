// The queue board (issue 18): Bull Board over the run queue at /admin/queues, opened with the session
// cookie an admin's POST /api/queue-board/session sets; nobody else gets in, a demoted admin is refused
// at once, and it is read-only unless the setting queue_board_actions allows actions.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startTestApi, type TestApi } from "./support/test-api.ts";

let api: TestApi;

beforeAll(async () => {
  api = await startTestApi();
});

afterAll(async () => {
  await api?.close();
});

async function session(token: string): Promise<{ status: number; cookie: string | undefined }> {
  const response = await fetch(`${api.url}/api/queue-board/session`, { method: "POST", headers: { authorization: `Bearer ${token}` } });
  return { status: response.status, cookie: response.headers.get("set-cookie")?.split(";")[0] };
}

function board(path: string, cookie?: string) {
  return fetch(`${api.url}/admin/queues${path}`, { headers: cookie ? { cookie } : {} });
}

async function createUser(name: string, role: "admin" | "user"): Promise<{ id: string; token: string }> {
  const response = await fetch(`${api.url}/api/users`, {
    method: "POST",
    headers: { authorization: `Bearer ${api.adminToken}`, "content-type": "application/json" },
    body: JSON.stringify({ name, role }),
  });
  return (await response.json()) as { id: string; token: string };
}

describe("the queue board", () => {
  it("opens for an admin with the session cookie (HttpOnly, SameSite=Strict, only under /admin/queues) and lists the run queue read-only", async () => {
    const response = await fetch(`${api.url}/api/queue-board/session`, { method: "POST", headers: { authorization: `Bearer ${api.adminToken}` } });
    expect(response.status).toBe(204);
    const setCookie = response.headers.get("set-cookie") ?? "";
    expect(setCookie).toMatch(/^agentq_board=/);
    expect(setCookie).toMatch(/HttpOnly/i);
    expect(setCookie).toMatch(/SameSite=Strict/i);
    expect(setCookie).toMatch(/Path=\/admin\/queues/);
    const cookie = setCookie.split(";")[0]!;
    const page = await board("/", cookie);
    expect(page.status).toBe(200);
    expect(await page.text()).toMatch(/<html/i);
    const queues = await board("/api/queues", cookie);
    expect(queues.status).toBe(200);
    const body = (await queues.json()) as { queues: { name: string; readOnlyMode: boolean }[] };
    expect(body.queues.map((queue) => queue.name)).toEqual(["runs"]);
    expect(body.queues[0]?.readOnlyMode).toBe(true);
  });

  it("refuses a non-admin (403), no cookie or a forged one (401), and an admin demoted since (403)", async () => {
    const user = await createUser("board-user", "user");
    expect((await session(user.token)).status).toBe(403);
    expect((await board("/")).status).toBe(401);
    expect((await board("/api/queues", "agentq_board=usr_x.99999999999999.AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA")).status).toBe(401);

    const second = await createUser("board-admin", "admin");
    const { cookie } = await session(second.token);
    expect((await board("/api/queues", cookie)).status).toBe(200);
    // Another user's valid session does not become theirs by editing the id in it.
    expect((await board("/api/queues", cookie!.replace(second.id, user.id))).status).toBe(401);
    const demoted = await fetch(`${api.url}/api/users/${second.id}`, {
      method: "PATCH",
      headers: { authorization: `Bearer ${api.adminToken}`, "content-type": "application/json" },
      body: JSON.stringify({ role: "user" }),
    });
    expect(demoted.status).toBe(200);
    expect((await board("/api/queues", cookie)).status).toBe(403);
  });

  it("allows actions once the setting says so", async () => {
    const patched = await fetch(`${api.url}/api/settings`, {
      method: "PATCH",
      headers: { authorization: `Bearer ${api.adminToken}`, "content-type": "application/json" },
      body: JSON.stringify({ queue_board_actions: true }),
    });
    expect(patched.status).toBe(200);
    const { cookie } = await session(api.adminToken);
    // The board reads the setting at most every 5 s.
    const deadline = Date.now() + 15_000;
    let readOnly = true;
    while (readOnly && Date.now() < deadline) {
      const body = (await (await board("/api/queues", cookie)).json()) as { queues: { readOnlyMode: boolean }[] };
      readOnly = body.queues[0]?.readOnlyMode ?? true;
      if (readOnly) await new Promise((resolve) => setTimeout(resolve, 500));
    }
    expect(readOnly).toBe(false);
  });
});
