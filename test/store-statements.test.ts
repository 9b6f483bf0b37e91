// Every raw SQL statement of core (packages/core/src/store/statements/, and the step commit) against
// a database cloned from the migrated template: each one returns the rows its schema promises, and
// changes, locks or refuses what it says it does. A column renamed in a migration fails here.
import pg from "pg";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { z } from "zod";
import { createChat, createUser, generateId, systemClock } from "@agentq/core";
import { LIMIT_DEFAULTS } from "../packages/core/src/runs/admit-runs.ts";
import {
  admitQueuedRunsAlone,
  admitQueuedRunsOfUser,
  lockUserLimits,
  selectUserDailyUsage,
  selectUserUsage,
} from "../packages/core/src/store/statements/admission-statements.ts";
import { deleteWorkerPresence, upsertWorkerPresence } from "../packages/core/src/store/statements/worker-statements.ts";
import { selectAutovacuumOn } from "../packages/core/src/store/statements/maintenance-statements.ts";
import { vacuumRunsWhereAutovacuumIsOff } from "../packages/core/src/runs/vacuum-runs.ts";
import { waitUntil } from "./support/wait-until.ts";
import { createRun } from "../packages/core/src/runs/create-run.ts";
import { ACTIVE_STATUSES, RunStatus } from "../packages/core/src/runs/run-status.ts";
import { createPrismaClient, type PrismaClient, sqlPoolOf } from "../packages/core/src/store/create-prisma-client.ts";
import { createRunCommitBatcher } from "../packages/core/src/store/run-commit-batcher.ts";
import { commitRunStatement, commitRunStatements, emptyStatementChange, stageFileRead } from "../packages/core/src/store/run-statement.ts";
import { inSqlTransaction, queryParsed, SqlRowError } from "../packages/core/src/store/sql-pool.ts";
import { readApprovalForDecision } from "../packages/core/src/store/statements/approval-statements.ts";
import { selectLastFileRead } from "../packages/core/src/store/statements/file-read-statements.ts";
import { lockJobStartsOfUser, markExpiredJobsLost } from "../packages/core/src/store/statements/job-statements.ts";
import { selectOne } from "../packages/core/src/store/statements/readiness-statements.ts";
import { selectRunStillUnheld, selectRunsToReconcile } from "../packages/core/src/store/statements/reconcile-statements.ts";
import { selectRunContext } from "../packages/core/src/store/statements/run-context-statements.ts";
import {
  type InsertQueuedRunInput,
  insertQueuedRun,
  lockChatForRunCreation,
  lockIdempotencyKey,
  selectRunsOfChatInStatuses,
} from "../packages/core/src/store/statements/run-create-statements.ts";
import {
  clearRunLease,
  extendRunLeases,
  selectNewRunContexts,
  selectRunLeaseState,
  takeRunLease,
} from "../packages/core/src/store/statements/run-lease-statements.ts";
import { runContextRow } from "../packages/core/src/store/statements/run-context-statements.ts";
import { lockRunForCancel, lockRunLeaseVersion } from "../packages/core/src/store/statements/run-lock-statements.ts";
import { selectOwnRun, selectRunEventsAfter, selectRunView } from "../packages/core/src/store/statements/run-read-statements.ts";
import { insertSystemSecretIfAbsent, selectSystemSecret } from "../packages/core/src/store/statements/system-secret-statements.ts";
import { selectOpenToolCalls } from "../packages/core/src/store/statements/tool-call-statements.ts";
import { insertChat, selectOwnChat } from "../packages/core/src/store/statements/chat-statements.ts";
import {
  insertApiTokenIfAbsent,
  insertUserIfAbsent,
  selectTokenOwner,
  selectUserByName,
  selectUserByTokenHash,
  updateUserRole,
} from "../packages/core/src/store/statements/user-statements.ts";
import { insertWorkspace, selectOwnWorkspace } from "../packages/core/src/store/statements/workspace-statements.ts";
import { hashApiToken } from "../packages/core/src/users/api-token.ts";
import { createTestDatabase, type TestDatabase } from "./support/database.ts";

