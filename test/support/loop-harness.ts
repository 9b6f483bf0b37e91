// The run loop in-process (issue 10, "tests in layers"): the real core (create, acquire, execute,
// commit) on a database cloned from the migrated template, with the scripted model and in-memory
// stand-ins for what crosses processes (event publishing, scheduling). No API, no worker, no Redis:
// a round trip is a few milliseconds, so the loop's rules can be tested many times over.
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import path from "node:path";
import {
  acquireRun,
  type ApprovalDecisionKind,
  createAgentqTools,
  createChat,
  createPrismaClient,
  createRunCommitBatcher,
  sqlPoolOf,
  createToolRegistry,
  createUser,
  createWorkspace,
  decideRunApproval,
  dispatchRunsOfUser,
  executeRun,
  generateId,
  type PrismaClient,
  readRunEvents,
  type RunEventRecord,
  type RunLoopDependencies,
  type RunOutcome,
  systemClock,
  type ToolDefinition,
  updateSettings,
} from "@agentq/core";
import { parseRunEventData } from "../../packages/core/src/events/run-event-schemas.ts";
import { createRun, type CreateRunInput } from "../../packages/core/src/runs/create-run.ts";
import { ScriptedModel, type ScriptedStep } from "@agentq/core/testing";
import { createTestDatabase, type TestDatabase } from "./database.ts";

/** A run request for the scripted model with no tool switches on (give it `tools`): what the in-process tests create runs with. */
export const SCRIPTED_RUN_REQUEST = {
  input: "go",
  model: "scripted",
  mode: "agent",
  allowBash: false,
  allowWebSearch: true,
  useWeb: false,
  multitask: "enqueue",
} as const satisfies Partial<CreateRunInput>;

export interface LoopHarness {
  prisma: PrismaClient;
  model: ScriptedModel;
  userId: string;
  /** Runs handed to a worker (what the queue would have received), in order. */
  scheduled: string[];
  createWorkspace(): Promise<{ id: string; rootPath: string }>;
  createChat(workspaceId?: string): Promise<string>;
  /** Creates a run (as POST /api/chats/:id/runs does) with these steps queued on the model. */
  startRun(chatId: string, steps: ScriptedStep[], input?: Partial<CreateRunInput>): Promise<string>;
  /** Takes the run's lease as a worker would and executes it until it finishes, parks or stops. */
  execute(runId: string, options?: { signal?: AbortSignal }): Promise<RunOutcome>;
  events(runId: string): Promise<RunEventRecord[]>;
  /** Decides an approval as POST /api/approvals does; a run whose last approval is decided is scheduled. */
  decide(approvalId: string, decision: ApprovalDecisionKind, options?: { arguments?: Record<string, unknown> }): Promise<void>;
  settings(patch: Record<string, unknown>): Promise<void>;
  close(): Promise<void>;
}

export interface LoopHarnessOptions {
  extraTools?: ToolDefinition[];
  /** Resolves model names; default: every name is the harness's scripted model. */
  models?: RunLoopDependencies["models"];
  /** The harness user's role. Default `user`. */
  role?: "admin" | "user";
}

