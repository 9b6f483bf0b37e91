import { Router } from "express";
import { z } from "zod";
import {
  createChat,
  generateId,
  getChatWithMessages,
  getRunView,
  listChatApprovals,
  listChatGrants,
  revokeChatGrant,
  startRun,
  systemClock,
} from "@agentq/core";
import { commandDependencies, type ApiDependencies } from "../api-dependencies.ts";
import { currentUser } from "../http/authenticate.ts";
import { parseRequest } from "../http/parse-body.ts";

const createChatBody = z.object({
  title: z.string().trim().min(1).max(500).optional(),
  workspace_id: z.string().min(1).max(200).optional(),
});

const createRunBody = z.object({
  input: z.string().min(1, "input must not be empty").max(1_000_000),
  model: z.string().trim().min(1).max(300).optional(),
  mode: z.enum(["agent", "guide"]).optional(),
  allow_bash: z.boolean().optional(),
  allow_web_search: z.boolean().optional(),
  use_web: z.boolean().optional(),
  multitask: z.enum(["reject", "enqueue", "interrupt"]).optional(),
  idempotency_key: z.string().min(1).max(255).optional(),
});

export function chatsRouter(dependencies: ApiDependencies): Router {
  const router = Router();
  const { prisma, config } = dependencies;

  router.post("/api/chats", async (request, response) => {
    const body = parseRequest(createChatBody, request.body);
    const chat = await createChat(prisma, { userId: currentUser(request).id, title: body.title, workspaceId: body.workspace_id, generateId });
    response.status(201).json(chat);
  });

  router.get("/api/chats/:id", async (request, response) => {
    response.json(await getChatWithMessages(prisma, currentUser(request).id, request.params.id));
  });

  router.post("/api/chats/:id/runs", async (request, response) => {
    const user = currentUser(request);
    const body = parseRequest(createRunBody, request.body);
    const result = await startRun(commandDependencies(dependencies), {
      userId: user.id,
      chatId: request.params.id,
      input: body.input,
      model: body.model ?? config.defaultModel,
      mode: body.mode ?? "agent",
      allowBash: body.allow_bash ?? false,
      allowWebSearch: body.allow_web_search ?? true,
      useWeb: body.use_web ?? false,
      multitask: body.multitask ?? "reject",
      idempotencyKey: body.idempotency_key,
    });
    response.status(202).json(await getRunView(prisma, user.id, result.runId));
  });

  router.get("/api/chats/:id/grants", async (request, response) => {
    response.json({ grants: await listChatGrants(prisma, currentUser(request).id, request.params.id) });
  });

  router.delete("/api/chats/:id/grants/:grantId", async (request, response) => {
    await revokeChatGrant({ prisma, clock: systemClock }, { userId: currentUser(request).id, chatId: request.params.id, grantId: request.params.grantId });
    response.json({ id: request.params.grantId, revoked: true });
  });

  router.get("/api/chats/:id/approvals", async (request, response) => {
    response.json({ approvals: await listChatApprovals(prisma, currentUser(request).id, request.params.id) });
  });

  return router;
}
