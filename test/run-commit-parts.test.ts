// The commit statement holds only the parts (CTEs) that a change of its batch needs: a batch whose
// changes need different parts must still write every change's rows, each only its own, under the
// fence, and a lone step commit must leave out what it does not need.
import type pg from "pg";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createChat, createUser, generateId, systemClock } from "@agentq/core";
import { createRun } from "../packages/core/src/runs/create-run.ts";
import { RunStatus } from "../packages/core/src/runs/run-status.ts";
import { createPrismaClient, type PrismaClient, sqlPoolOf } from "../packages/core/src/store/create-prisma-client.ts";
import {
  commitRunStatement,
  commitRunStatements,
  emptyStatementChange,
  type RunStatementChange,
  stageFileRead,
} from "../packages/core/src/store/run-statement.ts";
import type { SqlRunner } from "../packages/core/src/store/sql-pool.ts";
import { takeRunLease } from "../packages/core/src/store/statements/run-lease-statements.ts";
import { insertWebhook } from "../packages/core/src/store/statements/webhook-statements.ts";
import { createTestDatabase, type TestDatabase } from "./support/database.ts";
import { SCRIPTED_RUN_REQUEST } from "./support/loop-harness.ts";

describe("the commit statement's parts", () => {
  let database: TestDatabase;
  let prisma: PrismaClient;
  let pool: pg.Pool;
  let hookedUserId: string;
  let plainUserId: string;
  let workspaceId: string;

  beforeAll(async () => {
    database = await createTestDatabase();
    prisma = createPrismaClient({ databaseUrl: database.url, poolSize: 4 });
    pool = sqlPoolOf(prisma);
    hookedUserId = (await createUser(prisma, { name: "hooked", role: "user" })).id;
    plainUserId = (await createUser(prisma, { name: "plain", role: "user" })).id;
    workspaceId = generateId("ws");
    await prisma.workspace.create({ data: { id: workspaceId, userId: plainUserId, name: "parts", rootPath: "/nonexistent/parts-workspace" } });
    await insertWebhook(pool, {
      id: generateId("wh"),
      userId: hookedUserId,
      url: "https://hooks.example.com/agentq",
      events: ["tool.started"],
      description: null,
      sealedSecret: "sealed",
      now: new Date(),
    });
  });
  afterAll(async () => {
    await prisma?.$disconnect();
    await database?.drop();
  });

  /** A run of `userId`, admitted and taken: its chat, and the lease version that fences its changes. */
  const takenRun = async (userId: string, chatId?: string) => {
    const chat = chatId ?? (await createChat(prisma, { userId, title: "parts", workspaceId: userId === plainUserId ? workspaceId : undefined, generateId })).id;
    const { runId } = await createRun({ prisma, clock: systemClock, generateId }, { ...SCRIPTED_RUN_REQUEST, tools: [], userId, chatId: chat });
    await pool.query("UPDATE runs SET dispatched_at = created_at WHERE id = $1", [runId]);
    if (chatId !== undefined) return { chatId: chat, runId, leaseVersion: 0 };
    const taken = await takeRunLease(pool, { runId, owner: "worker-parts", leaseSeconds: 60 });
    if (!taken) throw new Error(`could not take ${runId}`);
    return { chatId: chat, runId, leaseVersion: taken.lease_version };
  };

  /** The runner the statements go through, recording the name of each prepared statement. */
  const recording = () => {
    const names: string[] = [];
    const runner: SqlRunner = {
      query: ((config: pg.QueryConfig) => {
        names.push(config.name ?? "(unnamed)");
        return pool.query(config);
      }) as pg.Pool["query"],
    };
    return { names, runner };
  };

  const toolCallInsert = (id: string, callId: string, status: "started" | "awaiting_approval") => ({
    id,
    callId,
    round: 1,
    position: 0,
    tool: "write_file",
    arguments: { path: "notes.txt" },
    effects: ["write"],
    status,
    ...(status === "started" ? { started: true } : {}),
  });

  /** A run parked on one pending approval of a write_file call (a lone commit). */
  const parkedRun = async () => {
    const run = await takenRun(plainUserId);
    const change = emptyStatementChange(run.runId, run.leaseVersion);
    const toolCallRowId = generateId("tc");
    change.toolCallInserts.push(toolCallInsert(toolCallRowId, "call_parked", "awaiting_approval"));
    const approvalId = generateId("apr");
    change.approvals.push({
      id: approvalId,
      runId: run.runId,
      chatId: run.chatId,
      userId: plainUserId,
      toolCallRowId,
      toolCallId: "call_parked",
      tool: "write_file",
      arguments: { path: "notes.txt" },
      argumentsHash: "hash",
      workspaceId,
      effects: ["write"],
      targetPath: "notes.txt",
      targetRevision: "rev-1",
      policyVersion: "1",
      expiresAt: new Date(Date.now() + 3_600_000),
      seal: "seal",
      taintedBy: [],
      pauseReason: "tainted",
    });
    change.status = RunStatus.awaiting_approval;
    change.releaseLease = true;
    if (!(await commitRunStatement(pool, change, new Date()))) throw new Error("the park was refused");
    return { ...run, approvalId };
  };

  it("a lone step commit leaves out every part it does not need, and its fence still refuses a stale writer", async () => {
    const run = await takenRun(plainUserId);
    const { names, runner } = recording();
    const step = emptyStatementChange(run.runId, run.leaseVersion);
    step.events.push({ type: "run.started", data: { model: "scripted", mode: "agent" } });
    step.messages.push({ id: generateId("msg"), role: "assistant", content: "hello" });
    step.loopState = { round: 1 };
    const committed = await commitRunStatement(runner, step, new Date());
    expect(committed?.run.lastEventSeq).toBe(2);
    expect(committed?.approvalsDecided).toBe(0);
    expect(committed?.nextRunOfChat).toBeNull();

    const loopOnly = emptyStatementChange(run.runId, run.leaseVersion);
    loopOnly.loopState = { round: 2 };
    expect((await commitRunStatement(runner, loopOnly, new Date()))?.run.lastEventSeq).toBe(2);

    const stale = emptyStatementChange(run.runId, run.leaseVersion - 1);
    stale.events.push({ type: "round.started", data: { round: 2, tools: [] } });
    stale.messages.push({ id: generateId("msg"), role: "assistant", content: "stale" });
    stale.loopState = { round: 3 };
    expect(await commitRunStatement(runner, stale, new Date())).toBeNull();

    expect(names).toEqual(["agentq_run_commit_ev_msg", "agentq_run_commit", "agentq_run_commit_ev_msg"]);
    const row = await prisma.run.findUniqueOrThrow({ where: { id: run.runId } });
    expect([row.lastEventSeq, row.loopState]).toEqual([2, { round: 2 }]);
    expect((await prisma.message.findMany({ where: { chatId: run.chatId } })).map((message) => message.content)).toEqual(["hello"]);
    expect(await prisma.runEvent.count({ where: { runId: run.runId } })).toBe(2);
  });

  it("a batch whose changes need different parts writes each change's rows, only its own, and none of a stale one", async () => {
    // started: a call started by a user with a webhook on tool.started (events, a message, a tool-call row).
    const started = await takenRun(hookedUserId);
    // answered: a plain user's call answered, a file read, and the run finished with a run queued behind it.
    const answered = await takenRun(plainUserId);
    const queuedBehind = await takenRun(plainUserId, answered.chatId);
    const answeredCallId = generateId("tc");
    const before = emptyStatementChange(answered.runId, answered.leaseVersion);
    before.toolCallInserts.push(toolCallInsert(answeredCallId, "call_answered", "started"));
    await commitRunStatement(pool, before, new Date());
    // quiet: only its loop state and counters.
    const quiet = await takenRun(plainUserId);
    // decided: a parked run's approval allowed for the task (a decision, its grant and its audit entry).
    const decided = await parkedRun();
    // stale: a taken-over writer's change, which needs the parts nobody else does (a tool-call row, an approval's withdrawal).
    const stale = await takenRun(hookedUserId);

    const startedChange = emptyStatementChange(started.runId, started.leaseVersion);
    const startedCallId = generateId("tc");
    startedChange.events.push(
      {
        type: "message.completed",
        data: {
          round: 1,
          role: "assistant",
          content: "",
          tool_calls: [{ id: "call_started", name: "write_file", arguments: {} }],
          usage: { input_tokens: 1, output_tokens: 1 },
        },
      },
      { type: "tool.started", data: { tool_call_id: "call_started", tool: "write_file", arguments: {} } },
    );
    startedChange.messages.push({
      id: generateId("msg"),
      role: "assistant",
      content: null,
      toolCalls: [{ id: "call_started", name: "write_file", arguments: {} }],
    });
    startedChange.toolCallInserts.push(toolCallInsert(startedCallId, "call_started", "started"));

    const answeredChange = emptyStatementChange(answered.runId, answered.leaseVersion);
    answeredChange.events.push(
      { type: "tool.completed", data: { tool_call_id: "call_answered", tool: "write_file", ok: true, result: "written" } },
      { type: "run.completed", data: { output: "done" } },
    );
    answeredChange.toolCallUpdates.push({ id: answeredCallId, status: "completed", ok: true, result: "written", completed: true });
    stageFileRead(answeredChange, { workspaceId, path: "notes.txt", revision: "rev-2" });
    answeredChange.status = RunStatus.completed;
    answeredChange.finish = { output: "done", errorCode: null, errorMessage: null };

    const quietChange = emptyStatementChange(quiet.runId, quiet.leaseVersion);
    quietChange.loopState = { quiet: true };
    quietChange.increments.inputTokens = 7;

    const decidedVersion = (await prisma.run.findUniqueOrThrow({ where: { id: decided.runId } })).leaseVersion;
    const decidedChange = emptyStatementChange(decided.runId, decidedVersion);
    decidedChange.events.push({
      type: "approval.decided",
      data: {
        approval_id: decided.approvalId,
        tool_call_id: "call_parked",
        tool: "write_file",
        decision: "allow_task",
        decided_by: plainUserId,
        edited: false,
      },
    });
    decidedChange.approvalDecisions.push({ id: decided.approvalId, status: "allowed", decision: "allow_task", decidedBy: plainUserId });
    const grantId = generateId("grt");
    decidedChange.grants.push({
      id: grantId,
      userId: plainUserId,
      scope: "task",
      tool: "write_file",
      effects: ["write"],
      approvalId: decided.approvalId,
    });
    const auditId = generateId("aud");
    decidedChange.auditEntry = { id: auditId, actorId: plainUserId, action: "approval.decided", target: `approval:${decided.approvalId}`, details: {} };

    const staleChange = emptyStatementChange(stale.runId, stale.leaseVersion - 1);
    staleChange.events.push({ type: "tool.started", data: { tool_call_id: "call_stale", tool: "write_file", arguments: {} } });
    staleChange.messages.push({ id: generateId("msg"), role: "assistant", content: "stale" });
    staleChange.toolCallInserts.push(toolCallInsert(generateId("tc"), "call_stale", "started"));
    staleChange.withdrawPendingApprovals = true;

    const { names, runner } = recording();
    const now = new Date();
    const [startedResult, answeredResult, quietResult, decidedResult, staleResult] = await commitRunStatements(
      runner,
      [startedChange, answeredChange, quietChange, decidedChange, staleChange] satisfies RunStatementChange[],
      now,
    );
    expect(names).toEqual(["agentq_run_commit_ev_msg_tci_tcu_apr"]);

    // started: both events after the run's first, its message, its call row, and a delivery of tool.started only.
    expect(startedResult?.events.map((event) => event.seq)).toEqual([2, 3]);
    expect(startedResult?.nextRunOfChat).toBeNull();
    expect((await prisma.message.findMany({ where: { chatId: started.chatId } })).map((message) => message.role)).toEqual(["assistant"]);
    expect((await prisma.toolCall.findUniqueOrThrow({ where: { id: startedCallId } })).status).toBe("started");
    const deliveries = await pool.query("SELECT run_id, event_seq, event_type FROM webhook_deliveries ORDER BY run_id, event_seq");
    expect(deliveries.rows).toEqual([{ run_id: started.runId, event_seq: 3, event_type: "tool.started" }]);

    // answered: its call answered, its file read recorded, finished, and the chat handed on.
    expect(answeredResult?.run.status).toBe(RunStatus.completed);
    expect(answeredResult?.events.map((event) => event.seq)).toEqual([2, 3]);
    expect(answeredResult?.nextRunOfChat?.id).toBe(queuedBehind.runId);
    expect(await prisma.toolCall.findUniqueOrThrow({ where: { id: answeredCallId } })).toMatchObject({ status: "completed", ok: true, result: "written" });
    const reads = await pool.query("SELECT run_id, revision FROM run_file_reads WHERE run_id = $1", [answered.runId]);
    expect(reads.rows).toEqual([{ run_id: answered.runId, revision: "rev-2" }]);
    expect(await prisma.run.findUniqueOrThrow({ where: { id: answered.runId } })).toMatchObject({ output: "done", leaseOwner: null });
    expect(await prisma.message.count({ where: { chatId: answered.chatId } })).toBe(0);

    // quiet: its loop state and counters, no event.
    expect(quietResult?.run.lastEventSeq).toBe(1);
    expect(quietResult?.approvalsDecided).toBe(0);
    expect(await prisma.run.findUniqueOrThrow({ where: { id: quiet.runId } })).toMatchObject({ loopState: { quiet: true }, inputTokens: 7 });

    // decided: its approval allowed (counted), its grant and its audit entry written.
    expect(decidedResult?.approvalsDecided).toBe(1);
    expect(await prisma.approval.findUniqueOrThrow({ where: { id: decided.approvalId } })).toMatchObject({ status: "allowed", decision: "allow_task" });
    // The grant names the run's chat and, a task grant, the run: taken from the run's row.
    expect((await prisma.grant.findMany({ where: { chatId: decided.chatId } })).map((grant) => ({ id: grant.id, runId: grant.runId }))).toEqual([
      { id: grantId, runId: decided.runId },
    ]);
    expect((await prisma.auditEntry.findMany({ where: { target: `approval:${decided.approvalId}` } })).map((entry) => entry.id)).toEqual([auditId]);

    // stale: refused, and nothing of it written.
    expect(staleResult).toBeNull();
    expect(await prisma.runEvent.count({ where: { runId: stale.runId } })).toBe(1);
    expect(await prisma.toolCall.count({ where: { runId: stale.runId } })).toBe(0);
    expect(await prisma.message.count({ where: { chatId: stale.chatId } })).toBe(0);
    expect(await prisma.run.findUniqueOrThrow({ where: { id: stale.runId } })).toMatchObject({ lastEventSeq: 1, leaseVersion: stale.leaseVersion });
  });

  it("a batch of one change with a webhook event and one without writes both, with a delivery for the subscribed event only", async () => {
    const hooked = await takenRun(hookedUserId);
    const plain = await takenRun(plainUserId);
    const step = (run: { runId: string; leaseVersion: number }) => {
      const change = emptyStatementChange(run.runId, run.leaseVersion);
      change.events.push({ type: "tool.started", data: { tool_call_id: "call_1", tool: "write_file", arguments: {} } });
      return change;
    };
    const withoutEvents = emptyStatementChange(plain.runId, plain.leaseVersion);
    withoutEvents.loopState = { round: 1 };
    const { names, runner } = recording();
    const [hookedResult, plainResult] = await commitRunStatements(runner, [step(hooked), withoutEvents], new Date());
    expect(names).toEqual(["agentq_run_commit_ev"]);
    expect(hookedResult?.events.map((event) => event.seq)).toEqual([2]);
    expect(plainResult?.events).toEqual([]);
    expect(await prisma.run.findUniqueOrThrow({ where: { id: plain.runId } })).toMatchObject({ lastEventSeq: 1, loopState: { round: 1 } });
    const deliveries = await pool.query("SELECT event_seq, event_type FROM webhook_deliveries WHERE run_id = ANY ($1)", [[hooked.runId, plain.runId]]);
    expect(deliveries.rows).toEqual([{ event_seq: 2, event_type: "tool.started" }]);
    // The plain user's run with the same event, alone: no delivery.
    const [alone] = await commitRunStatements(runner, [step(plain)], new Date());
    expect(alone?.events.map((event) => event.seq)).toEqual([2]);
    expect((await pool.query("SELECT 1 FROM webhook_deliveries WHERE run_id = $1", [plain.runId])).rowCount).toBe(0);
  });
});
