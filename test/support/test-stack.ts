// A whole agentq for end-to-end tests: the real API (HTTP + WebSocket), real workers (in this process
// or as child processes), the fake provider server speaking the OpenAI wire format, real Postgres and
// Redis. Runs are scripted through their input (see packages/core/src/testing/scenario-responder.ts).
import { spawn, type ChildProcess } from "node:child_process";
import { fileURLToPath } from "node:url";
import { pino } from "pino";
import WebSocket from "ws";
import { parseRunEventData } from "../../packages/core/src/events/run-event-schemas.ts";
import { type FakeProviderServer, scenarioResponder, startFakeProviderServer } from "@agentq/core/testing";
import { isClusterRedisUrl, type ProcessSandbox } from "@agentq/core";
import { parseWorkerConfig, type WorkerConfig } from "../../apps/worker/src/config.ts";
import { type RunWorker, type StartRunWorkerOptions, startRunWorker } from "../../apps/worker/src/run-worker.ts";
import type { ApiConfig } from "../../apps/api/src/config.ts";
import { createTestRedis, deleteKeysWithPrefix } from "./redis.ts";
import { serviceArguments } from "./service-process.ts";
import { startTestApi, type TestApi } from "./test-api.ts";

const ROOT = fileURLToPath(new URL("../..", import.meta.url));

export interface TestStackOptions {
  /** In-process workers started with the stack. Default 1. */
  workers?: number;
  api?: Partial<ApiConfig>;
  worker?: Partial<WorkerConfig>;
  /** api_rate_limit_per_minute set before the API starts. Default 0 (none). */
  rateLimitPerMinute?: number;
}

export interface HttpResult<T = any> {
  status: number;
  body: T;
  headers: Headers;
}

export interface RunEvent {
  seq: number;
  type: string;
  at: string;
  data: Record<string, any>;
}

export class TestStack {
  readonly api: TestApi;
  readonly provider: FakeProviderServer;
  readonly workers: RunWorker[] = [];
  readonly processes: ChildProcess[] = [];
  readonly workerConfig: WorkerConfig;
  /** The sandbox in-process workers use unless a test gives another (null: none; undefined: the worker probes bubblewrap). */
  sandbox: ProcessSandbox | null | undefined = undefined;

  constructor(api: TestApi, provider: FakeProviderServer, workerConfig: WorkerConfig) {
    this.api = api;
    this.provider = provider;
    this.workerConfig = workerConfig;
  }

  get url(): string {
    return this.api.url;
  }

  get prisma() {
    return this.api.prisma;
  }

  async request<T = any>(
    method: string,
    path: string,
    options: { token?: string; body?: unknown; headers?: Record<string, string> } = {},
  ): Promise<HttpResult<T>> {
    const response = await fetch(`${this.url}${path}`, {
      method,
      headers: {
        authorization: `Bearer ${options.token ?? this.api.adminToken}`,
        ...(options.body !== undefined ? { "content-type": "application/json" } : {}),
        ...options.headers,
      },
      body: options.body !== undefined ? JSON.stringify(options.body) : undefined,
    });
    const text = await response.text();
    let body: unknown = text;
    try {
      body = text ? JSON.parse(text) : null;
    } catch {
      // not JSON (SSE)
    }
    return { status: response.status, body: body as T, headers: response.headers };
  }

  async createUser(name: string): Promise<{ id: string; token: string }> {
    const result = await this.request("POST", "/api/users", { body: { name } });
    if (result.status !== 201) throw new Error(`creating a user failed: ${result.status} ${JSON.stringify(result.body)}`);
    return result.body;
  }

  async createWorkspace(token?: string): Promise<string> {
    const result = await this.request("POST", "/api/workspaces", { token, body: { name: "ws" } });
    if (result.status !== 201) throw new Error(`creating a workspace failed: ${result.status} ${JSON.stringify(result.body)}`);
    return result.body.id;
  }

  async putFile(workspaceId: string, path: string, content: string, token?: string): Promise<void> {
    const result = await this.request("PUT", `/api/workspaces/${workspaceId}/files/${path}`, { token, body: { content } });
    if (result.status !== 200) throw new Error(`writing a file failed: ${result.status} ${JSON.stringify(result.body)}`);
  }

