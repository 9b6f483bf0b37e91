// OpenTelemetry (issue 18, API.md "Webhooks, tracing, the client and the CLI"): the API and a worker run
// as their own processes (`node scripts/run-server.mjs api|worker`, as npm start runs them) with
// OTEL_EXPORTER_OTLP_ENDPOINT pointing at a local OTLP/HTTP JSON receiver. A run that reads a file, pauses
// before a write and is approved: the request that created it and the worker's execution share a trace,
// so do the decision and the resumed execution; rounds, model calls and tool calls carry agentq.run_id.
// Without the variable, the processes load no OpenTelemetry SDK at all.
import { type ChildProcessByStdio, spawn } from "node:child_process";
import { once } from "node:events";
import { mkdtemp, readFile, rm } from "node:fs/promises";
import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { Readable } from "node:stream";
import { fileURLToPath } from "node:url";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type FakeProviderServer, scenarioInput, scenarioResponder, startFakeProviderServer } from "@agentq/core/testing";
import { createTestDatabase, type TestDatabase } from "./support/database.ts";
import { freePort } from "./support/free-port.ts";
import { deleteKeysWithPrefix, createTestRedis, TEST_REDIS_URL, uniqueQueuePrefix } from "./support/redis.ts";
import { serviceArguments } from "./support/service-process.ts";
import { requestJson, TEST_ADMIN_TOKEN } from "./support/test-api.ts";
import { waitUntil } from "./support/wait-until.ts";

const ROOT = fileURLToPath(new URL("..", import.meta.url));
const RECORD_MODULES = "./test/fixtures/record-module-loads.mjs";

/** A span as the receiver got it, its attributes flattened to plain values. */
interface ReceivedSpan {
  service: string;
  scope: string;
  traceId: string;
  spanId: string;
  parentSpanId: string;
  name: string;
  /** OTLP's SpanKind: 1 internal, 2 server, 3 client, 4 producer, 5 consumer. */
  kind: number;
  attributes: Record<string, unknown>;
}

interface OtlpValue {
  stringValue?: string;
  intValue?: string | number;
  doubleValue?: number;
  boolValue?: boolean;
  arrayValue?: { values?: OtlpValue[] };
}

function plainValue(value: OtlpValue): unknown {
  if (value.stringValue !== undefined) return value.stringValue;
  if (value.intValue !== undefined) return Number(value.intValue);
  if (value.doubleValue !== undefined) return value.doubleValue;
  if (value.boolValue !== undefined) return value.boolValue;
  if (value.arrayValue !== undefined) return (value.arrayValue.values ?? []).map(plainValue);
  return undefined;
}

function attributesOf(list: { key: string; value: OtlpValue }[] | undefined): Record<string, unknown> {
  return Object.fromEntries((list ?? []).map(({ key, value }) => [key, plainValue(value)]));
}

/** A local OTLP/HTTP receiver: POST /v1/traces with JSON bodies, as OTEL_EXPORTER_OTLP_PROTOCOL=http/json sends them. */
class OtlpReceiver {
  readonly spans: ReceivedSpan[] = [];
  /** Every request: path and content type (a process sends traces only: no metrics, no logs). */
  readonly requests: { path: string; contentType: string }[] = [];
  private readonly server: Server;

  constructor() {
    this.server = createServer((request, response) => {
      let body = "";
      request.setEncoding("utf8").on("data", (chunk: string) => {
        body += chunk;
      });
      request.on("end", () => {
        this.requests.push({ path: request.url ?? "", contentType: request.headers["content-type"] ?? "" });
        if (request.method === "POST" && request.url === "/v1/traces") this.collect(JSON.parse(body));
        response.writeHead(200, { "content-type": "application/json" }).end("{}");
      });
    });
  }

  async start(): Promise<string> {
    this.server.listen(0, "127.0.0.1");
    await once(this.server, "listening");
    return `http://127.0.0.1:${(this.server.address() as AddressInfo).port}`;
  }

  async close(): Promise<void> {
    this.server.closeAllConnections();
    await new Promise((resolve) => this.server.close(resolve));
  }

