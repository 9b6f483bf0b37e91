import { Router } from "express";
import { z } from "zod";
import { createChat, getChatWithMessages, requireOwnChat } from "@agentq/core/chats/chat-store";
import { NotFoundError } from "@agentq/core/errors/agentq-error";
import { generateId } from "@agentq/core/ids";
import { systemClock } from "@agentq/core/clock";
import { createRun } from "@agentq/core/runs/create-run";
import { getRunView } from "@agentq/core/runs/run-queries";
import type { ApiDependencies } from "../api-dependencies.ts";
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
  const { prisma, runs, config } = dependencies;

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
    const multitask = body.multitask ?? "reject";
    const result = await createRun(
      { prisma, clock: systemClock, generateId },
      {
        userId: user.id,
        chatId: request.params.id,
        input: body.input,
        model: body.model ?? config.defaultModel,
        mode: body.mode ?? "agent",
        allowBash: body.allow_bash ?? false,
        allowWebSearch: body.allow_web_search ?? true,
        useWeb: body.use_web ?? false,
        multitask,
        idempotencyKey: body.idempotency_key,
      },
    );
    for (const { runId, events } of result.events) runs.publish(runId, events);
    for (const runId of result.cancelRequested) runs.requestCancel(runId);
    if (result.created && result.runnable) await runs.schedule(result.runId, { lastEventSeq: 1, leaseVersion: 0 });
    response.status(202).json(await getRunView(prisma, user.id, result.runId));
  });

  router.get("/api/chats/:id/grants", async (request, response) => {
    const chat = await requireOwnChat(prisma, currentUser(request).id, request.params.id);
    const grants = await prisma.grant.findMany({ where: { chatId: chat.id, revokedAt: null }, orderBy: { createdAt: "asc" } });
    response.json({
      grants: grants.map((grant) => ({
        id: grant.id,
        scope: grant.scope === "task" ? "allow_task" : "allow_chat",
        tool: grant.tool,
        effects: grant.effects,
        run_id: grant.runId,
        approval_id: grant.approvalId,
        created_at: grant.createdAt.toISOString(),
      })),
    });
  });

  router.delete("/api/chats/:id/grants/:grantId", async (request, response) => {
    const chat = await requireOwnChat(prisma, currentUser(request).id, request.params.id);
    const revoked = await prisma.grant.updateMany({
      where: { id: request.params.grantId, chatId: chat.id, revokedAt: null },
      data: { revokedAt: new Date() },
    });
    if (revoked.count === 0) throw new NotFoundError("grant", { grant_id: request.params.grantId });
    response.json({ id: request.params.grantId, revoked: true });
  });

  router.get("/api/chats/:id/approvals", async (request, response) => {
    const chat = await requireOwnChat(prisma, currentUser(request).id, request.params.id);
    const approvals = await prisma.approval.findMany({ where: { chatId: chat.id }, orderBy: { createdAt: "asc" } });
    response.json({
      approvals: approvals.map((approval) => ({
        id: approval.id,
        run_id: approval.runId,
        tool: approval.tool,
        tool_call_id: approval.toolCallId,
        arguments: approval.arguments,
        effects: approval.effects,
        status: approval.status,
        decision: approval.decision,
        decided_by: approval.decidedBy,
        decided_at: approval.decidedAt?.toISOString() ?? null,
        edited: approval.editedArguments !== null,
        edited_arguments: approval.editedArguments,
        created_at: approval.createdAt.toISOString(),
        expires_at: approval.expiresAt.toISOString(),
      })),
    });
  });

  return router;
}
