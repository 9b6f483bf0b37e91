import { access, readFile } from "node:fs/promises";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { scenarioInput, type ScenarioStep } from "../packages/core/src/testing/scenario-responder.ts";
import { decide, INJECTION, waitForFinished, waitForParked, workspaceRoot } from "./support/approval-test-helpers.ts";
import { startTestStack, type TestStack } from "./support/test-stack.ts";

describe("documents in runs (the fake model)", () => {
  let stack: TestStack;
  beforeAll(async () => {
    stack = await startTestStack();
  });
  afterAll(async () => {
    await stack?.close();
  });

  async function createDocument(content: string): Promise<string> {
    const response = await stack.request("POST", "/api/documents", { body: { title: "Minutes", content } });
    expect(response.status).toBe(201);
    return response.body.id;
  }

  async function revisions(documentId: string): Promise<{ revision: number; author: string; run_id: string | null }[]> {
    return (await stack.request("GET", `/api/documents/${documentId}/revisions`)).body.revisions;
  }

  /** A run that reads the workspace's injected file (tainting itself), then calls `next`. */
  async function taintedRun(next: ScenarioStep) {
    const workspaceId = await stack.createWorkspace();
    await stack.putFile(workspaceId, "notes.md", INJECTION);
    const chatId = await stack.createChat({ workspaceId });
    const runId = await stack.run(chatId, { input: scenarioInput([{ tool: "read_file", args: { path: "notes.md" } }, next, { text: "finished" }]) });
    return { workspaceId, chatId, runId };
  }

  it("the model creates a document, then updates it (by exact replacement); the agent's revisions name the run", async () => {
    const chatId = await stack.createChat();
    const createRun = await stack.run(chatId, {
      input: scenarioInput([{ tool: "create_document", args: { title: "Garden plan", content: "Plant tomatoes in May." } }, { text: "created" }]),
    });
    expect(await waitForFinished(stack, createRun)).toMatchObject({ status: "completed", output: "created" });
    const created = (await stack.events(createRun)).find((event) => event.type === "tool.completed" && event.data.tool === "create_document");
    expect(created?.data.ok).toBe(true);
    const documents = (await stack.request("GET", "/api/documents?query=Garden")).body.documents;
    expect(documents).toHaveLength(1);
    const documentId = documents[0].id as string;
    // The model is told the new id in the `document_id: <id>` form.
    const lastRequest = JSON.stringify(stack.provider.requests.at(-1)?.messages);
    expect(lastRequest).toContain(`document_id: ${documentId}`);

    const updateRun = await stack.run(chatId, {
      input: scenarioInput([
        { tool: "update_document", args: { document_id: documentId, base_revision: 1, old_text: "May", new_text: "April" } },
        { tool: "update_document", args: { document_id: documentId, base_revision: 1, content: "a stale rewrite" } },
        { text: "updated" },
      ]),
    });
    expect(await waitForFinished(stack, updateRun)).toMatchObject({ status: "completed", output: "updated" });
    const updates = (await stack.events(updateRun)).filter((event) => event.type === "tool.completed" && event.data.tool === "update_document");
    expect(updates.map((event) => event.data.ok)).toEqual([true, false]);
    // A wrong base revision is a tool error naming the current revision.
    expect(updates[1]!.data.error).toMatch(/revision 2/);
    expect((await stack.request("GET", `/api/documents/${documentId}`)).body).toMatchObject({ revision: 2, content: "Plant tomatoes in April." });
    expect(await revisions(documentId)).toEqual([
      expect.objectContaining({ revision: 1, author: "agent", run_id: createRun }),
      expect.objectContaining({ revision: 2, author: "agent", run_id: updateRun }),
    ]);
  });

  it("two updates from the same base revision in one round: exactly one lands", async () => {
    const documentId = await createDocument("base");
    const chatId = await stack.createChat();
    const runId = await stack.run(chatId, {
      input: scenarioInput([
        {
          calls: [
            { tool: "update_document", args: { document_id: documentId, base_revision: 1, content: "first writer" } },
            { tool: "update_document", args: { document_id: documentId, base_revision: 1, content: "second writer" } },
          ],
        },
        { text: "done both" },
      ]),
    });
    expect(await waitForFinished(stack, runId)).toMatchObject({ status: "completed" });
    const updates = (await stack.events(runId)).filter((event) => event.type === "tool.completed" && event.data.tool === "update_document");
    expect(updates.filter((event) => event.data.ok)).toHaveLength(1);
    expect(updates.filter((event) => !event.data.ok)).toHaveLength(1);
    expect((await revisions(documentId)).map((revision) => revision.revision)).toEqual([1, 2]);
  });

  it("after a read_file, update_document pauses bound to the revision; a user's edit makes the allow 409 approval_stale, a deny still goes", async () => {
    const documentId = await createDocument("original text");
    const { runId } = await taintedRun({ tool: "update_document", args: { document_id: documentId, base_revision: 1, content: "agent's rewrite" } });
    const parked = await waitForParked(stack, runId);
    expect(parked.status).toBe("awaiting_approval");
    const approvalId = parked.pending_approvals[0].id as string;
    const stored = await stack.prisma.approval.findUniqueOrThrow({ where: { id: approvalId } });
    expect(stored).toMatchObject({ tool: "update_document", targetDocumentId: documentId, targetRevision: "1", targetPath: null });

    const edit = await stack.request("PUT", `/api/documents/${documentId}`, { body: { content: "edited by a person", base_revision: 1 } });
    expect(edit.status).toBe(200);
    const allow = await decide(stack, approvalId, "allow_task");
    expect(allow.status).toBe(409);
    expect(allow.body.error).toMatchObject({ code: "approval_stale", details: { document_id: documentId, current_revision: 2 } });
    expect((await stack.getRun(runId)).status).toBe("awaiting_approval");

    expect((await decide(stack, approvalId, "deny")).status).toBe(202);
    expect(await waitForFinished(stack, runId)).toMatchObject({ status: "completed" });
    expect((await stack.request("GET", `/api/documents/${documentId}`)).body).toMatchObject({ revision: 2, content: "edited by a person" });
    expect((await revisions(documentId)).map((revision) => revision.author)).toEqual(["user", "user"]);
  });

  it("the worker re-checks the revision before it writes: an edit between the accepted allow and the resume refuses the write", async () => {
    const documentId = await createDocument("original text");
    const { runId } = await taintedRun({ tool: "update_document", args: { document_id: documentId, base_revision: 1, content: "agent's rewrite" } });
    const parked = await waitForParked(stack, runId);
    // No worker takes the resumed run until the document has changed behind the accepted decision
    // (closed, not paused: a paused worker may still hand out a job it was already fetching).
    for (const worker of stack.workers) await worker.close();
    expect((await decide(stack, parked.pending_approvals[0].id, "allow_task")).status).toBe(202);
    const edit = await stack.request("PUT", `/api/documents/${documentId}`, { body: { content: "edited after the allow", base_revision: 1 } });
    expect(edit.status).toBe(200);
    await stack.startWorker();
    expect(await waitForFinished(stack, runId)).toMatchObject({ status: "completed", output: "finished" });
    const update = (await stack.events(runId)).find((event) => event.type === "tool.completed" && event.data.tool === "update_document");
    expect(update?.data).toMatchObject({ ok: false });
    expect(String(update?.data.error)).toMatch(/changed after the call was approved/);
    expect((await stack.request("GET", `/api/documents/${documentId}`)).body).toMatchObject({ revision: 2, content: "edited after the allow" });
    expect((await revisions(documentId)).map((revision) => revision.author)).toEqual(["user", "user"]);
  });

  it("without an edit, the allowed update lands once, by the agent, with the run's id", async () => {
    const documentId = await createDocument("original text");
    const { runId } = await taintedRun({ tool: "update_document", args: { document_id: documentId, base_revision: 1, content: "agent's rewrite" } });
    const parked = await waitForParked(stack, runId);
    expect(parked.status).toBe("awaiting_approval");
    expect((await decide(stack, parked.pending_approvals[0].id, "allow_task")).status).toBe(202);
    expect(await waitForFinished(stack, runId)).toMatchObject({ status: "completed", output: "finished" });
    expect((await stack.request("GET", `/api/documents/${documentId}`)).body).toMatchObject({ revision: 2, content: "agent's rewrite" });
    expect(await revisions(documentId)).toEqual([
      expect.objectContaining({ revision: 1, author: "user", run_id: null }),
      expect.objectContaining({ revision: 2, author: "agent", run_id: runId }),
    ]);
    const events = await stack.events(runId);
    expect(events.filter((event) => event.type === "tool.started" && event.data.tool === "update_document")).toHaveLength(1);
  });

  it("export_document writes the export into the workspace, inside it only", async () => {
    const documentId = await createDocument("# Title\n\nBody text.");
    const workspaceId = await stack.createWorkspace();
    const chatId = await stack.createChat({ workspaceId });
    const runId = await stack.run(chatId, {
      input: scenarioInput([
        {
          calls: [
            { tool: "export_document", args: { document_id: documentId, format: "html", path: "out/minutes.html" } },
            { tool: "export_document", args: { document_id: documentId, format: "pdf", path: "out/minutes.pdf" } },
            { tool: "export_document", args: { document_id: documentId, format: "markdown", path: "../escape.md" } },
          ],
        },
        { text: "exported" },
      ]),
    });
    expect(await waitForFinished(stack, runId)).toMatchObject({ status: "completed" });
    const exports = (await stack.events(runId)).filter((event) => event.type === "tool.completed" && event.data.tool === "export_document");
    expect(exports.map((event) => event.data.ok)).toEqual([true, true, false]);
    const root = await workspaceRoot(stack, workspaceId);
    expect(await readFile(path.join(root, "out/minutes.html"), "utf8")).toContain("<p>Body text.</p>");
    expect((await readFile(path.join(root, "out/minutes.pdf"))).subarray(0, 5).toString("latin1")).toBe("%PDF-");
    await expect(access(path.join(root, "../escape.md"))).rejects.toThrow();
  });
});