  private collect(payload: any): void {
    for (const resourceSpans of payload.resourceSpans ?? []) {
      const service = String(attributesOf(resourceSpans.resource?.attributes)["service.name"]);
      for (const scopeSpans of resourceSpans.scopeSpans ?? []) {
        for (const span of scopeSpans.spans ?? []) {
          this.spans.push({
            service,
            scope: scopeSpans.scope?.name ?? "",
            traceId: span.traceId,
            spanId: span.spanId,
            parentSpanId: span.parentSpanId ?? "",
            name: span.name,
            kind: span.kind,
            attributes: attributesOf(span.attributes),
          });
        }
      }
    }
  }
}

type ServiceProcess = ChildProcessByStdio<null, Readable, Readable>;

/** The API and one worker as child processes, with a module-load record each. */
class AgentqProcesses {
  readonly children: ServiceProcess[] = [];
  readonly output: string[] = [];
  apiUrl = "";

  constructor(
    private readonly environment: Record<string, string>,
    readonly moduleRecords: { api: string; worker: string },
  ) {}

  async start(port: number): Promise<void> {
    const api = this.spawn("api", { PORT: String(port), AGENTQ_RECORD_MODULES: this.moduleRecords.api });
    const worker = this.spawn("worker", { AGENTQ_RECORD_MODULES: this.moduleRecords.worker });
    this.apiUrl = `http://127.0.0.1:${port}`;
    await Promise.all([this.waitForLog(api, "api listening"), this.waitForLog(worker, "worker started")]);
  }

  async stop(): Promise<void> {
    await Promise.all(
      this.children.map(async (child) => {
        if (child.exitCode !== null || child.signalCode !== null) return;
        const exited = once(child, "exit");
        child.kill("SIGTERM");
        const timer = setTimeout(() => child.kill("SIGKILL"), 10_000);
        await exited;
        clearTimeout(timer);
      }),
    );
  }

  private spawn(service: "api" | "worker", extra: Record<string, string>): ServiceProcess {
    const child = spawn(process.execPath, serviceArguments(service, ["--import", RECORD_MODULES]), {
      cwd: ROOT,
      env: { PATH: process.env.PATH ?? "", HOME: process.env.HOME ?? "/root", ...this.environment, ...extra },
      stdio: ["ignore", "pipe", "pipe"],
    });
    child.stdout.setEncoding("utf8").on("data", (chunk: string) => this.output.push(chunk));
    child.stderr.setEncoding("utf8").on("data", (chunk: string) => this.output.push(chunk));
    this.children.push(child);
    return child;
  }

  private async waitForLog(child: ServiceProcess, message: string): Promise<void> {
    let seen = "";
    const listener = (chunk: string) => {
      seen += chunk;
    };
    child.stdout.on("data", listener);
    try {
      await waitUntil(
        `"${message}" from ${child.spawnargs.at(-1)}`,
        () => {
          if (child.exitCode !== null) throw new Error(`the process exited (${child.exitCode}):\n${this.output.join("")}`);
          return seen.includes(message) || undefined;
        },
        45_000,
      );
    } finally {
      child.stdout.off("data", listener);
    }
  }
}

interface Deployment {
  database: TestDatabase;
  provider: FakeProviderServer;
  processes: AgentqProcesses;
  workspacesRoot: string;
  queuePrefix: string;
  close(): Promise<void>;
}

/** A database, a fake model provider and the two processes, given the OTEL_* variables to add. */
async function startDeployment(otelEnvironment: Record<string, string>): Promise<Deployment> {
  const [database, provider, workspacesRoot, recordDirectory, port] = await Promise.all([
    createTestDatabase(),
    startFakeProviderServer({ respond: scenarioResponder }),
    mkdtemp(join(tmpdir(), "agentq-tracing-workspaces-")),
    mkdtemp(join(tmpdir(), "agentq-tracing-modules-")),
    freePort(),
  ]);
  const queuePrefix = uniqueQueuePrefix();
  const processes = new AgentqProcesses(
    {
      DATABASE_URL: database.url,
      REDIS_URL: TEST_REDIS_URL,
      QUEUE_PREFIX: queuePrefix,
      WORKSPACES_ROOT: workspacesRoot,
      OPENAI_BASE_URL: provider.openaiBaseURL,
      DEFAULT_MODEL: "fake-model",
      MODEL_CONTEXT_WINDOW: "128000",
      ADMIN_TOKEN: TEST_ADMIN_TOKEN,
      HOST: "127.0.0.1",
      LOG_LEVEL: "info",
      ...otelEnvironment,
    },
    { api: join(recordDirectory, "api.txt"), worker: join(recordDirectory, "worker.txt") },
  );
  await processes.start(port);
  return {
    database,
    provider,
    processes,
    workspacesRoot,
    queuePrefix,
    async close() {
      await processes.stop();
      await provider.close();
      const redis = createTestRedis();
      await deleteKeysWithPrefix(redis, queuePrefix).catch(() => undefined);
      await redis.quit();
      await database.drop();
      await rm(workspacesRoot, { recursive: true, force: true });
      await rm(recordDirectory, { recursive: true, force: true });
    },
  };
}

