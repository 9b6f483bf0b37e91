import { Validator } from "@seriousme/openapi-schema-validator";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { API_ROUTE_GROUPS } from "../apps/api/src/api-route-groups.ts";
import { toOpenApiPath } from "../apps/api/src/http/api-route.ts";
import { RUN_WEBSOCKET_PATH } from "../apps/api/src/realtime/run-websocket.ts";
import { errorResponseSchema } from "../apps/api/src/schemas/error-schemas.ts";
import { decide, injectedChat, readThen, waitForFinished, waitForParked } from "./support/approval-test-helpers.ts";
import { scenarioInput } from "../packages/core/src/testing/scenario-responder.ts";
import { type HttpResult, startTestStack, type TestStack } from "./support/test-stack.ts";

interface ExpressLayer {
  route?: { path: string; methods: Record<string, boolean> };
  handle?: { stack?: ExpressLayer[] };
}

/** Every `METHOD path` express has a route for, from the app's router stack (routers are mounted at the root). */
function expressRoutes(stack: TestStack): string[] {
  const app = stack.api.server.server.listeners("request")[0] as unknown as { router: { stack: ExpressLayer[] } };
  const found: string[] = [];
  const walk = (layers: ExpressLayer[]) => {
    for (const layer of layers) {
      if (layer.route) {
        for (const [method, enabled] of Object.entries(layer.route.methods))
          if (enabled && method !== "_all") found.push(`${method.toUpperCase()} ${layer.route.path}`);
      } else if (layer.handle?.stack) {
        walk(layer.handle.stack);
      }
    }
  };
  walk(app.router.stack);
  return found;
}

/**
 * Holds a real answer to the response schema its route declares for that status: the body parses,
 * and parsing drops nothing (zod strips undeclared fields, so a field the handler added and the
 * schema does not declare fails here).
 */
function expectDocumented(method: string, pattern: string, result: HttpResult): void {
  const route = API_ROUTE_GROUPS.flatMap((group) => group.routes).find((candidate) => candidate.method === method && candidate.path === pattern);
  if (!route) throw new Error(`no declared route ${method} ${pattern}`);
  if (result.status >= 400) {
    expect(errorResponseSchema.parse(result.body)).toEqual(result.body);
    return;
  }
  const schema = route.responses[result.status as keyof typeof route.responses]?.schema;
  if (!schema) throw new Error(`${method} ${pattern} answered ${result.status}, which it does not declare: ${JSON.stringify(result.body)}`);
  const parsed = schema.safeParse(result.body);
  if (!parsed.success) throw new Error(`${method} ${pattern} ${result.status}: ${parsed.error.message}\n${JSON.stringify(result.body, null, 2)}`);
  expect(parsed.data, `${method} ${pattern}: a field the schema does not declare`).toEqual(result.body);
}