  async createChat(options: { workspaceId?: string; token?: string } = {}): Promise<string> {
    const result = await this.request("POST", "/api/chats", { token: options.token, body: options.workspaceId ? { workspace_id: options.workspaceId } : {} });
    if (result.status !== 201) throw new Error(`creating a chat failed: ${result.status} ${JSON.stringify(result.body)}`);
    return result.body.id;
  }

  async startRun(chatId: string, body: Record<string, unknown>, token?: string): Promise<HttpResult> {
    return this.request("POST", `/api/chats/${chatId}/runs`, { token, body: { model: "fake-model", ...body } });
  }

  async run(chatId: string, body: Record<string, unknown>, token?: string): Promise<string> {
    const result = await this.startRun(chatId, body, token);
    if (result.status !== 202) throw new Error(`starting a run failed: ${result.status} ${JSON.stringify(result.body)}`);
    return result.body.id;
  }

  async getRun(runId: string, token?: string): Promise<any> {
    return (await this.request("GET", `/api/runs/${runId}`, { token })).body;
  }

  async events(runId: string, after = 0, token?: string): Promise<RunEvent[]> {
    const result = await this.request("GET", `/api/runs/${runId}/events?after=${after}`, { token });
    if (result.status !== 200) throw new Error(`reading events failed: ${result.status} ${JSON.stringify(result.body)}`);
    return result.body.events;
  }

  /** Waits until the run's status satisfies `predicate` (default: finished). */
  async waitForRun(
    runId: string,
    predicate: (run: any) => boolean = (run) => ["completed", "failed", "cancelled"].includes(run.status),
    timeoutMs = 20_000,
    token?: string,
  ): Promise<any> {
    const deadline = Date.now() + timeoutMs;
    let run: any;
    while (Date.now() < deadline) {
      run = await this.getRun(runId, token);
      if (predicate(run)) return run;
      await sleep(50);
    }
    throw new Error(`run ${runId} did not reach the expected state in ${timeoutMs} ms; last: ${JSON.stringify(run)}`);
  }

  async waitForEvent(runId: string, predicate: (event: RunEvent) => boolean, timeoutMs = 20_000, token?: string): Promise<RunEvent> {
    const deadline = Date.now() + timeoutMs;
    while (Date.now() < deadline) {
      const found = (await this.events(runId, 0, token)).find(predicate);
      if (found) return found;
      await sleep(50);
    }
    throw new Error(
      `run ${runId}: no matching event in ${timeoutMs} ms; events: ${JSON.stringify((await this.events(runId, 0, token)).map((event) => event.type))}`,
    );
  }

  async startWorker(
    overrides: Partial<WorkerConfig> = {},
    options: { sandbox?: ProcessSandbox | null; logger?: StartRunWorkerOptions["logger"] } = {},
  ): Promise<RunWorker> {
    const sandbox = options.sandbox === undefined ? this.sandbox : options.sandbox;
    const worker = await startRunWorker({
      ...(sandbox === undefined ? {} : { sandbox }),
      config: { ...this.workerConfig, ...overrides },
      logger: options.logger ?? pino({ level: process.env.AGENTQ_TEST_LOGS === "1" ? "debug" : "silent" }),
      processEnvironment: process.env,
    });
    this.workers.push(worker);
    return worker;
  }

  /** A worker as a child process (`npm run start:worker`), for crash and signal tests. */
  spawnWorker(environment: Record<string, string> = {}): ChildProcess {
    const config = this.workerConfig;
    const child = spawn(process.execPath, serviceArguments("worker"), {
      cwd: ROOT,
      env: {
        PATH: process.env.PATH ?? "",
        HOME: process.env.HOME ?? "/root",
        DATABASE_URL: config.databaseUrl,
        REDIS_URL: config.redisUrl,
        QUEUE_PREFIX: config.queuePrefix,
        OPENAI_BASE_URL: config.openaiBaseUrl,
        WORKSPACES_ROOT: config.workspacesRoot,
        RUN_LEASE_MS: String(config.leaseMs),
        RECONCILE_INTERVAL_MS: String(config.reconcileIntervalMs),
        JOB_LOCK_MS: String(config.jobLockMs),
        SHUTDOWN_GRACE_MS: String(config.shutdownGraceMs),
        MODEL_CONTEXT_WINDOW: String(config.defaultContextWindow),
        LOG_LEVEL: process.env.AGENTQ_TEST_LOGS === "1" ? "debug" : "warn",
        ...environment,
      },
      stdio: ["ignore", process.env.AGENTQ_TEST_LOGS === "1" ? "inherit" : "ignore", "inherit"],
    });
    this.processes.push(child);
    return child;
  }