function api<Body = any>(deployment: Deployment, method: string, path: string, body?: unknown) {
  return requestJson<Body>(`${deployment.processes.apiUrl}${path}`, { method, token: TEST_ADMIN_TOKEN, ...(body === undefined ? {} : { body }) });
}

async function waitForRunStatus(deployment: Deployment, runId: string, statuses: string[]): Promise<any> {
  let run: any;
  await waitUntil(
    `run ${runId} in ${statuses.join("/")}`,
    async () => {
      run = (await api(deployment, "GET", `/api/runs/${runId}`)).body;
      return statuses.includes(run.status) || undefined;
    },
    20_000,
  );
  return run;
}

/** The URL path of an HTTP server span, under the stable or the older semantic conventions. */
function requestPathOf(span: ReceivedSpan): string {
  return String(span.attributes["url.path"] ?? span.attributes["http.target"] ?? "").split("?")[0] ?? "";
}

/** Packages a process with tracing on loads, and one with tracing off must not. */
const SDK_MODULES = /node_modules\/(@opentelemetry\/(sdk-|exporter-|instrumentation)|import-in-the-middle|bullmq-otel)/;

const receiver = new OtlpReceiver();
/** With tracing (exporting to the receiver) and without: both started at once. */
let traced: Deployment;
let untraced: Deployment;

beforeAll(async () => {
  const endpoint = await receiver.start();
  [traced, untraced] = await Promise.all([
    startDeployment({ OTEL_EXPORTER_OTLP_ENDPOINT: endpoint, OTEL_EXPORTER_OTLP_PROTOCOL: "http/json", OTEL_BSP_SCHEDULE_DELAY: "100" }),
    // The other OTEL_* variables alone turn nothing on.
    startDeployment({ OTEL_EXPORTER_OTLP_PROTOCOL: "http/json", OTEL_SERVICE_NAME: "untraced" }),
  ]);
});
afterAll(async () => {
  await Promise.all([traced?.close(), untraced?.close()]);
  await receiver.close();
});