describe("the OpenAPI document (GET /api/openapi.json)", () => {
  let stack: TestStack;
  beforeAll(async () => {
    stack = await startTestStack();
  });
  afterAll(async () => {
    await stack?.close();
  });

  it("is served without a token and validates as OpenAPI 3.1", async () => {
    const response = await fetch(`${stack.url}/api/openapi.json`);
    expect(response.status).toBe(200);
    const document: any = await response.json();
    expect(document.openapi).toMatch(/^3\.1\./);
    const validation = await new Validator().validate(document);
    expect(validation.errors ?? []).toEqual([]);
    expect(validation.valid).toBe(true);
    expect(document.components.securitySchemes.bearer).toMatchObject({ type: "http", scheme: "bearer" });
    expect(document.paths["/api/ws"].get.description).toContain("?token=");
  });

  it("documents every /api route express answers, and no route express does not have", async () => {
    const document = (await stack.request("GET", "/api/openapi.json")).body;
    const documented = Object.entries(document.paths as Record<string, Record<string, unknown>>)
      .flatMap(([path, operations]) => Object.keys(operations).map((method) => `${method.toUpperCase()} ${path}`))
      .sort();
    const installed = expressRoutes(stack)
      .filter((route) => route.split(" ")[1]!.startsWith("/api/"))
      .map((route) => {
        const [method, path] = route.split(" ");
        return `${method} ${toOpenApiPath(path!)}`;
      });
    // The WebSocket is answered by the HTTP server's upgrade handler, not by an express route.
    expect(documented).toEqual([...installed, `GET ${RUN_WEBSOCKET_PATH}`].sort());
    expect(installed.length).toBeGreaterThan(15);
  });

  it("the wildcard file path is one {path} parameter described as a slash-separated path", async () => {
    const document = (await stack.request("GET", "/api/openapi.json")).body;
    const operation = document.paths["/api/workspaces/{id}/files/{path}"].get;
    const path = operation.parameters.find((parameter: { name: string }) => parameter.name === "path");
    expect(path).toMatchObject({ in: "path", required: true });
    expect(path.description).toMatch(/segments separated by `\/`/);
    // What a generated client sends for {path}: the whole path percent-encoded, slashes included.
    const workspaceId = await stack.createWorkspace();
    const written = await stack.request("PUT", `/api/workspaces/${workspaceId}/files/${encodeURIComponent("docs/a b.txt")}`, { body: { content: "x" } });
    expect(written.body).toMatchObject({ path: "docs/a b.txt" });
    expect((await stack.request("GET", `/api/workspaces/${workspaceId}/files/docs/a%20b.txt`)).body).toMatchObject({ path: "docs/a b.txt", content: "x" });
  });

  it("the main routes' real answers match their declared response schemas", async () => {
    const user = await stack.createUser("openapi-user");
    expectDocumented("get", "/api/me", await stack.request("GET", "/api/me", { token: user.token }));
    expectDocumented("post", "/api/users", await stack.request("POST", "/api/users", { body: { name: "openapi-other" } }));
    const userAnswers = [
      ["get", "/api/users", await stack.request("GET", "/api/users")],
      ["patch", "/api/users/:id", await stack.request("PATCH", `/api/users/${user.id}`, { body: { disabled: true } })],
      ["patch", "/api/users/:id", await stack.request("PATCH", `/api/users/${user.id}`, { body: { disabled: false, role: "user" } })],
      ["post", "/api/users/:id/token", await stack.request("POST", `/api/users/${user.id}/token`)],
    ] as const;
    for (const [method, pattern, answer] of userAnswers) {
      expect(answer.status, `${method} ${pattern}`).toBeLessThan(300);
      expectDocumented(method, pattern, answer);
    }
    expectDocumented("get", "/api/settings", await stack.request("GET", "/api/settings"));
    expectDocumented("patch", "/api/settings", await stack.request("PATCH", "/api/settings", { body: { agent_max_rounds: 20 } }));
    expectDocumented("get", "/api/tools", await stack.request("GET", "/api/tools?use_web=true"));
    expectDocumented("get", "/api/jobs", await stack.request("GET", "/api/jobs"));

    const { chatId, workspaceId } = await injectedChat(stack);
    expectDocumented("get", "/api/workspaces", await stack.request("GET", "/api/workspaces"));
    expectDocumented("get", "/api/workspaces/:id/files/*path", await stack.request("GET", `/api/workspaces/${workspaceId}/files/notes.md`));
    expectDocumented(
      "put",
      "/api/workspaces/:id/files/*path",
      await stack.request("PUT", `/api/workspaces/${workspaceId}/files/a/b.txt`, { body: { content: "x" } }),
    );
    expectDocumented("get", "/api/tools", await stack.request("GET", `/api/tools?workspace_id=${workspaceId}&allow_bash=true`));

    // A run that reads, pauses on a write, is allowed for the chat, and finishes: every part of a Run filled in.
    const started = await stack.startRun(chatId, { input: readThen({ tool: "write_file", args: { path: "out.txt", content: "hi" } }, { text: "written" }) });
    expectDocumented("post", "/api/chats/:id/runs", started);
    const parked = await waitForParked(stack, started.body.id);
    expect(parked.pending_approvals).toHaveLength(1);
    expectDocumented("get", "/api/runs/:id", await stack.request("GET", `/api/runs/${started.body.id}`));
    expectDocumented("get", "/api/approvals", await stack.request("GET", "/api/approvals"));
    expectDocumented("post", "/api/approvals", await decide(stack, parked.pending_approvals[0].id, "allow_chat"));
    await waitForFinished(stack, started.body.id);
    expectDocumented("get", "/api/runs/:id", await stack.request("GET", `/api/runs/${started.body.id}`));
    expectDocumented("get", "/api/runs/:id/events", await stack.request("GET", `/api/runs/${started.body.id}/events`));
    expectDocumented("get", "/api/chats/:id", await stack.request("GET", `/api/chats/${chatId}`));
    expectDocumented("get", "/api/chats", await stack.request("GET", "/api/chats"));
    expectDocumented("get", "/api/chats/:id/runs", await stack.request("GET", `/api/chats/${chatId}/runs`));
    expectDocumented("get", "/api/workspaces/:id/tree", await stack.request("GET", `/api/workspaces/${workspaceId}/tree`));
    expectDocumented("get", "/api/chats/:id/approvals", await stack.request("GET", `/api/chats/${chatId}/approvals`));
    const grants = await stack.request("GET", `/api/chats/${chatId}/grants`);
    expectDocumented("get", "/api/chats/:id/grants", grants);
    expect(grants.body.grants).toHaveLength(1);
    expectDocumented("delete", "/api/chats/:id/grants/:grantId", await stack.request("DELETE", `/api/chats/${chatId}/grants/${grants.body.grants[0].id}`));

    // A failed run (an error object) and a cancelled one.
    const chat = await stack.request("POST", "/api/chats", { body: { title: "failing and cancelled" } });
    expectDocumented("post", "/api/chats", chat);
    const failing = await stack.run(chat.body.id, { input: scenarioInput([{ error: { status: 400, message: "refused" } }]) });
    expect((await waitForFinished(stack, failing)).status).toBe("failed");
    expectDocumented("get", "/api/runs/:id", await stack.request("GET", `/api/runs/${failing}`));
    const held = await stack.run(chat.body.id, { input: scenarioInput([{ holdUntil: "openapi-cancel", text: "never" }]) });
    const cancelled = await stack.request("POST", `/api/runs/${held}/cancel`);
    stack.provider.release("openapi-cancel");
    expect(cancelled.status).toBe(202);
    expectDocumented("post", "/api/runs/:id/cancel", cancelled);

    // Errors have the one error shape.
    expectDocumented("get", "/api/runs/:id", await stack.request("GET", "/api/runs/nope"));
    expectDocumented("post", "/api/chats", await stack.request("POST", "/api/chats", { body: { title: 5 } }));
  });
});