  /** A WebSocket client of /api/ws collecting every message it receives. */
  async connectWebSocket(token?: string): Promise<TestSocket> {
    const socket = new WebSocket(`${this.url.replace("http", "ws")}/api/ws?token=${encodeURIComponent(token ?? this.api.adminToken)}`);
    const client = new TestSocket(socket);
    await new Promise<void>((resolve, reject) => {
      socket.once("open", () => resolve());
      socket.once("error", reject);
      socket.once("unexpected-response", (_request, response) => reject(new Error(`upgrade refused: ${response.statusCode}`)));
    });
    return client;
  }

  async close(): Promise<void> {
    for (const child of this.processes) if (child.exitCode === null && child.signalCode === null) child.kill("SIGKILL");
    await Promise.all(this.workers.map((worker) => worker.close().catch(() => undefined)));
    await this.api.close();
    await this.provider.close();
    // A test's own cluster (redis-cluster.ts) is torn down by its owner.
    if (isClusterRedisUrl(this.workerConfig.redisUrl)) return;
    const redis = createTestRedis();
    await deleteKeysWithPrefix(redis, this.workerConfig.queuePrefix).catch(() => undefined);
    await redis.quit();
  }
}

export class TestSocket {
  readonly socket: WebSocket;
  readonly messages: any[] = [];

  constructor(socket: WebSocket) {
    this.socket = socket;
    socket.on("message", (data) => this.messages.push(JSON.parse(data.toString())));
  }

  send(message: unknown): void {
    this.socket.send(JSON.stringify(message));
  }

  events(runId: string): RunEvent[] {
    return this.messages.filter((message) => message.type === "event" && message.run_id === runId).map((message) => message.event);
  }

  async waitFor(predicate: (messages: any[]) => boolean, timeoutMs = 20_000): Promise<void> {
    const deadline = Date.now() + timeoutMs;
    while (!predicate(this.messages)) {
      if (Date.now() > deadline)
        throw new Error(
          `websocket: condition not met in ${timeoutMs} ms; got ${JSON.stringify(this.messages.map((message) => `${message.type}:${message.event?.type ?? ""}`))}`,
        );
      await sleep(20);
    }
  }

  close(): void {
    this.socket.close();
  }
}

export async function startTestStack(options: TestStackOptions = {}): Promise<TestStack> {
  const provider = await startFakeProviderServer({ respond: scenarioResponder });
  const api = await startTestApi({
    config: { openaiBaseUrl: provider.openaiBaseURL, defaultModel: "fake-model", ...options.api },
    ...(options.rateLimitPerMinute === undefined ? {} : { rateLimitPerMinute: options.rateLimitPerMinute }),
  });
  const workerConfig: WorkerConfig = {
    ...parseWorkerConfig({}),
    databaseUrl: api.config.databaseUrl,
    redisUrl: api.config.redisUrl,
    queuePrefix: api.config.queuePrefix,
    openaiBaseUrl: provider.openaiBaseURL,
    workspacesRoot: api.config.workspacesRoot,
    concurrency: 20,
    leaseMs: 3000,
    reconcileIntervalMs: 1000,
    jobLockMs: 5000,
    shutdownGraceMs: 5000,
    // The fake model's name is unknown to the table: give it a current model's window, so that every
    // family's tool schemas fit (an 8192-token window would fail runs on the schemas alone).
    defaultContextWindow: 128_000,
    logLevel: "silent",
    ...options.worker,
  };
  const stack = new TestStack(api, provider, workerConfig);
  for (let index = 0; index < (options.workers ?? 1); index += 1) await stack.startWorker();
  return stack;
}

export function sleep(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms));
}

/** Asserts what API.md promises of every event list: seq 1, 2, 3... with no gap and no repeat, each event's data as its schema says. */
export function expectContiguous(events: readonly RunEvent[], from = 1): void {
  events.forEach((event, index) => {
    if (event.seq !== from + index) throw new Error(`events are not contiguous at index ${index}: ${events.map((candidate) => candidate.seq).join(",")}`);
    // And each one is what the README's event list says it is.
    parseRunEventData(event.type, event.data);
  });
}