describe("tracing with OTEL_EXPORTER_OTLP_ENDPOINT set", () => {
  it("the request that creates a run and the one that approves it each share a trace with the worker's execution; the run's spans carry agentq.run_id", async () => {
    const workspace = await api(traced, "POST", "/api/workspaces", { name: "traced" });
    expect(workspace.status).toBe(201);
    expect((await api(traced, "PUT", `/api/workspaces/${workspace.body.id}/files/notes.md`, { content: "build notes\n" })).status).toBe(200);
    const chat = await api(traced, "POST", "/api/chats", { workspace_id: workspace.body.id });
    const chatId: string = chat.body.id;
    // Round 1 reads a file (the run is tainted), round 2's write pauses for approval, round 3 answers.
    const input = scenarioInput([
      { tool: "read_file", args: { path: "notes.md" } },
      { tool: "write_file", args: { path: "out.txt", content: "written" } },
      { text: "all done" },
    ]);
    const started = await api(traced, "POST", `/api/chats/${chatId}/runs`, { model: "fake-model", input });
    expect(started.status).toBe(202);
    const runId: string = started.body.id;
    const parked = await waitForRunStatus(traced, runId, ["awaiting_approval", "completed", "failed", "cancelled"]);
    expect(parked.status).toBe("awaiting_approval");
    const approvalId: string = parked.pending_approvals[0].id;
    const decided = await api(traced, "POST", "/api/approvals", { tool_approval_id: approvalId, tool_approval_decision: "allow_task" });
    expect(decided.status).toBe(202);
    expect((await waitForRunStatus(traced, runId, ["completed", "failed", "cancelled"])).status).toBe("completed");

    // The event stream takes the API token as ?token=: a span shows the parameter, never its value.
    const stream = await fetch(`${traced.processes.apiUrl}/api/runs/${runId}/events?after=0&token=${TEST_ADMIN_TOKEN}`);
    expect(stream.status).toBe(200);
    await stream.text();

    const ofRun = (name: string) => receiver.spans.filter((span) => span.name === name && span.attributes["agentq.run_id"] === runId);
    // Exported in batches every 100 ms: wait for the last execution's span, which ends after everything else of the run.
    await waitUntil(
      "the spans of both executions",
      () =>
        (ofRun("agentq.run.execute").some((span) => span.attributes["agentq.outcome"] === "completed") &&
          ofRun("agentq.approval.decide").length === 1 &&
          receiver.spans.some((span) => span.kind === 2 && requestPathOf(span) === `/api/runs/${runId}/events`)) ||
        undefined,
      10_000,
    );

    // The creating request: its server span, agentq's span of the command, and the worker's execution that parked.
    const [runStart] = ofRun("agentq.run.start");
    expect(runStart?.service).toBe("agentq-api");
    const createTrace = runStart!.traceId;
    const createRequest = receiver.spans.find((span) => span.kind === 2 && requestPathOf(span) === `/api/chats/${chatId}/runs`);
    expect(createRequest?.service).toBe("agentq-api");
    expect(createRequest?.traceId).toBe(createTrace);
    const executions = ofRun("agentq.run.execute");
    const firstExecution = executions.find((span) => span.attributes["agentq.outcome"] === "parked");
    expect(firstExecution?.service).toBe("agentq-worker");
    expect(firstExecution?.traceId).toBe(createTrace);
    // The run reached the worker offered on its channel (the offer carries the trace), or, when the API
    // had not read the worker's presence yet, through the queue: then BullMQ's producer span (the API's
    // enqueue) and consumer span (the worker's job) are in the trace too, both or neither.
    const createTraceSpans = receiver.spans.filter((span) => span.traceId === createTrace);
    const enqueued = createTraceSpans.some((span) => span.service === "agentq-api" && span.kind === 4 && span.scope === "bullmq");
    expect(createTraceSpans.some((span) => span.service === "agentq-worker" && span.kind === 5 && span.scope === "bullmq")).toBe(enqueued);

    // The deciding request continues in the resumed execution: another trace.
    const [decide] = ofRun("agentq.approval.decide");
    expect(decide?.attributes).toMatchObject({ "agentq.approval.id": approvalId, "agentq.approval.decision": "allow_task", "agentq.approval.resumed": true });
    const decideRequest = receiver.spans.find((span) => span.kind === 2 && requestPathOf(span) === "/api/approvals");
    expect(decideRequest?.traceId).toBe(decide!.traceId);
    const resumed = executions.find((span) => span.attributes["agentq.outcome"] === "completed");
    expect(resumed?.attributes["agentq.run.resumed"]).toBe(true);
    expect(resumed?.traceId).toBe(decide!.traceId);
    expect(decide!.traceId).not.toBe(createTrace);

    // Rounds, model calls (with token counts and time to first token), tool calls and the pause.
    const rounds = ofRun("agentq.round");
    expect(rounds.map((span) => span.attributes["agentq.round"]).sort()).toEqual([1, 2, 3]);
    const modelCalls = ofRun("agentq.model_call");
    expect(modelCalls).toHaveLength(3);
    for (const call of modelCalls) {
      expect(call.service).toBe("agentq-worker");
      expect(call.attributes["gen_ai.request.model"]).toBe("fake-model");
      expect(call.attributes["gen_ai.usage.input_tokens"]).toBeGreaterThan(0);
      expect(call.attributes["gen_ai.usage.output_tokens"]).toBeGreaterThan(0);
      expect(call.attributes["agentq.model.time_to_first_token_ms"]).toBeGreaterThanOrEqual(0);
      // Each model call is inside its round.
      expect(rounds.some((round) => round.spanId === call.parentSpanId)).toBe(true);
    }
    const toolCalls = ofRun("agentq.tool_call").map((span) => ({
      tool: span.attributes["agentq.tool.name"],
      effects: span.attributes["agentq.tool.effects"],
      outcome: span.attributes["agentq.outcome"],
      trace: span.traceId,
    }));
    expect(toolCalls).toEqual(
      expect.arrayContaining([
        { tool: "read_file", effects: ["read"], outcome: "ok", trace: createTrace },
        { tool: "write_file", effects: ["write"], outcome: "awaiting_approval", trace: createTrace },
        { tool: "write_file", effects: ["write"], outcome: "ok", trace: decide!.traceId },
      ]),
    );
    expect(toolCalls).toHaveLength(3);
    const [pause] = ofRun("agentq.approval.pause");
    expect(pause?.attributes).toMatchObject({ "agentq.approval.tools": ["write_file"], "agentq.approval.ids": [approvalId] });
    expect(pause?.traceId).toBe(createTrace);
    // Every span of agentq's own tracer is about this run and says so.
    const agentqSpans = receiver.spans.filter((span) => span.scope === "agentq");
    expect(agentqSpans.length).toBeGreaterThanOrEqual(12);
    for (const span of agentqSpans) expect(span.attributes["agentq.run_id"], span.name).toBe(runId);

    // The instrumentations: express and http in the API, pg and ioredis in both processes, inside the run's traces.
    const runTraces = new Set([createTrace, decide!.traceId]);
    const scopesOf = (service: string) =>
      new Set(receiver.spans.filter((span) => span.service === service && runTraces.has(span.traceId)).map((span) => span.scope));
    expect([...scopesOf("agentq-api")]).toEqual(
      expect.arrayContaining([
        "@opentelemetry/instrumentation-http",
        "@opentelemetry/instrumentation-express",
        "@opentelemetry/instrumentation-pg",
        "@opentelemetry/instrumentation-ioredis",
      ]),
    );
    expect([...scopesOf("agentq-worker")]).toEqual(expect.arrayContaining(["@opentelemetry/instrumentation-pg", "@opentelemetry/instrumentation-ioredis"]));
    const streamRequest = receiver.spans.find((span) => span.kind === 2 && requestPathOf(span) === `/api/runs/${runId}/events`);
    expect(streamRequest?.attributes["url.query"]).toBe("after=0&token=REDACTED");
    expect(JSON.stringify(receiver.spans)).not.toContain(TEST_ADMIN_TOKEN);
    // Traces only, as JSON.
    expect(receiver.requests.length).toBeGreaterThan(0);
    for (const request of receiver.requests) expect(request).toEqual({ path: "/v1/traces", contentType: "application/json" });
    // The module record below means something: with tracing on, it shows the SDK.
    expect(await readFile(traced.processes.moduleRecords.api, "utf8")).toMatch(SDK_MODULES);
  });
});

