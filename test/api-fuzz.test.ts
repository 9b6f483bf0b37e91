// Every route of the OpenAPI document, sent input that does not fit: wrong JSON types, odd query values,
// ids that exist for someone else or not at all, path parameters with encodings a client should not send.
// A client's mistake is never a 500: each answer is a 4xx (or a 2xx when the input happens to be
// acceptable) in the API's error shape, and a non-admin never gets past an admin route.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { API_ROUTE_GROUPS } from "../apps/api/src/api-route-groups.ts";
import { errorResponseSchema } from "../apps/api/src/schemas/error-schemas.ts";
import { startTestStack, type TestStack } from "./support/test-stack.ts";

let stack: TestStack;
let user: { id: string; token: string };
/** Real ids of the admin's resources: a request with them from `user` must be 404, like a made-up id. */
const adminIds: Record<string, string> = {};

beforeAll(async () => {
  stack = await startTestStack();
  user = await stack.createUser("fuzzed-user");
  adminIds.workspace = await stack.createWorkspace();
  adminIds.chat = await stack.createChat({ workspaceId: adminIds.workspace });
  adminIds.run = await stack.run(adminIds.chat, { input: "hello" });
  await stack.waitForRun(adminIds.run);
});

afterAll(async () => {
  await stack?.close();
});

const BODIES: unknown[] = [
  null,
  [],
  "text",
  42,
  { unexpected: true },
  { input: 42, name: ["x"], title: { nested: 1 }, content: 7, workspace_id: 5, tool_approval_id: null, limit: "many" },
  { input: "", name: "", title: "", content: "", tool_approval_id: "", tool_approval_decision: "maybe" },
  { input: "x".repeat(10_000), name: "n".repeat(10_000), title: "t".repeat(10_000), agent_max_rounds: -1, web_fetch_allow: "all" },
];

const QUERIES = [
  "?limit=-1",
  "?limit=abc&before=%FF",
  "?after=-5&status=everything",
  "?path=../../etc&workspace_id=nope",
  "?limit[]=1&mode[x]=y",
  "?allow_bash=maybe",
];

const PATH_VALUES = ["does-not-exist", "%20", "a%2Fb", "x".repeat(300), "run_%E2%80%AE", "..%2F..%2Fetc"];

/** The route's path with every parameter set to `value` (a file path parameter to a plain name). */
function fill(path: string, value: string): string {
  return path.replace(/:\w+/g, value).replace(/\*\w+/g, "notes.txt");
}

function withOwnedIds(path: string): string {
  // The admin's own ids in the path, asked by someone else.
  const kind = path.startsWith("/api/workspaces") ? "workspace" : path.startsWith("/api/chats") ? "chat" : path.startsWith("/api/runs") ? "run" : undefined;
  return kind ? fill(path.replace(":id", adminIds[kind]!), "x") : fill(path, "x");
}

async function expectClientError(method: string, path: string, options: { token?: string; body?: unknown }): Promise<number> {
  const result = await stack.request(method.toUpperCase(), path, options);
  const where = `${method.toUpperCase()} ${path} ${JSON.stringify(options.body)?.slice(0, 80) ?? ""} → ${result.status} ${JSON.stringify(result.body)?.slice(0, 200)}`;
  expect(result.status, where).toBeLessThan(500);
  if (result.status >= 400) expect(errorResponseSchema.safeParse(result.body).success, where).toBe(true);
  return result.status;
}

const routes = API_ROUTE_GROUPS.flatMap((group) => group.routes).filter((route) => route.path.startsWith("/api/") && route.path !== "/api/openapi.json");

describe("fuzzing every route of the API", () => {
  it("covers the whole API", () => {
    expect(routes.length).toBeGreaterThan(25);
  });

  // One test per route: each gets the whole test timeout, however many routes the API grows.
  it.each(routes.map((route) => [`${route.method.toUpperCase()} ${route.path}`, route] as const))(
    "answers malformed bodies and queries to %s, as admin and as a user, without a 500",
    async (_name, route) => {
      for (const token of [stack.api.adminToken, user.token]) {
        const path = fill(route.path, "does-not-exist");
        for (const query of QUERIES) await expectClientError(route.method, `${path}${query}`, { token });
        if (route.method === "post" || route.method === "put" || route.method === "patch") {
          for (const body of BODIES) await expectClientError(route.method, path, { token, body });
        }
      }
    },
  );

  it("answers odd path parameters without a 500", async () => {
    for (const route of routes.filter((candidate) => /[:*]/.test(candidate.path))) {
      for (const value of PATH_VALUES) await expectClientError(route.method, fill(route.path, value), { body: route.method === "get" ? undefined : {} });
    }
  });

  it("answers someone else's resources with 404, and admin routes with 403, whatever the input", async () => {
    for (const route of routes) {
      const body = route.method === "get" || route.method === "delete" ? undefined : { input: "hi", content: "x", name: "n" };
      const status = await expectClientError(route.method, withOwnedIds(route.path), { token: user.token, body });
      if (route.access === "admin") expect(status, `${route.method} ${route.path}`).toBe(403);
      else if (/:id/.test(route.path) && /^\/api\/(workspaces|chats|runs)\//.test(route.path)) {
        expect([400, 404], `${route.method} ${withOwnedIds(route.path)} as another user`).toContain(status);
      }
    }
    // Nothing of the admin's changed hands: the chat still has its one run.
    expect((await stack.request("GET", `/api/chats/${adminIds.chat}/runs`)).body.runs).toHaveLength(1);
  });
});