export async function startLoopHarness(options: LoopHarnessOptions = {}): Promise<LoopHarness> {
  const database: TestDatabase = await createTestDatabase();
  const prisma = createPrismaClient({ databaseUrl: database.url, poolSize: 4 });
  const workspacesRoot = await mkdtemp(path.join(tmpdir(), "agentq-loop-"));
  const model = new ScriptedModel();
  const scheduled: string[] = [];
  const publisher = { publishEvents: async () => undefined, publishDelta: async () => undefined };
  const { id: userId } = await createUser(prisma, { name: `loop-${generateId("u")}`, role: options.role ?? "user" });
  // The admin tools act on this database; the queue is the cross-process tests' business.
  const administration = {
    prisma,
    deploymentSecret: "loop-harness-approval-secret",
    queueCounts: async () => ({ waiting: 0, active: 0, delayed: 0, failed: 0 }),
    sandbox: { available: false as const, reason: "no sandbox in-process" },
    now: systemClock,
  };
  const dependencies: RunLoopDependencies = {
    prisma,
    publisher,
    models: options.models ?? { resolve: (name) => ({ client: model, model: name, contextWindow: 128_000 }) },
    // No sandbox in-process: the process tools are the cross-process tests' business.
    tools: createToolRegistry([
      ...createAgentqTools({ toolEnvironment: {}, searxngUrl: undefined, sandbox: null, administration }),
      ...(options.extraTools ?? []),
    ]),
    scheduler: {
      schedule: async (runId) => void scheduled.push(runId),
      // Admission for real (it writes Postgres); the admitted runs are "scheduled" like the others.
      admitFor: async (runId) =>
        void (await dispatchRunsOfUser(
          { prisma, clock: systemClock, logger: dependencies.logger, schedule: async (id) => void scheduled.push(id) },
          { runId },
        )),
    },
    clock: systemClock,
    generateId,
    logger: { info: () => undefined, warn: () => undefined, error: () => undefined },
    approvalSecret: "loop-harness-approval-secret",
    deltaFlushMs: 0,
    // Group commit as in the worker: the loop tests run their steps through it.
    commits: createRunCommitBatcher({ runner: sqlPoolOf(prisma), clock: systemClock }),
  };
  return {
    prisma,
    model,
    userId,
    scheduled,
    async createWorkspace() {
      const workspace = await createWorkspace(prisma, userId, { name: "loop" }, { workspacesRoot });
      return { id: workspace.id, rootPath: workspace.rootPath };
    },
    async createChat(workspaceId) {
      return (await createChat(prisma, { userId, title: "loop", workspaceId, generateId })).id;
    },
    async startRun(chatId, steps, input = {}) {
      // A step left over by an earlier run would answer this run's first request instead.
      if (model.remaining > 0) throw new Error(`an earlier run left ${model.remaining} scripted steps unused`);
      model.enqueue(...steps);
      const created = await createRun({ prisma, clock: systemClock, generateId }, { ...SCRIPTED_RUN_REQUEST, tools: [], userId, chatId, ...input });
      // Admitted as the API admits it, so that it can be taken; the harness executes it itself.
      if (created.runnable) {
        await dispatchRunsOfUser({ prisma, clock: systemClock, logger: dependencies.logger, schedule: async () => undefined }, { userId });
      }
      return created.runId;
    },
    async execute(runId, executeOptions = {}) {
      const acquired = await acquireRun(prisma, { runId, owner: "loop-harness", leaseMs: 60_000 });
      if (acquired.kind !== "acquired") throw new Error(`the run could not be taken: ${acquired.kind}`);
      return executeRun(dependencies, {
        lease: acquired.lease,
        context: acquired.context,
        signal: executeOptions.signal ?? new AbortController().signal,
        shouldHandBack: () => false,
      });
    },
    async events(runId) {
      const { events } = await readRunEvents(prisma, runId, 0, 100_000);
      for (const event of events) parseRunEventData(event.type, event.data);
      return events;
    },
    async decide(approvalId, decision, decideOptions = {}) {
      await decideRunApproval(
        {
          ...dependencies,
          afterCommit: {
            publish: () => undefined,
            schedule: async (runId) => void scheduled.push(runId),
            resume: async (runId) => void scheduled.push(runId),
            admitFor: dependencies.scheduler.admitFor,
            admitCreated: async () => undefined,
            requestCancel: () => undefined,
          },
        },
        { caller: { userId }, approvalId, decision, arguments: decideOptions.arguments },
      );
    },
    async settings(patch) {
      await updateSettings(prisma, patch, { actorId: null });
    },
    async close() {
      await prisma.$disconnect();
      await database.drop();
      await rm(workspacesRoot, { recursive: true, force: true });
    },
  };
}
