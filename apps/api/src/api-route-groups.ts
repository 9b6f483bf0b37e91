import { z } from "zod";
import { defineRoute } from "./http/api-route.ts";
import type { ApiRouteGroup } from "./http/api-routes.ts";
import { buildOpenApiDocument, type OpenApiDocument } from "./openapi/build-openapi-document.ts";
import { administrationRoutes } from "./routes/administration.ts";
import { approvalRoutes } from "./routes/approvals.ts";
import { queueBoardRoutes } from "./routes/queue-board.ts";
import { chatRoutes } from "./routes/chats.ts";
import { emailRoutes } from "./routes/emails.ts";
import { documentRoutes } from "./routes/documents.ts";
import { jobRoutes } from "./routes/jobs.ts";
import { mcpServerRoutes } from "./routes/mcp-servers.ts";
import { calendarRoutes, memoryRoutes, noteRoutes, taskRoutes } from "./routes/personal.ts";
import { runRoutes } from "./routes/runs.ts";
import { settingsRoutes } from "./routes/settings.ts";
import { toolRoutes } from "./routes/tools.ts";
import { userRoutes } from "./routes/users.ts";
import { webhookRoutes } from "./routes/webhooks.ts";
import { workspaceRoutes } from "./routes/workspaces.ts";

const openApiRoutes = [
  defineRoute({
    method: "get",
    path: "/api/openapi.json",
    operationId: "getOpenApiDocument",
    summary: "This document",
    access: "public",
    responses: { 200: { description: "the OpenAPI 3.1 document of every /api route", schema: z.record(z.string(), z.unknown()) } },
    handler: () => ({ status: 200, body: { ...openApiDocument() } }),
  }),
];

/**
 * The API, in one visible list: each route is declared once (http/api-route.ts), and both express
 * (createApp) and the OpenAPI document are built from this list. Paths are full (`/api/...`), so
 * the metrics' route label is the whole pattern.
 */
export const API_ROUTE_GROUPS: readonly ApiRouteGroup[] = [
  { tag: "users", description: "The caller and user accounts", routes: userRoutes },
  { tag: "workspaces", description: "Directories runs work in, and their files", routes: workspaceRoutes },
  { tag: "chats", description: "Conversations: transcripts, runs, grants", routes: chatRoutes },
  { tag: "runs", description: "Runs and their events (see also /api/ws)", routes: runRoutes },
  { tag: "approvals", description: "Deciding paused tool calls", routes: approvalRoutes },
  { tag: "jobs", description: "Background jobs started by runs", routes: jobRoutes },
  { tag: "emails", description: "Email drafts and sending (SMTP)", routes: emailRoutes },
  { tag: "notes", description: "The caller's notes", routes: noteRoutes },
  { tag: "tasks", description: "The caller's task list", routes: taskRoutes },
  { tag: "calendar", description: "The caller's calendar and its iCalendar feed", routes: calendarRoutes },
  { tag: "memories", description: "What runs remembered for the caller", routes: memoryRoutes },
  { tag: "tools", description: "The tools runs are offered", routes: toolRoutes },
  { tag: "documents", description: "Revisioned documents and their export", routes: documentRoutes },
  { tag: "settings", description: "Deployment settings (admin)", routes: settingsRoutes },
  { tag: "administration", description: "Services status and the audit log (admin)", routes: [...administrationRoutes, ...queueBoardRoutes] },
  { tag: "mcp", description: "MCP servers as tool sources (admin)", routes: mcpServerRoutes },
  { tag: "webhooks", description: "Signed POSTs of the caller's run events", routes: webhookRoutes },
  { tag: "meta", description: "This document", routes: openApiRoutes },
];

let document: OpenApiDocument | undefined;

/** The OpenAPI document of API_ROUTE_GROUPS, built once (it depends on nothing but the code). */
export function openApiDocument(): OpenApiDocument {
  document ??= buildOpenApiDocument(API_ROUTE_GROUPS);
  return document;
}