describe("tracing without OTEL_EXPORTER_OTLP_ENDPOINT", () => {
  it("the API and the worker run a run without loading the OpenTelemetry SDK, its instrumentations or BullMQ's telemetry", async () => {
    const chat = await api(untraced, "POST", "/api/chats", {});
    const started = await api(untraced, "POST", `/api/chats/${chat.body.id}/runs`, { model: "fake-model", input: scenarioInput([{ text: "hello" }]) });
    expect(started.status).toBe(202);
    expect((await waitForRunStatus(untraced, started.body.id, ["completed", "failed", "cancelled"])).status).toBe("completed");
    for (const record of [untraced.processes.moduleRecords.api, untraced.processes.moduleRecords.worker]) {
      const modules = (await readFile(record, "utf8")).split("\n");
      // The record is complete: it has the application's bundle, a package the application imports, and the API of agentq's own spans.
      expect(modules.some((url) => /\/dist\/server\/[0-9a-f]+\/run-(api|worker)-process-/.test(url))).toBe(true);
      expect(modules.some((url) => url.includes("node_modules/pg/"))).toBe(true);
      expect(modules.some((url) => url.includes("node_modules/@opentelemetry/api/"))).toBe(true);
      expect(modules.filter((url) => SDK_MODULES.test(url))).toEqual([]);
    }
  });
});