describe("the store's SQL statements", () => {
  let database: TestDatabase;
  let prisma: PrismaClient;
  let pool: pg.Pool;
  let user: { id: string; token: string };
  let otherUserId: string;
  let workspace: { id: string; rootPath: string };

  beforeAll(async () => {
    database = await createTestDatabase();
    prisma = createPrismaClient({ databaseUrl: database.url, poolSize: 4 });
    pool = sqlPoolOf(prisma);
    user = await createUser(prisma, { name: "statements", role: "user" });
    otherUserId = (await createUser(prisma, { name: "someone-else", role: "user" })).id;
    workspace = { id: generateId("ws"), rootPath: "/nonexistent/statements-workspace" };
    await prisma.workspace.create({ data: { id: workspace.id, userId: user.id, name: "statements", rootPath: workspace.rootPath } });
  });
  afterAll(async () => {
    await prisma?.$disconnect();
    await database?.drop();
  });

  const newChat = async (workspaceId?: string) => (await createChat(prisma, { userId: user.id, title: "statements", workspaceId, generateId })).id;

  /** What insertQueuedRun takes for a run of `userId` in `chatId`, with `overrides`. */
  const createInput = (chatId: string, overrides: Partial<InsertQueuedRunInput> = {}): Omit<InsertQueuedRunInput, "runId"> => ({
    chatId,
    caller: { userId: user.id },
    activeStatuses: ACTIVE_STATUSES,
    input: "hello",
    model: "scripted",
    mode: "agent",
    allowBash: false,
    allowWebSearch: true,
    useWeb: false,
    tools: [],
    now: new Date(),
    queuedEventData: { multitask: "enqueue" },
    rejectIfActive: false,
    idempotencyKey: null,
    idempotencyExpiresAt: new Date(Date.now() + 60_000),
    limitDefaults: LIMIT_DEFAULTS,
    quotaChecked: false,
    ...overrides,
  });

  // Admitted as soon as created: this user piles up far more unfinished runs than admission lets
  // through (max_active_runs, the waiting bound); admission has its own tests (team-*.test.ts).
  const queuedRun = async (chatId: string, options: { idempotencyKey?: string } = {}) => {
    const runId = await createdRun(chatId, options);
    await pool.query("UPDATE runs SET dispatched_at = created_at WHERE id = $1 AND dispatched_at IS NULL", [runId]);
    return runId;
  };

  const runRequest = { input: "go", model: "scripted", mode: "agent", allowBash: false, allowWebSearch: true, useWeb: false, tools: [] } as const;

  const createdRun = async (chatId: string, options: { idempotencyKey?: string } = {}) =>
    (
      await createRun(
        { prisma, clock: systemClock, generateId },
        { ...runRequest, userId: user.id, chatId, multitask: "enqueue", idempotencyKey: options.idempotencyKey },
      )
    ).runId;

  const take = async (runId: string, owner = "worker-a") => {
    const taken = await takeRunLease(pool, { runId, owner, leaseSeconds: 60 });
    if (!taken) throw new Error(`could not take ${runId}`);
    return taken.lease_version;
  };

  /**
   * A run parked on two pending approvals of `write_file` (one bound to a file of the workspace), with
   * a third call of the round already answered.
   */
  const parkedRun = async () => {
    const chatId = await newChat(workspace.id);
    const runId = await queuedRun(chatId);
    const change = emptyStatementChange(runId, await take(runId));
    const calls = [
      { id: generateId("tc"), callId: "call_a", position: 0, tool: "write_file", status: "awaiting_approval" as const },
      { id: generateId("tc"), callId: "call_b", position: 1, tool: "write_file", status: "awaiting_approval" as const },
      { id: generateId("tc"), callId: "call_c", position: 2, tool: "read_file", status: "completed" as const },
    ];
    for (const call of calls) {
      change.toolCallInserts.push({
        ...call,
        round: 1,
        arguments: { path: "notes.txt" },
        effects: ["write"],
        ...(call.status === "completed" ? { ok: true, result: "x", completed: true } : {}),
      });
    }
    const approvalIds = [generateId("apr"), generateId("apr")];
    calls.slice(0, 2).forEach((call, index) => {
      change.approvals.push({
        id: approvalIds[index]!,
        runId,
        chatId,
        userId: user.id,
        toolCallRowId: call.id,
        toolCallId: call.callId,
        tool: call.tool,
        arguments: { path: "notes.txt" },
        argumentsHash: "hash",
        workspaceId: workspace.id,
        effects: ["write"],
        targetPath: index === 0 ? "notes.txt" : null,
        targetRevision: index === 0 ? "rev-1" : null,
        policyVersion: "1",
        expiresAt: new Date(Date.now() + 3_600_000),
        seal: "seal",
        taintedBy: [],
        pauseReason: "tainted",
      });
    });
    change.messages.push({
      id: generateId("msg"),
      role: "assistant",
      content: null,
      toolCalls: calls.map((call) => ({ id: call.callId, name: call.tool, arguments: { path: "notes.txt" } })),
    });
    change.status = RunStatus.awaiting_approval;
    change.releaseLease = true;
    if (!(await commitRunStatement(pool, change, new Date()))) throw new Error("the park was refused");
    return { chatId, runId, approvalIds, calls };
  };

  /** Runs `work` while another transaction holds a lock that `work` must wait for; `work` gets 100 ms. */
  const whileLocked = async (lock: (client: pg.PoolClient) => Promise<unknown>, work: (client: pg.PoolClient) => Promise<unknown>) =>
    inSqlTransaction(pool, async (holder) => {
      await lock(holder);
      return inSqlTransaction(pool, work, { lockTimeoutMs: 100 });
    });

  describe("run-lease-statements", () => {
    it("takeRunLease takes a queued run once, bumping its lease version, and refuses while the lease is live", async () => {
      const runId = await queuedRun(await newChat());
      expect(await takeRunLease(pool, { runId, owner: "worker-a", leaseSeconds: 60 })).toMatchObject({
        lease_version: 1,
        previous_status: "queued",
        previous_started: null,
        // The context is read in the same statement, as of the take.
        id: runId,
        status: "running",
        role: "user",
        open_calls: [],
      });
      expect(await takeRunLease(pool, { runId, owner: "worker-b", leaseSeconds: 60 })).toBeUndefined();
    });

    it("takeRunLease refuses a run queued behind an earlier run of its chat", async () => {
      const chatId = await newChat();
      await queuedRun(chatId);
      const second = await queuedRun(chatId);
      expect(await takeRunLease(pool, { runId: second, owner: "worker-a", leaseSeconds: 60 })).toBeUndefined();
    });

    it("takeRunLease says whether the user has runs admission would pick: queued, not admitted, nothing ahead in their chat", async () => {
      // Another user's runs: this file's other tests leave runs of `user` waiting for admission.
      const runOf = async (chatId: string, admitted: boolean) => {
        const created = await createRun({ prisma, clock: systemClock, generateId }, { ...runRequest, userId: otherUserId, chatId, multitask: "enqueue" });
        if (admitted) await pool.query("UPDATE runs SET dispatched_at = created_at WHERE id = $1", [created.runId]);
        return created.runId;
      };
      const chatOf = async () => (await createChat(prisma, { userId: otherUserId, title: "admission", workspaceId: undefined, generateId })).id;
      const busyChat = await chatOf();
      const first = await runOf(busyChat, true);
      expect(await takeRunLease(pool, { runId: first, owner: "worker-a", leaseSeconds: 60 })).toMatchObject({ admission_awaited: false });
      // Queued behind the running one in its chat: the chat hands it on, admission does not pick it.
      await runOf(busyChat, false);
      const second = await runOf(await chatOf(), true);
      expect(await takeRunLease(pool, { runId: second, owner: "worker-a", leaseSeconds: 60 })).toMatchObject({ admission_awaited: false });
      await runOf(await chatOf(), false);
      const third = await runOf(await chatOf(), true);
      expect(await takeRunLease(pool, { runId: third, owner: "worker-a", leaseSeconds: 60 })).toMatchObject({ admission_awaited: true });
    });

    it("selectNewRunContexts reads admitted runs' contexts as a take does, with admission_awaited, and skips a run no longer queued", async () => {
      const [first, second] = [await queuedRun(await newChat()), await queuedRun(await newChat())];
      const taken = await queuedRun(await newChat());
      await take(taken);
      const rows = await selectNewRunContexts(pool, [first, second, taken, "run_missing"]);
      expect(rows.map((row) => row.id).sort()).toEqual([first, second].sort());
      for (const row of rows) {
        // The JSON a take's row holds: its worker parses it as one (core runs/new-run-start.ts).
        expect(runContextRow.parse(JSON.parse(row.context))).toMatchObject({ id: row.id, status: "queued", role: "user", input: "go", open_calls: [] });
        // This file leaves runs of the user waiting for admission (queuedRun admits only its own).
        expect(typeof row.admission_awaited).toBe("boolean");
      }
    });

    it("a new run's first commit takes its lease, fenced by the version its admission read, and sets its start", async () => {
      const runId = await queuedRun(await newChat());
      const firstCommit = (owner: string) => {
        const change = emptyStatementChange(runId, 0);
        change.status = RunStatus.running;
        change.events.push({ type: "run.started", data: { model: "scripted", mode: "agent" } });
        change.handTo = { owner, leaseSeconds: 60 };
        return change;
      };
      const now = new Date();
      expect(await commitRunStatement(pool, firstCommit("worker-a"), now)).toMatchObject({ run: { status: "running", leaseVersion: 1 } });
      const { rows } = await pool.query("SELECT lease_owner, lease_version, started_at, lease_expires_at > now() AS held FROM runs WHERE id = $1", [runId]);
      expect(rows[0]).toMatchObject({ lease_owner: "worker-a", lease_version: 1, started_at: now, held: true });
      // Another worker with the same offer (or a late one) writes nothing: the version moved on.
      expect(await commitRunStatement(pool, firstCommit("worker-b"), new Date())).toBeNull();
      // Nor after a take: a queue job's take bumps the version as well.
      const other = await queuedRun(await newChat());
      await take(other, "worker-b");
      const late = emptyStatementChange(other, 0);
      late.status = RunStatus.running;
      late.handTo = { owner: "worker-a", leaseSeconds: 60 };
      expect(await commitRunStatement(pool, late, new Date())).toBeNull();
      expect((await pool.query("SELECT lease_owner FROM runs WHERE id = $1", [other])).rows[0]).toEqual({ lease_owner: "worker-b" });
      // A first commit that ends the run at once (its model unknown, say) starts it and leaves no lease.
      const failing = await queuedRun(await newChat());
      const failed = emptyStatementChange(failing, 0);
      failed.status = RunStatus.failed;
      failed.finish = { output: null, errorCode: "model_unavailable", errorMessage: "no such model" };
      failed.handTo = { owner: "worker-a", leaseSeconds: 60 };
      const failedAt = new Date();
      expect(await commitRunStatement(pool, failed, failedAt)).toMatchObject({ run: { status: "failed", leaseVersion: 1 } });
      expect((await pool.query("SELECT lease_owner, lease_expires_at, started_at FROM runs WHERE id = $1", [failing])).rows[0]).toEqual({
        lease_owner: null,
        lease_expires_at: null,
        started_at: failedAt,
      });
    });

    it("selectRunLeaseState reads the status and a live expiry, and nothing for an unknown run", async () => {
      const runId = await queuedRun(await newChat());
      await take(runId);
      const state = await selectRunLeaseState(pool, runId);
      expect(state?.status).toBe("running");
      expect(state?.lease_expires_at?.getTime()).toBeGreaterThan(Date.now());
      expect(state?.lease_held).toBe(true);
      expect(await selectRunLeaseState(pool, "run_missing")).toBeUndefined();
    });

    it("clearRunLease clears only the lease of the version that holds it", async () => {
      const runId = await queuedRun(await newChat());
      const version = await take(runId);
      expect(await clearRunLease(pool, { runId, leaseVersion: version - 1 })).toBe(0);
      expect(await clearRunLease(pool, { runId, leaseVersion: version })).toBe(1);
      expect(await selectRunLeaseState(pool, runId)).toMatchObject({ lease_expires_at: null, lease_held: false });
    });

    it("extendRunLeases renews the leases still held by their owner and version, with their cancel flag", async () => {
      const held = await queuedRun(await newChat());
      const lost = await queuedRun(await newChat());
      const heldVersion = await take(held);
      const lostVersion = await take(lost);
      await prisma.run.update({ where: { id: held }, data: { cancelRequested: true } });
      const rows = await extendRunLeases(pool, {
        leaseSeconds: 120,
        leases: [
          { runId: held, leaseVersion: heldVersion, owner: "worker-a" },
          { runId: lost, leaseVersion: lostVersion, owner: "worker-b" },
        ],
      });
      expect(rows).toEqual([{ id: held, cancel_requested: true }]);
      expect((await selectRunLeaseState(pool, held))?.lease_expires_at?.getTime()).toBeGreaterThan(Date.now() + 90_000);
    });

    it("extendRunLeases waits for no row lock: a run another transaction holds is reported held and renewed next time", async () => {
      const [free, busy] = [await queuedRun(await newChat()), await queuedRun(await newChat())];
      const leases = [
        { runId: free, leaseVersion: await take(free), owner: "worker-a" },
        { runId: busy, leaseVersion: await take(busy), owner: "worker-a" },
      ];
      const busyExpiry = (await selectRunLeaseState(pool, busy))?.lease_expires_at;
      // A step commit in progress holds the busy run's row and next asks for the free one's: had the
      // renewal waited for the busy row while holding the free one, the two would deadlock.
      const commit = await pool.connect();
      let committed = false;
      try {
        await commit.query("BEGIN");
        await commit.query("UPDATE runs SET updated_at = now() WHERE id = $1", [busy]);
        const renewal = extendRunLeases(pool, { leaseSeconds: 120, leases });
        const waited = new Promise<"waited">((resolve) => setTimeout(() => resolve("waited"), 5_000).unref());
        const rows = await Promise.race([renewal, waited]);
        expect(rows).not.toBe("waited");
        expect(new Set(rows === "waited" ? [] : rows.map((row) => row.id))).toEqual(new Set([free, busy]));
        await commit.query("UPDATE runs SET updated_at = now() WHERE id = $1", [free]);
        await commit.query("COMMIT");
        committed = true;
      } finally {
        // A transaction left open by a failed expectation must not go back to the pool.
        commit.release(!committed);
      }
      expect((await selectRunLeaseState(pool, free))?.lease_expires_at?.getTime()).toBeGreaterThan(Date.now() + 90_000);
      expect((await selectRunLeaseState(pool, busy))?.lease_expires_at).toEqual(busyExpiry);
      await extendRunLeases(pool, { leaseSeconds: 120, leases });
      expect((await selectRunLeaseState(pool, busy))?.lease_expires_at?.getTime()).toBeGreaterThan(Date.now() + 90_000);
    });

    it("the chat's next runnable run (named by a finish) is the oldest queued one, and none while another run of the chat is active", async () => {
      const finish = async (runId: string, version?: number) => {
        const change = emptyStatementChange(runId, version ?? (await take(runId)));
        change.status = RunStatus.completed;
        change.finish = { output: "", errorCode: null, errorMessage: null };
        return (await commitRunStatement(pool, change, new Date()))?.nextRunOfChat;
      };
      const chatId = await newChat();
      const [first, second] = [await queuedRun(chatId), await queuedRun(chatId)];
      expect(await finish(first)).toEqual({ id: second, generation: { lastEventSeq: 1, leaseVersion: 0 } });
      // A run of the chat parked ahead of the queued one blocks it.
      const blocked = await newChat();
      const [head, parked] = [await queuedRun(blocked), await queuedRun(blocked)];
      await queuedRun(blocked);
      const headVersion = await take(head);
      await prisma.run.update({ where: { id: parked }, data: { status: "awaiting_approval" } });
      expect(await finish(head, headVersion)).toBeNull();
    });
  });

  describe("run-lock-statements", () => {
    it("lockRunForCancel reads the run under its row lock, which a second locker waits for", async () => {
      const chatId = await newChat();
      const runId = await queuedRun(chatId);
      const locked = await inSqlTransaction(pool, (client) => lockRunForCancel(client, runId));
      expect(locked).toEqual({ status: "queued", chat_id: chatId, lease_version: 0 });
      await expect(
        whileLocked(
          (holder) => lockRunForCancel(holder, runId),
          (client) => lockRunForCancel(client, runId),
        ),
      ).rejects.toThrow(/lock timeout/);
      expect(await lockRunForCancel(pool, "run_missing")).toBeUndefined();
    });

    it("lockRunLeaseVersion reads the lease version under the run's row lock", async () => {
      const runId = await queuedRun(await newChat());
      const version = await take(runId);
      expect(await inSqlTransaction(pool, (client) => lockRunLeaseVersion(client, runId))).toEqual({ lease_version: version });
      await expect(
        whileLocked(
          (holder) => lockRunLeaseVersion(holder, runId),
          (client) => lockRunLeaseVersion(client, runId),
        ),
      ).rejects.toThrow(/lock timeout/);
      expect(await lockRunLeaseVersion(pool, "run_missing")).toBeUndefined();
    });
  });

  describe("run-read-statements", () => {
    it("selectRunView gives the owner the run with its pending approvals in call order, and others nothing", async () => {
      const { runId, approvalIds } = await parkedRun();
      const view = await selectRunView(pool, { runId, userId: user.id });
      expect(view?.status).toBe("awaiting_approval");
      expect(view?.pending_approvals.map((approval) => approval.id)).toEqual(approvalIds);
      expect(Number.isNaN(Date.parse(view?.pending_approvals[0]?.expires_at ?? ""))).toBe(false);
      expect(await selectRunView(pool, { runId, userId: otherUserId })).toBeUndefined();
    });

    it("selectOwnRun answers only the run's owner", async () => {
      const chatId = await newChat();
      const runId = await queuedRun(chatId);
      expect(await selectOwnRun(pool, { runId, userId: user.id })).toEqual({ id: runId, status: "queued", chatId });
      expect(await selectOwnRun(pool, { runId, userId: otherUserId })).toBeUndefined();
    });

    it("selectRunEventsAfter pages events after a seq, with one event-less row past the end and none for an unknown run", async () => {
      const runId = await queuedRun(await newChat());
      const [queued] = await selectRunEventsAfter(pool, { runId, after: 0, limit: 10 });
      expect(queued).toMatchObject({ run_status: "queued", last_event_seq: 1, seq: 1, type: "run.queued", data: { multitask: "enqueue" } });
      expect(await selectRunEventsAfter(pool, { runId, after: 1, limit: 10 })).toEqual([
        { run_status: "queued", last_event_seq: 1, seq: null, type: null, created_at: null, data: null },
      ]);
      expect(await selectRunEventsAfter(pool, { runId: "run_missing", after: 0, limit: 10 })).toEqual([]);
    });
  });

  describe("run-create-statements", () => {
    it("lockIdempotencyKey makes a second holder of the same key wait", async () => {
      await expect(
        whileLocked(
          (holder) => lockIdempotencyKey(holder, "idem:test:same"),
          (client) => lockIdempotencyKey(client, "idem:test:same"),
        ),
      ).rejects.toThrow(/lock timeout/);
      await expect(
        whileLocked(
          (holder) => lockIdempotencyKey(holder, "idem:test:one"),
          (client) => lockIdempotencyKey(client, "idem:test:other"),
        ),
      ).resolves.toBeUndefined();
    });

    it("lockChatForRunCreation finds the user's chat and the run a live key names", async () => {
      const chatId = await newChat();
      const runId = await queuedRun(chatId, { idempotencyKey: "key-1" });
      const now = new Date();
      expect(await lockChatForRunCreation(pool, { chatId, userId: user.id, idempotencyKey: "key-1", now })).toEqual({
        chat_id: chatId,
        existing_run_id: runId,
      });
      expect(await lockChatForRunCreation(pool, { chatId, userId: user.id, idempotencyKey: null, now })).toEqual({ chat_id: chatId, existing_run_id: null });
      expect(await lockChatForRunCreation(pool, { chatId, userId: otherUserId, idempotencyKey: null, now })).toEqual({ chat_id: null, existing_run_id: null });
    });

    it("selectRunsOfChatInStatuses lists the chat's runs in those statuses, oldest first", async () => {
      const chatId = await newChat();
      const first = await queuedRun(chatId);
      const second = await queuedRun(chatId);
      expect((await selectRunsOfChatInStatuses(pool, { chatId, statuses: ACTIVE_STATUSES })).map((run) => run.id)).toEqual([first, second]);
      expect(await selectRunsOfChatInStatuses(pool, { chatId, statuses: [RunStatus.running] })).toEqual([]);
    });

    it("insertQueuedRun that waited for another creation's lock in the chat creates nothing and says its read was stale", async () => {
      const chatId = await newChat();
      const input = createInput(chatId);
      const holder = await pool.connect();
      try {
        await holder.query("BEGIN");
        const first = await insertQueuedRun(holder, { ...input, runId: generateId("run") });
        expect(first?.created_at).toBeInstanceOf(Date);
        // The second starts (and reads the chat's runs) while the first holds the chat: it waits for the lock.
        const second = insertQueuedRun(pool, { ...input, runId: generateId("run") });
        await waitUntil("the second creation waits for the chat's lock", async () => {
          const { rows } = await pool.query(
            "SELECT count(*)::int AS waiting FROM pg_stat_activity WHERE wait_event_type = 'Lock' AND datname = current_database()",
          );
          return rows[0].waiting > 0 ? true : undefined;
        });
        await holder.query("COMMIT");
        expect(await second).toMatchObject({ created_at: null, chat_found: true, fresh: false });
      } finally {
        holder.release();
      }
      expect(await prisma.run.count({ where: { chatId } })).toBe(1);
      // Read again now, the chat is fresh: the run is created behind the first.
      expect(await insertQueuedRun(pool, { ...input, runId: generateId("run") })).toMatchObject({ fresh: true, blocking_runs: 1 });
    });

    it("insertQueuedRun creates the run with its first event and key, reports the user's daily quotas, and creates nothing when 'reject' finds an active run", async () => {
      const chatId = await newChat();
      const input = createInput(chatId, { queuedEventData: { multitask: "reject" }, idempotencyKey: "create-key", quotaChecked: true });
      const runId = generateId("run");
      const created = await insertQueuedRun(pool, { ...input, runId, rejectIfActive: true });
      expect(created).toMatchObject({ first_active_id: null, blocking_runs: 0 });
      expect(created?.created_at).toBeInstanceOf(Date);
      expect((await selectRunEventsAfter(pool, { runId, after: 0, limit: 10 })).map((row) => row.type)).toEqual(["run.queued"]);
      expect(await prisma.idempotencyKey.findFirst({ where: { userId: user.id, key: "create-key" } })).toMatchObject({ runId });

      // The user's own quota, which creation must check under their lock.
      await pool.query("UPDATE users SET runs_per_day = 7 WHERE id = $1", [user.id]);
      const refused = await insertQueuedRun(pool, { ...input, runId: generateId("run"), rejectIfActive: true, idempotencyKey: null });
      expect(refused).toEqual({
        created_at: null,
        chat_found: true,
        fresh: true,
        quota_free: true,
        first_active_id: runId,
        blocking_runs: 1,
        runs_per_day: 7,
        tokens_per_day: 0,
        caller: { id: user.id, name: "statements", role: "user" },
      });
      // Without the user's lock, a user with a quota gets no run: the caller must check it under the lock.
      const unchecked = await insertQueuedRun(pool, { ...input, runId: generateId("run"), rejectIfActive: false, idempotencyKey: null, quotaChecked: false });
      expect(unchecked).toMatchObject({ created_at: null, chat_found: true, quota_free: false });
      expect(await prisma.run.count({ where: { chatId } })).toBe(1);
      expect(await prisma.run.count({ where: { chatId } })).toBe(1);
      await pool.query("UPDATE users SET runs_per_day = NULL WHERE id = $1", [user.id]);
    });

    it("insertQueuedRun authenticates a token's hash in the same statement: a working token creates for its user, any other creates nothing", async () => {
      const chatId = await newChat();
      const byToken = createInput(chatId, { caller: { tokenHash: hashApiToken(user.token) } });
      const runId = generateId("run");
      const created = await insertQueuedRun(pool, { ...byToken, runId });
      expect(created).toMatchObject({ chat_found: true, caller: { id: user.id, name: "statements", role: "user" } });
      expect(created?.created_at).toBeInstanceOf(Date);
      expect(await prisma.run.findUnique({ where: { id: runId } })).toMatchObject({ userId: user.id, chatId });
      const refused = createInput(chatId, { caller: { tokenHash: hashApiToken("aq_unknown") } });
      expect(await insertQueuedRun(pool, { ...refused, runId: generateId("run") })).toBeUndefined();
      // A disabled user's token finds no caller, as the middleware finds none.
      await prisma.user.update({ where: { id: user.id }, data: { disabled: true } });
      try {
        expect(await insertQueuedRun(pool, { ...byToken, runId: generateId("run") })).toBeUndefined();
      } finally {
        await prisma.user.update({ where: { id: user.id }, data: { disabled: false } });
      }
      expect(await prisma.run.count({ where: { chatId } })).toBe(1);
      expect(await prisma.runEvent.count({ where: { runId } })).toBe(1);
    });
  });

  describe("admission-statements", () => {
    /** A user of their own with max_active_runs 1 and two queued runs in two chats, none admitted. */
    const userWithTwoQueuedRuns = async (name: string) => {
      const owner = await createUser(prisma, { name, role: "user" });
      await pool.query("UPDATE users SET max_active_runs = 1 WHERE id = $1", [owner.id]);
      const runIds: string[] = [];
      for (const index of [1, 2]) {
        const chatId = (await createChat(prisma, { userId: owner.id, title: `admission ${index}`, workspaceId: undefined, generateId })).id;
        const runId = generateId("run");
        const created = await insertQueuedRun(pool, { ...createInput(chatId, { caller: { userId: owner.id }, now: new Date(Date.now() + index) }), runId });
        expect(created?.created_at).toBeInstanceOf(Date);
        runIds.push(runId);
      }
      return { userId: owner.id, runIds };
    };
    const admitted = async (runIds: string[]) =>
      (await pool.query("SELECT id FROM runs WHERE id = ANY($1) AND dispatched_at IS NOT NULL ORDER BY created_at", [runIds])).rows.map((row) => row.id);

    it("admitQueuedRunsAlone admits the oldest runs the user's limit leaves room for, in one statement", async () => {
      const { userId, runIds } = await userWithTwoQueuedRuns("admission-alone");
      const result = await admitQueuedRunsAlone(pool, { userId, maxWaiting: 10, now: new Date(), defaults: LIMIT_DEFAULTS });
      expect(result).toMatchObject({ found: true, fresh: true, admitted: [{ id: runIds[0] }] });
      expect(await admitted(runIds)).toEqual([runIds[0]]);
      expect(await admitQueuedRunsAlone(pool, { runId: runIds[1], maxWaiting: 10, now: new Date(), defaults: LIMIT_DEFAULTS })).toMatchObject({
        fresh: true,
        admitted: [],
      });
      expect(await admitQueuedRunsAlone(pool, { userId: "user_missing", maxWaiting: 10, now: new Date(), defaults: LIMIT_DEFAULTS })).toMatchObject({
        found: false,
      });
    });

    it("admission raises the waiting bound to the idle slots of the workers seen lately, and keeps it while none are idle", async () => {
      const owner = await createUser(prisma, { name: "admission-idle", role: "user" });
      await pool.query("UPDATE users SET max_active_runs = 100 WHERE id = $1", [owner.id]);
      const runIds: string[] = [];
      for (const index of [1, 2, 3, 4, 5]) {
        const chatId = (await createChat(prisma, { userId: owner.id, title: `idle ${index}`, workspaceId: undefined, generateId })).id;
        const runId = generateId("run");
        await insertQueuedRun(pool, { ...createInput(chatId, { caller: { userId: owner.id }, now: new Date(Date.now() + index) }), runId });
        runIds.push(runId);
      }
      const workerId = generateId("worker");
      const admit = () => admitQueuedRunsAlone(pool, { userId: owner.id, maxWaiting: 2, now: new Date(), defaults: LIMIT_DEFAULTS });
      try {
        // A worker last seen a minute ago counts for nothing: the bound stays 2.
        await upsertWorkerPresence(pool, { id: workerId, host: "test", startedAt: new Date(), concurrency: 1000, activeRuns: 0, leaseMs: 30_000 });
        await pool.query("UPDATE workers SET last_seen_at = now() - interval '1 minute' WHERE id = $1", [workerId]);
        expect((await admit()).admitted.map((run) => run.id)).toEqual(runIds.slice(0, 2));
        // Seen now, with 1000 slots and far fewer active runs: every run it can start now.
        await upsertWorkerPresence(pool, { id: workerId, host: "test", startedAt: new Date(), concurrency: 1000, activeRuns: 0, leaseMs: 30_000 });
        expect((await admit()).admitted.map((run) => run.id)).toEqual(runIds.slice(2));
      } finally {
        await deleteWorkerPresence(pool, workerId);
      }
    });

    it("admitQueuedRunsAlone takes no lock when nothing of the user's waits for admission", async () => {
      const { userId, runIds } = await userWithTwoQueuedRuns("admission-nothing-waits");
      await pool.query("UPDATE runs SET dispatched_at = created_at WHERE id = ANY($1)", [runIds]);
      const holder = await pool.connect();
      try {
        await holder.query("BEGIN");
        expect(await lockUserLimits(holder, { userId, defaults: LIMIT_DEFAULTS })).toBeDefined();
        // Answered while the holder keeps the user's lock: it did not wait for it.
        expect(await admitQueuedRunsAlone(pool, { userId, maxWaiting: 10, now: new Date(), defaults: LIMIT_DEFAULTS })).toMatchObject({
          found: false,
          admitted: [],
        });
      } finally {
        await holder.query("ROLLBACK");
        holder.release();
      }
    });

    it("usage counts only running and admitted runs as active, and a quota check counts the day's runs up to one past its limit, with 10,000 runs waiting for admission", async () => {
      const owner = await createUser(prisma, { name: "usage-backlog", role: "user" });
      const chatId = (await createChat(prisma, { userId: owner.id, title: "backlog", workspaceId: undefined, generateId })).id;
      const dayStart = new Date("2031-01-01T00:00:00.000Z");
      const run = (id: string, values: string) =>
        `INSERT INTO runs (id, chat_id, user_id, input, model, status, dispatched_at, input_tokens, output_tokens, created_at) VALUES ('${id}', $1, $2, 'x', 'scripted', ${values})`;
      await pool.query(
        `INSERT INTO runs (id, chat_id, user_id, input, model, created_at)
        SELECT 'run_backlog_' || g, $1, $2, 'x', 'scripted', $3::timestamptz + g * interval '1 millisecond' FROM generate_series(1, 10000) AS g`,
        [chatId, owner.id, dayStart],
      );
      for (const [id, values] of [
        ["run_usage_running_1", `'running', $3, 100, 10, $3`],
        ["run_usage_running_2", `'running', $3, 100, 10, $3`],
        ["run_usage_admitted", `'queued', $3, 0, 0, $3`],
        ["run_usage_parked", `'awaiting_approval', $3, 3, 2, $3`],
        ["run_usage_yesterday", `'completed', $3::timestamptz - interval '1 hour', 1000, 1000, $3::timestamptz - interval '1 hour'`],
      ]) {
        await pool.query(run(`${id}_${owner.id}`, values as string), [chatId, owner.id, dayStart]);
      }
      expect(await selectUserUsage(pool, { userId: owner.id, dayStart })).toEqual({ active_runs: 3, runs_today: 10_004, tokens_today: 225 });

      // The runs and the index entries of runs one quota check reads: the count stops one past its limit.
      // (The backend's counters also hold earlier transactions' reads until it reports them: a difference.)
      const readByQuotaCheck = (input: { countRunsUpTo: number; sumTokens: boolean }) =>
        inSqlTransaction(pool, async (client) => {
          const readSoFar = async () =>
            (
              await client.query(
                `SELECT sum(pg_stat_get_xact_tuples_returned(oid))::int AS read FROM pg_class
                WHERE oid = 'runs'::regclass OR oid IN (SELECT indexrelid FROM pg_index WHERE indrelid = 'runs'::regclass)`,
              )
            ).rows[0].read as number;
          const before = await readSoFar();
          const usage = await selectUserDailyUsage(client, { userId: owner.id, dayStart, ...input });
          return { usage, read: (await readSoFar()) - before };
        });
      const counted = await readByQuotaCheck({ countRunsUpTo: 6, sumTokens: false });
      expect(counted.usage).toEqual({ runs_today: 6, tokens_today: 0 });
      expect(counted.read).toBeLessThan(20);
      expect((await readByQuotaCheck({ countRunsUpTo: 0, sumTokens: true })).usage).toEqual({ runs_today: 0, tokens_today: 225 });
      // Counted past the whole day, it reads every run of it: what the bound saves.
      const everything = await readByQuotaCheck({ countRunsUpTo: 20_000, sumTokens: false });
      expect(everything.usage).toEqual({ runs_today: 10_004, tokens_today: 0 });
      expect(everything.read).toBeGreaterThanOrEqual(10_004);
    });

    it("admitQueuedRunsAlone that waited for another admission of the user admits nothing and says its read was stale", async () => {
      const { userId, runIds } = await userWithTwoQueuedRuns("admission-stale");
      const holder = await pool.connect();
      try {
        await holder.query("BEGIN");
        const limits = await lockUserLimits(holder, { userId, defaults: LIMIT_DEFAULTS });
        expect(limits?.max_active_runs).toBe(1);
        expect(await admitQueuedRunsOfUser(holder, { userId, maxActiveRuns: 1, maxWaiting: 10, now: new Date() })).toHaveLength(1);
        // Read before the first admission commits: on that read, the second run would fit too.
        const second = admitQueuedRunsAlone(pool, { userId, maxWaiting: 10, now: new Date(), defaults: LIMIT_DEFAULTS });
        await waitUntil("the second admission waits for the user's lock", async () => {
          const { rows } = await pool.query(
            "SELECT count(*)::int AS waiting FROM pg_stat_activity WHERE wait_event_type = 'Lock' AND datname = current_database()",
          );
          return rows[0].waiting > 0 ? true : undefined;
        });
        await holder.query("COMMIT");
        expect(await second).toEqual({ found: true, fresh: false, admitted: [] });
      } finally {
        holder.release();
      }
      // max_active_runs 1 holds: only the first run is admitted.
      expect(await admitted(runIds)).toEqual([runIds[0]]);
    });
  });

  describe("tool-call-statements", () => {
    it("selectOpenToolCalls lists the calls without a result, in call order", async () => {
      const { runId, calls } = await parkedRun();
      expect(await selectOpenToolCalls(pool, runId)).toEqual([
        { id: calls[0]!.id, callId: "call_a", tool: "write_file", status: "awaiting_approval" },
        { id: calls[1]!.id, callId: "call_b", tool: "write_file", status: "awaiting_approval" },
      ]);
    });
  });

  describe("run-context-statements", () => {
    it("selectRunContext reads the run, its role, workspace, messages and open calls with their approvals", async () => {
      const { runId, approvalIds } = await parkedRun();
      const context = await selectRunContext(pool, runId);
      expect(context).toMatchObject({ id: runId, status: "awaiting_approval", role: "user", workspace_id: workspace.id, workspace_root: workspace.rootPath });
      expect(context?.messages.map((message) => message.role)).toEqual(["assistant"]);
      expect(context?.open_calls.map((call) => [call.callId, call.approval?.id, call.approval?.status])).toEqual([
        ["call_a", approvalIds[0], "pending"],
        ["call_b", approvalIds[1], "pending"],
      ]);
      expect(await selectRunContext(pool, "run_missing")).toBeUndefined();
    });
  });

  describe("approval-statements", () => {
    it("readApprovalForDecision reads the owner's approval with its run's state, the other pending calls of its tool and its bound file", async () => {
      const { runId, approvalIds, calls } = await parkedRun();
      const read = await readApprovalForDecision(pool, { approvalId: approvalIds[0]!, caller: { userId: user.id }, workerSeenSeconds: 30 });
      expect(read?.caller).toEqual({ id: user.id, name: "statements", role: "user" });
      const approval = read?.approval;
      expect(approval).toMatchObject({
        id: approvalIds[0],
        runId,
        status: "pending",
        runStatus: "awaiting_approval",
        pendingCount: 2,
        effects: ["write"],
        targetPath: "notes.txt",
        rootPath: workspace.rootPath,
        documentRevision: null,
        email: null,
        offerWorker: null,
      });
      expect(approval?.expiresAt).toBeInstanceOf(Date);
      const run = await prisma.run.findUniqueOrThrow({ where: { id: runId } });
      expect(approval).toMatchObject({ leaseVersion: run.leaseVersion, lastEventSeq: run.lastEventSeq });
      expect(approval?.sameToolPending).toEqual([{ id: approvalIds[1], toolCallId: calls[1]!.callId, effects: ["write"] }]);
      // Someone else's: their row without the approval; no such user: no row.
      const other = await readApprovalForDecision(pool, { approvalId: approvalIds[0]!, caller: { userId: otherUserId }, workerSeenSeconds: 30 });
      expect(other?.caller.id).toBe(otherUserId);
      expect(other?.approval).toBeUndefined();
      expect(await readApprovalForDecision(pool, { approvalId: approvalIds[0]!, caller: { userId: "user_missing" }, workerSeenSeconds: 30 })).toBeUndefined();
    });

    it("readApprovalForDecision authenticates a token's hash in the same statement: a working token finds its user, any other none", async () => {
      const { approvalIds } = await parkedRun();
      const token = user.token;
      const byToken = await readApprovalForDecision(pool, { approvalId: approvalIds[0]!, caller: { tokenHash: hashApiToken(token) }, workerSeenSeconds: 30 });
      expect(byToken?.caller.id).toBe(user.id);
      expect(byToken?.approval?.id).toBe(approvalIds[0]);
      expect(
        await readApprovalForDecision(pool, { approvalId: approvalIds[0]!, caller: { tokenHash: hashApiToken("aq_unknown") }, workerSeenSeconds: 30 }),
      ).toBeUndefined();
      // A disabled user's token finds no caller, as the middleware finds none.
      await prisma.user.update({ where: { id: user.id }, data: { disabled: true } });
      try {
        expect(
          await readApprovalForDecision(pool, { approvalId: approvalIds[0]!, caller: { tokenHash: hashApiToken(token) }, workerSeenSeconds: 30 }),
        ).toBeUndefined();
      } finally {
        await prisma.user.update({ where: { id: user.id }, data: { disabled: false } });
      }
    });

    it("readApprovalForDecision offers the run to a worker seen alive, weighted by its free slots, never to a silent one", async () => {
      const { approvalIds } = await parkedRun();
      const offerWorker = async () =>
        (await readApprovalForDecision(pool, { approvalId: approvalIds[0]!, caller: { userId: user.id }, workerSeenSeconds: 30 }))?.approval?.offerWorker;
      await pool.query(
        "INSERT INTO workers (id, host, started_at, last_seen_at, concurrency, active_runs) VALUES ('worker-silent', 'h', now(), now() - interval '31 seconds', 50, 0)",
      );
      expect(await offerWorker()).toBeNull();
      // Full as of its last beat, but it may have freed slots since (and enqueues what it cannot take).
      await pool.query("INSERT INTO workers (id, host, started_at, last_seen_at, concurrency, active_runs) VALUES ('worker-full', 'h', now(), now(), 50, 50)");
      expect(await offerWorker()).toBe("worker-full");
      // A million free slots against the full one's weight of one: the odds of five misses are about 1 in 10^29.
      await pool.query(
        "INSERT INTO workers (id, host, started_at, last_seen_at, concurrency, active_runs) VALUES ('worker-free', 'h', now(), now(), 1000000, 0)",
      );
      for (let attempt = 0; attempt < 5; attempt++) expect(await offerWorker()).toBe("worker-free");
      await pool.query("DELETE FROM workers WHERE id IN ('worker-silent', 'worker-full', 'worker-free')");
    });

    it("a decision's commit fenced by the last event seq it read writes nothing once another change has been committed to the run", async () => {
      const { runId, approvalIds } = await parkedRun();
      const read = (await readApprovalForDecision(pool, { approvalId: approvalIds[0]!, caller: { userId: user.id }, workerSeenSeconds: 30 }))?.approval;
      const decision = (approvalId: string, lastEventSeq: number) => {
        const change = emptyStatementChange(runId, read!.leaseVersion);
        change.expectedLastEventSeq = lastEventSeq;
        change.events.push({ type: "approval.decided", data: { approval_id: approvalId } } as never);
        change.approvalDecisions.push({ id: approvalId, status: "denied", decision: "deny", decidedBy: user.id });
        return change;
      };
      // The other approval is decided first, at the seq both read.
      const first = await commitRunStatement(pool, decision(approvalIds[1]!, read!.lastEventSeq), new Date());
      expect(first?.approvalsDecided).toBe(1);
      expect(await commitRunStatement(pool, decision(approvalIds[0]!, read!.lastEventSeq), new Date())).toBeNull();
      expect((await prisma.approval.findUniqueOrThrow({ where: { id: approvalIds[0]! } })).status).toBe("pending");
      const events = await prisma.runEvent.findMany({ where: { runId, type: "approval.decided" } });
      expect(events).toHaveLength(1);
      // Read again, at the new seq: it goes through.
      const again = await commitRunStatement(pool, decision(approvalIds[0]!, first!.run.lastEventSeq), new Date());
      expect(again?.approvalsDecided).toBe(1);
    });
  });

  describe("user, file-read, system-secret and job statements", () => {
    it("selectUserByTokenHash finds the token's user and no one for an unknown token", async () => {
      expect(await selectUserByTokenHash(pool, hashApiToken(user.token))).toEqual({ id: user.id, name: "statements", role: "user" });
      expect(await selectUserByTokenHash(pool, hashApiToken("not-a-token"))).toBeUndefined();
    });

    it("the admin bootstrap's statements insert once, read back, change the role and register a token once", async () => {
      expect(await insertUserIfAbsent(pool, { id: "usr_boot", name: "boot", role: "user" })).toBe(1);
      expect(await insertUserIfAbsent(pool, { id: "usr_boot2", name: "boot", role: "admin" })).toBe(0);
      expect(await selectUserByName(pool, "boot")).toEqual({ id: "usr_boot", role: "user" });
      expect(await updateUserRole(pool, { userId: "usr_boot", role: "admin" })).toBe(1);
      expect(await selectUserByName(pool, "boot")).toEqual({ id: "usr_boot", role: "admin" });
      expect(await selectUserByName(pool, "nobody")).toBeUndefined();
      expect(await insertApiTokenIfAbsent(pool, { id: "tok_boot", userId: "usr_boot", tokenHash: "hash-boot" })).toBe(1);
      expect(await insertApiTokenIfAbsent(pool, { id: "tok_boot2", userId: user.id, tokenHash: "hash-boot" })).toBe(0);
      expect(await selectTokenOwner(pool, "hash-boot")).toBe("usr_boot");
      expect(await selectTokenOwner(pool, "hash-none")).toBeUndefined();
    });

    it("workspace and chat statements are scoped to their owner", async () => {
      const inserted = await insertWorkspace(pool, { id: "ws_stmt", userId: user.id, name: "stmt", rootPath: "/nonexistent/ws_stmt" });
      expect(inserted).toEqual({ id: "ws_stmt", name: "stmt", userId: user.id, rootPath: "/nonexistent/ws_stmt" });
      expect(await selectOwnWorkspace(pool, { workspaceId: "ws_stmt", userId: user.id })).toEqual(inserted);
      expect(await selectOwnWorkspace(pool, { workspaceId: "ws_stmt", userId: otherUserId })).toBeUndefined();
      expect(await insertChat(pool, { id: "chat_stmt", userId: user.id, title: "t", workspaceId: "ws_stmt" })).toEqual({
        id: "chat_stmt",
        title: "t",
        workspace_id: "ws_stmt",
      });
      expect(await insertChat(pool, { id: "chat_plain", userId: user.id, title: "t", workspaceId: null })).toEqual({
        id: "chat_plain",
        title: "t",
        workspace_id: null,
      });
      // Someone else's workspace: no chat.
      expect(await insertChat(pool, { id: "chat_other", userId: otherUserId, title: "t", workspaceId: "ws_stmt" })).toBeUndefined();
      expect(await selectOwnChat(pool, { chatId: "chat_other", userId: otherUserId })).toBeUndefined();
      expect(await selectOwnChat(pool, { chatId: "chat_stmt", userId: user.id })).toEqual({ id: "chat_stmt", workspaceId: "ws_stmt" });
      expect(await selectOwnChat(pool, { chatId: "chat_stmt", userId: otherUserId })).toBeUndefined();
    });

    it("insertSystemSecretIfAbsent stores the first value only", async () => {
      expect(await insertSystemSecretIfAbsent(pool, { name: "test_secret", value: "first" })).toBe(1);
      expect(await insertSystemSecretIfAbsent(pool, { name: "test_secret", value: "second" })).toBe(0);
      expect((await prisma.systemSecret.findUniqueOrThrow({ where: { name: "test_secret" } })).value).toBe("first");
      expect(await selectSystemSecret(pool, "test_secret")).toBe("first");
      expect(await selectSystemSecret(pool, "no_such_secret")).toBeUndefined();
    });

    it("markExpiredJobsLost marks only running jobs whose lease expired", async () => {
      const now = new Date();
      const job = (id: string, status: "running" | "exited", leaseExpiresAt: Date) => ({
        id,
        userId: user.id,
        workspaceId: workspace.id,
        name: id,
        command: "sleep 1",
        status,
        ownerWorker: "worker-gone",
        leaseExpiresAt,
        outputPath: `/nonexistent/${id}`,
      });
      await prisma.job.createMany({
        data: [
          job("job_expired", "running", new Date(now.getTime() - 1000)),
          job("job_live", "running", new Date(now.getTime() + 60_000)),
          job("job_exited", "exited", new Date(now.getTime() - 1000)),
        ],
      });
      expect(await markExpiredJobsLost(pool, now)).toEqual(["job_expired"]);
      const statuses = await prisma.job.findMany({ where: { userId: user.id }, select: { id: true, status: true, endedAt: true }, orderBy: { id: "asc" } });
      expect(statuses).toEqual([
        { id: "job_exited", status: "exited", endedAt: null },
        { id: "job_expired", status: "lost", endedAt: now },
        { id: "job_live", status: "running", endedAt: null },
      ]);
      expect(await markExpiredJobsLost(pool, now)).toEqual([]);
    });

    it("lockJobStartsOfUser holds the user's job-start lock until the Prisma transaction ends", async () => {
      // Another session's try: false while the lock is held (a transaction-scoped try, released at once).
      const tryLock = () =>
        inSqlTransaction(pool, async (client) => {
          const result = await client.query<{ locked: boolean }>("SELECT pg_try_advisory_xact_lock(hashtext('agentq.jobs'), hashtext($1)) AS locked", [
            user.id,
          ]);
          return result.rows[0]?.locked;
        });
      const heldInside = await prisma.$transaction(async (tx) => {
        await lockJobStartsOfUser(tx, user.id);
        return tryLock();
      });
      expect(heldInside).toBe(false);
      expect(await tryLock()).toBe(true);
    });
  });

  describe("reconcile-statements", () => {
    it("selectRunsToReconcile finds queued runs past the grace and running runs whose lease expired, not live ones", async () => {
      const queued = await queuedRun(await newChat());
      const expired = await queuedRun(await newChat());
      const live = await queuedRun(await newChat());
      await take(expired);
      await take(live);
      await prisma.run.update({ where: { id: expired }, data: { leaseExpiresAt: new Date(Date.now() - 1000) } });
      const mine = (rows: { id: string }[]) => rows.map((row) => row.id).filter((id) => [queued, expired, live].includes(id));
      expect(mine(await selectRunsToReconcile(pool, { graceSeconds: 0, limit: 10_000 })).sort()).toEqual([queued, expired].sort());
      expect(mine(await selectRunsToReconcile(pool, { graceSeconds: 600, limit: 10_000 }))).toEqual([expired]);
    });

    it("selectRunStillUnheld answers only for the generation that was read", async () => {
      const runId = await queuedRun(await newChat());
      expect(await selectRunStillUnheld(pool, { runId, lastEventSeq: 1, leaseVersion: 0 })).toEqual({ id: runId });
      expect(await selectRunStillUnheld(pool, { runId, lastEventSeq: 1, leaseVersion: 1 })).toBeUndefined();
      await take(runId);
      expect(await selectRunStillUnheld(pool, { runId, lastEventSeq: 1, leaseVersion: 1 })).toBeUndefined();
    });
  });

  describe("maintenance-statements and the sweep's vacuum", () => {
    it("the sweep vacuums runs where autovacuum is off, and leaves it to autovacuum where it is on", async () => {
      const runId = await queuedRun(await newChat());
      // dispatched_at is indexed: each of these updates writes index entries and leaves the old ones.
      for (let i = 0; i < 20; i += 1) await pool.query("UPDATE runs SET dispatched_at = clock_timestamp() WHERE id = $1", [runId]);
      const vacuums = async () =>
        Number((await pool.query<{ count: string }>("SELECT vacuum_count AS count FROM pg_stat_user_tables WHERE relid = 'runs'::regclass")).rows[0]?.count);
      const { rows } = await pool.query<{ on: boolean }>("SELECT current_setting('autovacuum')::boolean AS on");
      const autovacuum = rows[0]?.on === true;
      expect(await selectAutovacuumOn(pool)).toBe(autovacuum);
      const before = await vacuums();
      expect(await vacuumRunsWhereAutovacuumIsOff(prisma)).toBe(!autovacuum);
      await waitUntil("the vacuum counted", async () => ((await vacuums()) === before + (autovacuum ? 0 : 1) ? true : undefined));
    });
  });

  describe("the probe, the step commit and the row check", () => {
    it("selectOne answers on a live pool and fails on one that has ended", async () => {
      await expect(selectOne(pool)).resolves.toBeUndefined();
      const ended = new pg.Pool({ connectionString: database.url, max: 1 });
      await ended.end();
      await expect(selectOne(ended)).rejects.toThrow();
    });

    it("commitRunStatement returns the checked run row, and nothing under a stale lease version", async () => {
      const runId = await queuedRun(await newChat());
      const version = await take(runId);
      const step = emptyStatementChange(runId, version);
      step.events.push({ type: "run.started", data: { model: "scripted", mode: "agent" } });
      const committed = await commitRunStatement(pool, step, new Date());
      expect(committed?.run).toEqual({ id: runId, status: "running", cancelRequested: false, lastEventSeq: 2, leaseVersion: version });
      expect(committed?.events.map((event) => event.seq)).toEqual([2]);
      expect(await commitRunStatement(pool, emptyStatementChange(runId, version - 1), new Date())).toBeNull();
    });

    it("commitRunStatement upserts the staged file reads with the step, and none under a stale lease version", async () => {
      const runId = await queuedRun(await newChat(workspace.id));
      const version = await take(runId);
      const file = { runId, workspaceId: workspace.id, path: "notes.txt" };
      const stale = emptyStatementChange(runId, version - 1);
      stageFileRead(stale, { workspaceId: workspace.id, path: "notes.txt", revision: "rev-0" });
      expect(await commitRunStatement(pool, stale, new Date())).toBeNull();
      expect(await selectLastFileRead(pool, file)).toBeUndefined();
      const first = emptyStatementChange(runId, version);
      stageFileRead(first, { workspaceId: workspace.id, path: "notes.txt", revision: "rev-1" });
      stageFileRead(first, { workspaceId: workspace.id, path: "notes.txt", revision: "rev-2" });
      expect(first.fileReads).toHaveLength(1);
      await commitRunStatement(pool, first, new Date());
      expect(await selectLastFileRead(pool, file)).toEqual({ revision: "rev-2" });
      const next = emptyStatementChange(runId, version);
      stageFileRead(next, { workspaceId: workspace.id, path: "notes.txt", revision: "rev-3" });
      await commitRunStatement(pool, next, new Date());
      expect(await selectLastFileRead(pool, file)).toEqual({ revision: "rev-3" });
    });

    it("a deleted run takes the rows its commits wrote (events, tool calls, approvals, task grants, file reads), and its messages and its chat's grants stay in the chat without it", async () => {
      const rowsOf = async (run: { runId: string; chatId: string }) => ({
        events: await prisma.runEvent.count({ where: { runId: run.runId } }),
        toolCalls: await prisma.toolCall.count({ where: { runId: run.runId } }),
        approvals: await prisma.approval.count({ where: { runId: run.runId } }),
        taskGrants: await prisma.grant.count({ where: { runId: run.runId } }),
        chatGrants: await prisma.grant.count({ where: { chatId: run.chatId, runId: null } }),
        fileReads: await prisma.runFileRead.count({ where: { runId: run.runId } }),
        messagesOfRun: await prisma.message.count({ where: { runId: run.runId } }),
        messagesOfChat: await prisma.message.count({ where: { chatId: run.chatId } }),
      });
      const deleted = await parkedRun();
      const other = await parkedRun();
      for (const run of [deleted, other]) {
        await pool.query("INSERT INTO run_file_reads (run_id, workspace_id, path, revision) VALUES ($1, $2, 'notes.txt', 'rev-1')", [run.runId, workspace.id]);
        for (const [scope, grantRunId] of [
          ["task", run.runId],
          ["chat", null],
        ]) {
          await pool.query("INSERT INTO grants (id, user_id, chat_id, run_id, scope, tool) VALUES ($1, $2, $3, $4, $5, 'write_file')", [
            generateId("grant"),
            user.id,
            run.chatId,
            grantRunId,
            scope,
          ]);
        }
      }
      const written = { events: 1, toolCalls: 3, approvals: 2, taskGrants: 1, chatGrants: 1, fileReads: 1, messagesOfRun: 1, messagesOfChat: 1 };
      expect(await rowsOf(deleted)).toEqual(written);

      await pool.query("DELETE FROM runs WHERE id = $1", [deleted.runId]);
      expect(await rowsOf(deleted)).toEqual({
        events: 0,
        toolCalls: 0,
        approvals: 0,
        taskGrants: 0,
        chatGrants: 1,
        fileReads: 0,
        messagesOfRun: 0,
        messagesOfChat: 1,
      });
      expect(await rowsOf(other)).toEqual(written);

      // A chat deleted deletes its grants, messages and runs (its trigger), and each run its rows.
      await pool.query("DELETE FROM chats WHERE id = $1", [other.chatId]);
      expect(await rowsOf(other)).toEqual({
        events: 0,
        toolCalls: 0,
        approvals: 0,
        taskGrants: 0,
        chatGrants: 0,
        fileReads: 0,
        messagesOfRun: 0,
        messagesOfChat: 0,
      });
      expect(await prisma.run.count({ where: { chatId: other.chatId } })).toBe(0);
    });

    it("a deleted user takes their chats, and with them the chats' runs and messages", async () => {
      const owner = await createUser(prisma, { name: "deleted-owner", role: "user" });
      const chatId = (await createChat(prisma, { userId: owner.id, title: "doomed", workspaceId: undefined, generateId })).id;
      const { runId } = await createRun(
        { prisma, clock: systemClock, generateId },
        { ...runRequest, userId: owner.id, chatId, multitask: "enqueue", idempotencyKey: undefined },
      );
      const change = emptyStatementChange(runId, 0);
      change.expectedStatuses = ["queued"];
      change.messages.push({ id: generateId("msg"), role: "user", content: "go" });
      expect(await commitRunStatement(pool, change, new Date())).not.toBeNull();
      const rowsOfOwner = async () => ({
        chats: await prisma.chat.count({ where: { userId: owner.id } }),
        runs: await prisma.run.count({ where: { userId: owner.id } }),
        events: await prisma.runEvent.count({ where: { runId } }),
        messages: await prisma.message.count({ where: { chatId } }),
      });
      expect(await rowsOfOwner()).toEqual({ chats: 1, runs: 1, events: 1, messages: 1 });
      const othersRuns = await prisma.run.count({ where: { userId: { not: owner.id } } });

      await pool.query("DELETE FROM users WHERE id = $1", [owner.id]);
      expect(await rowsOfOwner()).toEqual({ chats: 0, runs: 0, events: 0, messages: 0 });
      expect(await prisma.run.count()).toBe(othersRuns);
    });

    it("commitRunStatement writes the change's audit entry once, with the change, and none when the fence refuses it", async () => {
      const { runId, approvalIds } = await parkedRun();
      const version = (await prisma.run.findUniqueOrThrow({ where: { id: runId } })).leaseVersion;
      const decision = (approvalId: string, leaseVersion: number) => {
        const change = emptyStatementChange(runId, leaseVersion);
        change.events.push({
          type: "approval.decided",
          data: { approval_id: approvalId, tool: "write_file", tool_call_id: "call_a", decision: "deny", decided_by: user.id, edited: false },
        });
        change.approvalDecisions.push({ id: approvalId, status: "denied", decision: "deny", decidedBy: user.id });
        change.auditEntry = {
          id: generateId("aud"),
          actorId: user.id,
          action: "approval.decided",
          target: `approval:${approvalId}`,
          details: { run_id: runId, tool: "write_file", decision: "deny", edited_arguments: false, covered_approvals: [] },
        };
        return change;
      };
      const entriesOf = (approvalId: string) => prisma.auditEntry.findMany({ where: { target: `approval:${approvalId}` } });
      const [first, second] = approvalIds as [string, string];

      expect(await commitRunStatement(pool, decision(first, version - 1), new Date())).toBeNull();
      expect(await entriesOf(first)).toEqual([]);

      const decided = decision(first, version);
      expect((await commitRunStatement(pool, decided, new Date()))?.approvalsDecided).toBe(1);
      const { id, actorId, action, target, details } = decided.auditEntry!;
      expect(await entriesOf(first)).toEqual([{ id, at: expect.any(Date), actorId, action, target, details }]);

      // With file reads too (the statement with both optional parts); a later step commit writes no entry.
      const withRead = decision(second, version);
      stageFileRead(withRead, { workspaceId: workspace.id, path: "notes.txt", revision: "rev-1" });
      expect((await commitRunStatement(pool, withRead, new Date()))?.approvalsDecided).toBe(1);
      expect(await selectLastFileRead(pool, { runId, workspaceId: workspace.id, path: "notes.txt" })).toEqual({ revision: "rev-1" });
      await commitRunStatement(pool, emptyStatementChange(runId, version), new Date());
      expect((await entriesOf(first)).map((entry) => entry.id)).toEqual([id]);
      expect((await entriesOf(second)).map((entry) => entry.id)).toEqual([withRead.auditEntry?.id]);
    });

    it("commitRunStatement's finish names the chat's oldest queued run, and nothing before a finish or when none is queued", async () => {
      const chatId = await newChat();
      const [first, second] = [await queuedRun(chatId), await queuedRun(chatId)];
      await queuedRun(chatId);
      const finishOf = async (runId: string) => {
        const version = await take(runId);
        const step = emptyStatementChange(runId, version);
        step.events.push({ type: "run.started", data: { model: "scripted", mode: "agent" } });
        expect((await commitRunStatement(pool, step, new Date()))?.nextRunOfChat).toBeNull();
        const finish = emptyStatementChange(runId, version);
        finish.status = RunStatus.completed;
        finish.finish = { output: "done", errorCode: null, errorMessage: null };
        return (await commitRunStatement(pool, finish, new Date()))?.nextRunOfChat;
      };
      const secondRow = await prisma.run.findUniqueOrThrow({ where: { id: second } });
      expect(await finishOf(first)).toEqual({ id: second, generation: { lastEventSeq: secondRow.lastEventSeq, leaseVersion: secondRow.leaseVersion } });
      const alone = await queuedRun(await newChat());
      expect(await finishOf(alone)).toBeNull();
    });

    it("commitRunStatements commits the changes of several runs in one statement, each as if alone", async () => {
      const [chatA, chatB, chatC] = [await newChat(), await newChat(), await newChat()];
      const [runA, runB, runC] = [await queuedRun(chatA), await queuedRun(chatB), await queuedRun(chatC)];
      const [versionA, versionB, versionC] = [await take(runA), await take(runB), await take(runC)];
      const stepA = emptyStatementChange(runA, versionA);
      stepA.events.push({ type: "run.started", data: { model: "scripted", mode: "agent" } }, { type: "round.started", data: { round: 1, tools: [] } });
      stepA.messages.push({ id: generateId("msg"), role: "assistant", content: "from a" });
      const stepB = emptyStatementChange(runB, versionB);
      stepB.events.push({ type: "run.started", data: { model: "scripted", mode: "agent" } });
      stepB.status = RunStatus.completed;
      stepB.finish = { output: "b done", errorCode: null, errorMessage: null };
      // C's fence is stale: only C is refused.
      const stepC = emptyStatementChange(runC, versionC - 1);
      stepC.events.push({ type: "run.started", data: { model: "scripted", mode: "agent" } });
      const [a, b, c] = await commitRunStatements(pool, [stepA, stepB, stepC], new Date());
      expect(a?.run).toMatchObject({ id: runA, status: "running", lastEventSeq: 3 });
      expect(a?.events.map((event) => event.seq)).toEqual([2, 3]);
      expect(b?.run).toMatchObject({ id: runB, status: "completed", lastEventSeq: 2 });
      expect(c).toBeNull();
      const messages = await prisma.message.findMany({ where: { chatId: { in: [chatA, chatB] } } });
      expect(messages.map((message) => [message.chatId, message.content])).toEqual([[chatA, "from a"]]);
      expect((await prisma.run.findUniqueOrThrow({ where: { id: runB } })).output).toBe("b done");
      expect(await prisma.runEvent.count({ where: { runId: runC } })).toBe(1);
    });

    it("the commit batcher groups concurrent steps, keeps one chat's runs apart, and retries a failed group change by change", async () => {
      let statements = 0;
      const query = (...args: Parameters<pg.Pool["query"]>) => {
        statements += 1;
        return pool.query(...args);
      };
      const counting = { query: query as pg.Pool["query"] };
      const batcher = createRunCommitBatcher({ runner: counting, clock: () => new Date(), maxInFlight: 1 });
      const runs = await Promise.all(
        Array.from({ length: 6 }, async () => {
          const chatId = await newChat();
          const runId = await queuedRun(chatId);
          return { chatId, runId, version: await take(runId) };
        }),
      );
      const step = (run: { runId: string; version: number }, content: string, messageId = generateId("msg")) => {
        const change = emptyStatementChange(run.runId, run.version);
        change.events.push({ type: "run.started", data: { model: content, mode: "agent" } });
        change.messages.push({ id: messageId, role: "assistant", content });
        return change;
      };
      // One in flight at a time: the first goes alone, the five behind it share the next statement.
      const results = await Promise.all(runs.map((run, index) => batcher.commit(step(run, `step ${index}`), run.chatId)));
      expect(results.every((result) => result?.events.length === 1)).toBe(true);
      expect(statements).toBe(2);
      // A duplicate message id breaks one change: the group fails, and each change is retried alone.
      statements = 0;
      const taken = generateId("msg");
      await batcher.commit(step(runs[0] as (typeof runs)[number], "first", taken), runs[0]?.chatId as string);
      statements = 0;
      const outcomes = await Promise.allSettled([
        batcher.commit(step(runs[5] as (typeof runs)[number], "blocker"), runs[5]?.chatId as string),
        batcher.commit(step(runs[1] as (typeof runs)[number], "duplicate", taken), runs[1]?.chatId as string),
        batcher.commit(step(runs[2] as (typeof runs)[number], "fine"), runs[2]?.chatId as string),
      ]);
      expect(outcomes.map((outcome) => outcome.status)).toEqual(["fulfilled", "rejected", "fulfilled"]);
      expect(statements).toBe(1 + 1 + 2);
      expect(await prisma.message.count({ where: { chatId: runs[2]?.chatId, content: "fine" } })).toBe(1);
      expect(await prisma.message.count({ where: { chatId: runs[1]?.chatId, content: "duplicate" } })).toBe(0);
      // Two runs of one chat never share a statement: the second waits for the next one.
      statements = 0;
      const sameChat = runs[3] as (typeof runs)[number];
      const other = await queuedRun(sameChat.chatId);
      await pool.query("UPDATE runs SET status = 'running' WHERE id = $1", [other]);
      const blocker = batcher.commit(step(runs[4] as (typeof runs)[number], "blocker"), runs[4]?.chatId as string);
      const both = await Promise.all([
        batcher.commit(step(sameChat, "one"), sameChat.chatId),
        batcher.commit(step({ runId: other, version: 0 }, "two"), sameChat.chatId),
        blocker,
      ]);
      expect(both.every((result) => result !== null)).toBe(true);
      expect(statements).toBe(3);
      const positions = await prisma.message.findMany({ where: { chatId: sameChat.chatId }, orderBy: { position: "asc" } });
      expect(
        positions
          .map((message) => message.content)
          .slice(-2)
          .sort(),
      ).toEqual(["one", "two"]);
    });

    it("the commit batcher does not retry a group whose outcome is unknown (the connection failed after the commit): nothing is written twice", async () => {
      const runs = await Promise.all(
        Array.from({ length: 3 }, async () => {
          const chatId = await newChat();
          const runId = await queuedRun(chatId);
          return { chatId, runId, version: await take(runId) };
        }),
      );
      let failAfterCommit = false;
      const query = async (...args: Parameters<pg.Pool["query"]>) => {
        const result = await pool.query(...args);
        // The statement committed, and then the answer was lost on the way back.
        if (failAfterCommit) throw new Error("Connection terminated unexpectedly");
        return result;
      };
      const batcher = createRunCommitBatcher({ runner: { query: query as pg.Pool["query"] }, clock: () => new Date(), maxInFlight: 1 });
      const step = (run: { runId: string; version: number }) => {
        const change = emptyStatementChange(run.runId, run.version);
        change.events.push({ type: "run.started", data: { model: "scripted", mode: "agent" } });
        return change;
      };
      const blocker = batcher.commit(step(runs[0] as (typeof runs)[number]), runs[0]?.chatId as string);
      failAfterCommit = true;
      const outcomes = await Promise.allSettled([blocker, ...runs.slice(1).map((run) => batcher.commit(step(run), run.chatId))]);
      expect(outcomes.map((outcome) => outcome.status)).toEqual(["rejected", "rejected", "rejected"]);
      for (const run of runs) expect(await prisma.runEvent.count({ where: { runId: run.runId } })).toBe(2);
    });

    it("queryParsed refuses a row whose columns do not match the schema, naming the statement and the column", async () => {
      const row = z.object({ lease_version: z.number() });
      await expect(queryParsed(pool, "SELECT 'one'::text AS lease_version", [], row)).rejects.toThrow(SqlRowError);
      await expect(queryParsed(pool, "SELECT 'one'::text AS lease_version", [], row)).rejects.toThrow(/SELECT 'one'.*lease_version/);
      expect(await queryParsed(pool, "SELECT 2 AS lease_version, 'dropped' AS extra", [], row)).toEqual([{ lease_version: 2 }]);
    });
  });
});
