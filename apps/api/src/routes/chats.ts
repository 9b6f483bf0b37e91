import { z } from "zod";
import {
  checkRunToolList,
  createChat,
  generateId,
  getChatWithMessages,
  getRunView,
  listChatApprovals,
  listChatGrants,
  listChatRuns,
  listChats,
  revokeChatGrant,
  startRun,
  systemClock,
} from "@agentq/core";
import { commandDependencies } from "../api-dependencies.ts";
import { defineRoute } from "../http/api-route.ts";
import { approvalRecordListSchema, approvalRecordsBody, grantListSchema, revokedGrantSchema } from "../schemas/approval-schemas.ts";
import { chatListSchema, chatSchema, chatWithMessagesSchema, createChatBodySchema } from "../schemas/chat-schemas.ts";
import { limitQuery } from "../schemas/common-schemas.ts";
import { createRunBodySchema, runBody, runListSchema, runSchema } from "../schemas/run-schemas.ts";

const CHAT_ID = "the chat's id";

const chatListQuery = z.object({
  limit: limitQuery(50, 200),
  before: z.string().min(1).max(500).optional().meta({ description: "the `next_before` of the previous page" }),
});

const chatRunsQuery = z.object({ limit: limitQuery(20, 100) });

export const chatRoutes = [
  defineRoute({
    method: "get",
    path: "/api/chats",
    operationId: "listChats",
    summary: "The caller's chats, most recently active first",
    description: "A chat's activity (`updated_at`) is the creation of its last run, or its own. Pages follow with `before` = `next_before`.",
    query: chatListQuery,
    responses: { 200: { description: "a page of chats", schema: chatListSchema } },
    handler: async ({ dependencies, user, query }) => ({
      status: 200,
      body: await listChats(dependencies.prisma, user.id, { limit: query.limit, before: query.before }),
    }),
  }),
  defineRoute({
    method: "post",
    path: "/api/chats",
    operationId: "createChat",
    summary: "Create a chat",
    body: createChatBodySchema,
    responses: { 201: { description: "the chat", schema: chatSchema } },
    errors: { 404: "`not_found`: the workspace does not exist or is someone else's" },
    handler: async ({ dependencies, user, body }) => {
      const chat = await createChat(dependencies.prisma, { userId: user.id, title: body.title, workspaceId: body.workspace_id, generateId });
      return { status: 201, body: chat };
    },
  }),
  defineRoute({
    method: "get",
    path: "/api/chats/:id",
    operationId: "getChat",
    summary: "A chat and its transcript",
    parameters: { id: CHAT_ID },
    responses: { 200: { description: "the chat with its messages in order", schema: chatWithMessagesSchema } },
    handler: async ({ dependencies, user, params }) => ({ status: 200, body: await getChatWithMessages(dependencies.prisma, user.id, params.id) }),
  }),
  defineRoute({
    method: "post",
    path: "/api/chats/:id/runs",
    operationId: "createRun",
    summary: "Start a run in the chat",
    parameters: { id: CHAT_ID },
    body: createRunBodySchema,
    responses: { 202: { description: "the run, queued (or the first run of the same idempotency key)", schema: runSchema } },
    errors: {
      409: "`run_in_progress`: the chat has an active run and `multitask` is `reject`",
      429: "`quota_exceeded`: the user's runs_per_day or tokens_per_day is used up (`details`: quota, limit, resets_at); nothing was created",
      503: "`unavailable`: the queue did not take the run in time (it stays queued and starts later)",
    },
    // Every run starts here: the creation's statement checks the token too.
    verifiesToken: true,
    handler: async ({ dependencies, callerForWrite, admitCaller, params, body }) => {
      const tools = checkRunToolList(dependencies.runs.tools, body.tools ?? []);
      const result = await startRun(commandDependencies(dependencies), {
        ...(await callerForWrite()),
        admitCaller,
        chatId: params.id,
        input: body.input,
        model: body.model ?? dependencies.config.defaultModel,
        mode: body.mode ?? "agent",
        allowBash: body.allow_bash ?? false,
        allowWebSearch: body.allow_web_search ?? true,
        useWeb: body.use_web ?? false,
        tools,
        multitask: body.multitask ?? "reject",
        idempotencyKey: body.idempotency_key,
      });
      return { status: 202, body: runBody(result.view ?? (await getRunView(dependencies.prisma, result.userId, result.runId))) };
    },
  }),
  defineRoute({
    method: "get",
    path: "/api/chats/:id/runs",
    operationId: "listChatRuns",
    summary: "The chat's runs, newest first",
    parameters: { id: CHAT_ID },
    query: chatRunsQuery,
    responses: { 200: { description: "each run as GET /api/runs/{id} answers it", schema: runListSchema } },
    handler: async ({ dependencies, user, params, query }) => {
      const runs = await listChatRuns(dependencies.prisma, user.id, params.id, { limit: query.limit });
      return { status: 200, body: { runs: runs.map(runBody) } };
    },
  }),
  defineRoute({
    method: "get",
    path: "/api/chats/:id/grants",
    operationId: "listChatGrants",
    summary: "The chat's standing permissions",
    parameters: { id: CHAT_ID },
    responses: { 200: { description: "grants in force, oldest first", schema: grantListSchema } },
    handler: async ({ dependencies, user, params }) => ({
      status: 200,
      body: { grants: await listChatGrants(dependencies.prisma, user.id, params.id) },
    }),
  }),
  defineRoute({
    method: "delete",
    path: "/api/chats/:id/grants/:grantId",
    operationId: "revokeChatGrant",
    summary: "Revoke a grant of the chat",
    parameters: { id: CHAT_ID, grantId: "the grant's id" },
    responses: { 200: { description: "revoked", schema: revokedGrantSchema } },
    handler: async ({ dependencies, user, params }) => {
      await revokeChatGrant({ prisma: dependencies.prisma, clock: systemClock }, { userId: user.id, chatId: params.id, grantId: params.grantId });
      return { status: 200, body: { id: params.grantId, revoked: true as const } };
    },
  }),
  defineRoute({
    method: "get",
    path: "/api/chats/:id/approvals",
    operationId: "listChatApprovals",
    summary: "The chat's approvals, decided or not",
    parameters: { id: CHAT_ID },
    responses: { 200: { description: "oldest first", schema: approvalRecordListSchema } },
    handler: async ({ dependencies, user, params }) => ({
      status: 200,
      body: approvalRecordsBody(await listChatApprovals(dependencies.prisma, user.id, params.id)),
    }),
  }),
];
