import { readFile } from "node:fs/promises";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { sealApproval, sealedFieldsOf } from "../packages/core/src/policy/approval-seal.ts";
import { scenarioInput } from "../packages/core/src/testing/scenario-responder.ts";
import { expectContiguous, startTestStack, type TestStack } from "./support/test-stack.ts";
import { decide, fileExists, injectedChat, parkedRun, waitForFinished, waitForParked } from "./support/approval-test-helpers.ts";

describe("deciding an approval", () => {
  let stack: TestStack;
  beforeAll(async () => {
    stack = await startTestStack();
  });
  afterAll(async () => {
    await stack?.close();
  });

  it("50 concurrent decisions on one approval: exactly one 202, the others 409, and the call runs once", async () => {
    const { runId, root, approvalId } = await parkedRun(stack, { tool: "run_command", args: { command: "echo ran >> count" } });
    const responses = await Promise.all(Array.from({ length: 50 }, (_, index) => decide(stack, approvalId, index % 2 === 0 ? "allow_task" : "allow_chat")));
    const statuses = responses.map((response) => response.status);
    expect(statuses.filter((status) => status === 202)).toHaveLength(1);
    const conflicts = responses.filter((response) => response.status !== 202);
    expect(conflicts).toHaveLength(49);
    for (const conflict of conflicts) expect([conflict.status, conflict.body.error.code]).toEqual([409, "approval_already_decided"]);

    expect(await waitForFinished(stack, runId)).toMatchObject({ status: "completed", output: "finished" });
    expect(await readFile(path.join(root, "count"), "utf8")).toBe("ran\n");
    const events = await stack.events(runId);
    expect(events.filter((event) => event.type === "approval.decided")).toHaveLength(1);
    expect(events.filter((event) => event.type === "tool.started" && event.data.tool === "run_command")).toHaveLength(1);
    expect(await stack.prisma.grant.count({ where: { approvalId } })).toBe(1);
    expect(await stack.prisma.auditEntry.count({ where: { target: `approval:${approvalId}` } })).toBe(1);

    // A replay once the run has finished is still "already decided".
    const replay = await decide(stack, approvalId, "allow_task");
    expect([replay.status, replay.body.error.code]).toEqual([409, "approval_already_decided"]);
    expect(await readFile(path.join(root, "count"), "utf8")).toBe("ran\n");
  });

  it("decisions on a run's two approvals at once both count: the run resumes exactly once, when the second is in", async () => {
    const { chatId } = await injectedChat(stack);
    for (let attempt = 0; attempt < 4; attempt++) {
      const runId = await stack.run(chatId, {
        input: scenarioInput([
          { tool: "read_file", args: { path: "notes.md" } },
          {
            calls: [
              { tool: "write_file", args: { path: `a-${attempt}.txt`, content: "a" } },
              { tool: "edit_file", args: { path: "notes.md", old_text: "Build notes.", new_text: "Edited." } },
            ],
          },
          { text: "finished" },
        ]),
      });
      const parked = await waitForParked(stack, runId);
      const approvalIds: string[] = parked.pending_approvals.map((approval: { id: string }) => approval.id);
      expect(approvalIds).toHaveLength(2);
      // Denials cover no other approval: each decides its own, and whichever commits second resumes the run.
      const responses = await Promise.all(approvalIds.map((approvalId) => decide(stack, approvalId, "deny")));
      expect(responses.map((response) => response.status)).toEqual([202, 202]);
      expect(await waitForFinished(stack, runId)).toMatchObject({ status: "completed", output: "finished" });
      const events = await stack.events(runId);
      expectContiguous(events);
      expect(events.filter((event) => event.type === "approval.decided")).toHaveLength(2);
      expect(events.filter((event) => event.type === "run.resumed")).toHaveLength(1);
      expect(events.filter((event) => event.type === "tool.completed" && event.data.ok === false && /denied/.test(String(event.data.error)))).toHaveLength(2);
    }
  });

  it("an expired approval is 410 approval_expired and nothing runs", async () => {
    const { runId, root, approvalId } = await parkedRun(stack, { tool: "run_command", args: { command: "touch pwned" } });
    const secret = (await stack.prisma.systemSecret.findUniqueOrThrow({ where: { name: "approval_secret" } })).value;
    const stored = await stack.prisma.approval.findUniqueOrThrow({ where: { id: approvalId } });
    const expiresAt = new Date(Date.now() - 60_000);
    await stack.prisma.approval.update({
      where: { id: approvalId },
      data: { expiresAt, seal: sealApproval(secret, { ...sealedFieldsOf(stored), expiresAt }) },
    });

    const response = await decide(stack, approvalId, "allow_task");
    expect(response.status).toBe(410);
    expect(response.body.error.code).toBe("approval_expired");
    const run = await stack.getRun(runId);
    expect(run.status).toBe("awaiting_approval");
    expect(await fileExists(root, "pwned")).toBe(false);
    expect((await stack.prisma.approval.findUniqueOrThrow({ where: { id: approvalId } })).status).toBe("pending");
    expect((await stack.request("POST", `/api/runs/${runId}/cancel`)).status).toBe(202);
  });

  it("a write approved after the target file changed is 409 approval_stale and the file keeps the newer content", async () => {
    const { workspaceId, runId, approvalId } = await parkedRun(stack, { tool: "write_file", args: { path: "notes.md", content: "overwritten by the agent" } });
    const stored = await stack.prisma.approval.findUniqueOrThrow({ where: { id: approvalId } });
    expect(stored).toMatchObject({ tool: "write_file", targetPath: "notes.md", effects: ["write"] });
    expect(stored.targetRevision).toEqual(expect.any(String));

    await stack.putFile(workspaceId, "notes.md", "edited by a human meanwhile");
    const response = await decide(stack, approvalId, "allow_task");
    expect(response.status).toBe(409);
    expect(response.body.error.code).toBe("approval_stale");
    expect((await stack.request("GET", `/api/workspaces/${workspaceId}/files/notes.md`)).body.content).toBe("edited by a human meanwhile");
    expect((await stack.getRun(runId)).status).toBe("awaiting_approval");
    // A deny needs no file binding: the user may still refuse a stale call.
    expect((await decide(stack, approvalId, "deny")).status).toBe(202);
    expect(await waitForFinished(stack, runId)).toMatchObject({ status: "completed" });
    expect((await stack.request("GET", `/api/workspaces/${workspaceId}/files/notes.md`)).body.content).toBe("edited by a human meanwhile");
  });

  it("someone else's approval is 404 and stays pending", async () => {
    const { runId, root, approvalId } = await parkedRun(stack, { tool: "run_command", args: { command: "touch pwned" } });
    const stranger = await stack.createUser("stranger");
    const response = await decide(stack, approvalId, "allow_task", { token: stranger.token });
    expect(response.status).toBe(404);
    expect(response.body.error.code).toBe("not_found");
    expect((await stack.getRun(runId)).status).toBe("awaiting_approval");
    expect((await stack.prisma.approval.findUniqueOrThrow({ where: { id: approvalId } })).status).toBe("pending");
    expect(await fileExists(root, "pwned")).toBe(false);
    expect((await stack.request("POST", `/api/runs/${runId}/cancel`)).status).toBe(202);
  });

  it("checks the token in the decision's own statement: a replaced or disabled user's token is 401 and the approval stays pending", async () => {
    const owner = await stack.createUser("token-checked");
    const { runId, root, approvalId } = await parkedRun(stack, { tool: "run_command", args: { command: "touch pwned" } }, { token: owner.token });
    const rotated = await stack.request("POST", `/api/users/${owner.id}/token`, { token: owner.token });
    expect(rotated.status).toBe(201);
    const stale = await decide(stack, approvalId, "allow_task", { token: owner.token });
    expect([stale.status, stale.body.error.code]).toEqual([401, "unauthorized"]);
    const newToken = rotated.body.token as string;
    expect((await stack.request("PATCH", `/api/users/${owner.id}`, { body: { disabled: true } })).status).toBe(200);
    const disabled = await decide(stack, approvalId, "allow_task", { token: newToken });
    expect([disabled.status, disabled.body.error.code]).toEqual([401, "unauthorized"]);
    // Nothing was decided, and a bad token with a bad body is still a 401, not a 400.
    const badBoth = await stack.request("POST", "/api/approvals", {
      token: "aq_not_a_token",
      body: { tool_approval_id: approvalId, tool_approval_decision: "maybe" },
    });
    expect([badBoth.status, badBoth.body.error.code]).toEqual([401, "unauthorized"]);
    const noToken = await stack.request("POST", "/api/approvals", {
      headers: { authorization: "" },
      body: { tool_approval_id: approvalId, tool_approval_decision: "allow_task" },
    });
    expect(noToken.status).toBe(401);
    expect((await stack.prisma.approval.findUniqueOrThrow({ where: { id: approvalId } })).status).toBe("pending");
    expect(await stack.prisma.runEvent.count({ where: { runId, type: "approval.decided" } })).toBe(0);
    expect(await fileExists(root, "pwned")).toBe(false);

    expect((await stack.request("PATCH", `/api/users/${owner.id}`, { body: { disabled: false } })).status).toBe(200);
    const malformed = await stack.request("POST", "/api/approvals", {
      token: newToken,
      body: { tool_approval_id: approvalId, tool_approval_decision: "maybe" },
    });
    expect([malformed.status, malformed.body.error.code]).toEqual([400, "invalid_request"]);
    expect((await decide(stack, approvalId, "deny", { token: newToken })).status).toBe(202);
    expect(await waitForFinished(stack, runId, newToken)).toMatchObject({ status: "completed" });
    const decided = (await stack.events(runId, 0, newToken)).find((event) => event.type === "approval.decided");
    expect(decided?.data.decided_by).toBe(owner.id);
  });

  it("a user's own approval is decidable by that user, not by the admin", async () => {
    const owner = await stack.createUser("owner");
    const { runId, approvalId } = await parkedRun(stack, { tool: "run_command", args: { command: "touch mine" } }, { token: owner.token });
    expect((await decide(stack, approvalId, "allow_task")).status).toBe(404);
    expect((await decide(stack, approvalId, "allow_task", { token: owner.token })).status).toBe(202);
    expect(await waitForFinished(stack, runId, owner.token)).toMatchObject({ status: "completed" });
  });

  it("a flipped bit in the stored seal makes the approval unknown (404) and nothing runs", async () => {
    const { runId, root, approvalId } = await parkedRun(stack, { tool: "run_command", args: { command: "touch pwned" } });
    const stored = await stack.prisma.approval.findUniqueOrThrow({ where: { id: approvalId } });
    const bytes = Buffer.from(stored.seal, "base64url");
    bytes[0] = bytes[0]! ^ 0x01;
    await stack.prisma.approval.update({ where: { id: approvalId }, data: { seal: bytes.toString("base64url") } });

    const response = await decide(stack, approvalId, "allow_task");
    expect(response.status).toBe(404);
    expect(response.body.error.code).toBe("not_found");
    expect((await stack.getRun(runId)).status).toBe("awaiting_approval");
    expect((await stack.prisma.approval.findUniqueOrThrow({ where: { id: approvalId } })).status).toBe("pending");
    expect(await fileExists(root, "pwned")).toBe(false);
    expect((await stack.events(runId)).some((event) => event.type === "approval.decided")).toBe(false);
    expect((await stack.request("POST", `/api/runs/${runId}/cancel`)).status).toBe(202);
  });

  it("recorded arguments changed in the database make the approval unknown (404)", async () => {
    const { runId, root, approvalId } = await parkedRun(stack, { tool: "run_command", args: { command: "echo harmless" } });
    await stack.prisma.approval.update({ where: { id: approvalId }, data: { arguments: { command: "touch pwned" } } });
    expect((await decide(stack, approvalId, "allow_task")).status).toBe(404);
    expect(await fileExists(root, "pwned")).toBe(false);
    expect((await stack.request("POST", `/api/runs/${runId}/cancel`)).status).toBe(202);
  });

  it("an unknown approval id is 404, a malformed decision 400", async () => {
    const unknown = await decide(stack, "apr_doesnotexist0123456789", "allow_task");
    expect(unknown.status).toBe(404);
    expect(unknown.body.error.code).toBe("not_found");
    const malformed = await stack.request("POST", "/api/approvals", { body: { tool_approval_id: "apr_x", tool_approval_decision: "maybe" } });
    expect(malformed.status).toBe(400);
    expect(malformed.body.error.code).toBe("invalid_request");
  });

  it("a decision on a cancelled run is 409 run_finished, and cancelling answered the pending call", async () => {
    const { runId, root, approvalId } = await parkedRun(stack, { tool: "run_command", args: { command: "touch pwned" } });
    const cancelled = await stack.request("POST", `/api/runs/${runId}/cancel`);
    expect(cancelled.status).toBe(202);
    expect(cancelled.body.status).toBe("cancelled");
    const response = await decide(stack, approvalId, "allow_task");
    expect(response.status).toBe(409);
    expect(response.body.error.code).toBe("run_finished");
    expect(await fileExists(root, "pwned")).toBe(false);
    expect((await stack.getRun(runId)).pending_approvals).toEqual([]);
    const answered = (await stack.events(runId)).find((event) => event.type === "tool.completed" && event.data.tool === "run_command");
    expect(answered?.data.ok).toBe(false);
  });

  it("a decision racing a cancel either wins before it or is 409 run_finished, never an error, and the run ends cancelled", async () => {
    for (let attempt = 0; attempt < 3; attempt += 1) {
      const { runId, approvalId } = await parkedRun(stack, { tool: "run_command", args: { command: `echo race${attempt}` } });
      const [cancel, decision] = await Promise.all([stack.request("POST", `/api/runs/${runId}/cancel`), decide(stack, approvalId, "allow_task")]);
      expect(cancel.status).toBe(202);
      if (decision.status !== 202) expect([decision.status, decision.body.error.code]).toEqual([409, "run_finished"]);
      expect(await waitForFinished(stack, runId)).toMatchObject({ status: "cancelled", pending_approvals: [] });
      const events = await stack.events(runId);
      expect(events.at(-1)?.type).toBe("run.cancelled");
    }
  });

  it("an allowed call whose tool family an admin switched off meanwhile is refused where it runs", async () => {
    const { runId, root, approvalId } = await parkedRun(stack, { tool: "run_command", args: { command: "touch after-switch-off" } });
    expect((await stack.request("PATCH", "/api/settings", { body: { tools_process_enabled: false } })).status).toBe(200);
    try {
      expect((await decide(stack, approvalId, "allow_task")).status).toBe(202);
      expect(await waitForFinished(stack, runId)).toMatchObject({ status: "completed" });
    } finally {
      await stack.request("PATCH", "/api/settings", { body: { tools_process_enabled: true } });
    }
    expect(await fileExists(root, "after-switch-off")).toBe(false);
    const events = await stack.events(runId);
    expect(events.some((event) => event.type === "tool.started" && event.data.tool === "run_command")).toBe(false);
    const answered = events.find((event) => event.type === "tool.completed" && event.data.tool === "run_command");
    expect(answered?.data.ok).toBe(false);
    expect(answered?.data.error).toMatch(/not executed/);
  });

  it("a file changed between the decision and its execution makes the worker refuse the write", { timeout: 90_000 }, async () => {
    const { workspaceId, runId, approvalId } = await parkedRun(stack, { tool: "write_file", args: { path: "notes.md", content: "overwritten by the agent" } });
    // No worker while the decision is made, so the file can change before the call runs.
    const workers = stack.workers.splice(0);
    await Promise.all(workers.map((worker) => worker.close()));
    try {
      expect((await decide(stack, approvalId, "allow_task")).status).toBe(202);
      await stack.putFile(workspaceId, "notes.md", "edited by a human after the decision");
    } finally {
      await stack.startWorker();
    }
    expect(await stack.waitForRun(runId, undefined, 60_000)).toMatchObject({ status: "completed" });
    expect((await stack.request("GET", `/api/workspaces/${workspaceId}/files/notes.md`)).body.content).toBe("edited by a human after the decision");
    const answered = (await stack.events(runId)).find((event) => event.type === "tool.completed" && event.data.tool === "write_file");
    expect(answered?.data.ok).toBe(false);
    expect(answered?.data.error).toMatch(/changed/);
  });
});
