// `npm start`: apply pending migrations, then run the API and one worker as two child processes
// and supervise them. Logs go to stdout (the children inherit it). Production deployments run
// `npm run migrate`, `npm run start:api` and `npm run start:worker` as separate processes instead
// (see docker-compose.yml); this supervisor is the one-command way to run everything on one machine.
import { spawn, type ChildProcess } from "node:child_process";
import { existsSync } from "node:fs";
import { createRequire } from "node:module";
import { hostname } from "node:os";
import { fileURLToPath, pathToFileURL } from "node:url";
import { ensureConsoleBuilt } from "./ensure-console-built.mjs";
import { ensureServerBuilt, SERVER_ENTRIES } from "./server-bundle.mjs";
import { SERVICE_NODE_FLAGS } from "./service-node-flags.ts";

const repositoryRoot = fileURLToPath(new URL("..", import.meta.url));

// The migration runs as `node --import <tsx loader> scripts/migrate.ts`, not through the tsx CLI: the
// CLI would add a process between us and it, and signals would go through its relay. The loader is
// resolved from this repository's node_modules, so it works right after `npm ci`. The services run
// their bundles (scripts/server-bundle.mjs) through scripts/run-server.mjs, in the same way.
const tsxLoaderUrl = pathToFileURL(createRequire(import.meta.url).resolve("tsx")).href;

// How long a child may take to shut down after SIGTERM/SIGINT before it is killed with SIGKILL.
// 30 s covers a graceful drain of the API's connections and the worker's in-flight round; killing
// later is safe anyway, because a worker that dies at any instant leaves a resumable state in
// Postgres (docs/design.md, invariant 2).
const STOP_TIMEOUT_MS = 30_000;

const MIGRATE_ENTRY = "scripts/migrate.ts";
const RUN_SERVER = "scripts/run-server.mjs";
/** The services, in the order they are started: the API, then one worker. */
const SERVICE_ENTRIES = (["api", "worker"] as const).map((name) => ({ name, entry: SERVER_ENTRIES[name] }));

type ServiceName = keyof typeof SERVER_ENTRIES;
type StopSignal = "SIGINT" | "SIGTERM" | "SIGHUP";

// Pino's line format and level numbers, so the supervisor's few lines sit in the same stream as
// the services' pino logs and go through the same log pipeline.
const LOG_LEVELS = { trace: 10, debug: 20, info: 30, warn: 40, error: 50, fatal: 60 } as const;
const minimumLogLevel = LOG_LEVELS[(process.env.LOG_LEVEL ?? "info") as keyof typeof LOG_LEVELS] ?? LOG_LEVELS.info;

function log(level: "info" | "warn" | "error", message: string, fields: Record<string, unknown> = {}): void {
  if (LOG_LEVELS[level] < minimumLogLevel) return;
  const line = {
    level: LOG_LEVELS[level],
    time: Date.now(),
    pid: process.pid,
    hostname: hostname(),
    name: "supervisor",
    ...fields,
    msg: message,
  };
  process.stdout.write(`${JSON.stringify(line)}\n`);
}

/** `node <args>` in the repository, detached into its own process group (below). */
function spawnNode(args: readonly string[]): ChildProcess {
  return spawn(process.execPath, args, {
    cwd: repositoryRoot,
    env: process.env,
    stdio: ["ignore", "inherit", "inherit"],
    // Own process group: a Ctrl+C in the terminal reaches only the supervisor, which forwards it
    // once. Otherwise each child would get the terminal's SIGINT and then ours, and a child that
    // treats a second signal as "force quit" would skip its graceful shutdown.
    detached: true,
  });
}

interface ChildExit {
  code: number | null;
  signal: NodeJS.Signals | null;
  spawnError?: Error;
}

function waitForExit(child: ChildProcess): Promise<ChildExit> {
  return new Promise((resolve) => {
    child.once("error", (spawnError) => resolve({ code: null, signal: null, spawnError }));
    child.once("exit", (code, signal) => resolve({ code, signal }));
  });
}

function describeExit(exit: ChildExit): string {
  if (exit.spawnError) return `could not start: ${exit.spawnError.message}`;
  return exit.signal ? `killed by ${exit.signal}` : `exited with code ${exit.code}`;
}

function isRunning(child: ChildProcess): boolean {
  return child.exitCode === null && child.signalCode === null;
}

function checkEntriesExist(): void {
  const missing = [MIGRATE_ENTRY, RUN_SERVER, ...SERVICE_ENTRIES.map((service) => service.entry)].filter((entry) => !existsSync(`${repositoryRoot}/${entry}`));
  if (missing.length === 0) return;
  log("error", `cannot start: ${missing.join(", ")} does not exist (in ${repositoryRoot})`, { missing });
  process.exit(1);
}

const STOP_SIGNALS: StopSignal[] = ["SIGINT", "SIGTERM", "SIGHUP"];
let requestedStop: StopSignal | undefined;
let onStopRequested: (signal: StopSignal) => void = () => {};
for (const signal of STOP_SIGNALS) {
  process.on(signal, () => {
    // tsx's CLI (our parent under `npm start`) may relay a signal we already received: act once.
    if (requestedStop) return;
    requestedStop = signal;
    onStopRequested(signal);
  });
}

async function migrate(): Promise<void> {
  log("info", "applying pending migrations");
  const child = spawnNode(["--import", tsxLoaderUrl, MIGRATE_ENTRY]);
  onStopRequested = (signal) => {
    log("info", `${signal} received: stopping the migration; nothing will be started`);
    if (isRunning(child)) child.kill(signal);
  };
  const exit = await waitForExit(child);
  onStopRequested = () => {};
  if (requestedStop) process.exit(1);
  if (exit.code !== 0) {
    // The migrate command prints why it failed (unreachable database, missing rights...) above.
    log("error", `migration failed (${describeExit(exit)}); nothing was started`, { exit_code: exit.code });
    process.exit(1);
  }
  log("info", "migrations are up to date");
}

async function runServices(): Promise<number> {
  const children = new Map<ServiceName, ChildProcess>();
  const exits = new Map<ServiceName, Promise<ChildExit>>();
  for (const service of SERVICE_ENTRIES) {
    const child = spawnNode([...SERVICE_NODE_FLAGS, RUN_SERVER, service.name]);
    children.set(service.name, child);
    exits.set(service.name, waitForExit(child));
    log("info", `started ${service.name}`, { service: service.name, child_pid: child.pid });
  }
  // If the supervisor itself exits abruptly (an exception here), do not leave the services
  // running detached with the port still bound.
  process.once("exit", () => {
    for (const child of children.values()) if (isRunning(child)) child.kill("SIGKILL");
  });

  let stopping = false;
  let killedAfterTimeout = false;
  const stopAll = (signal: StopSignal): void => {
    if (stopping) return;
    stopping = true;
    for (const child of children.values()) if (isRunning(child)) child.kill(signal);
    setTimeout(() => {
      for (const [name, child] of children) {
        if (!isRunning(child)) continue;
        killedAfterTimeout = true;
        log("warn", `${name} did not stop within ${STOP_TIMEOUT_MS / 1000}s: killing it`, { service: name });
        child.kill("SIGKILL");
      }
    }, STOP_TIMEOUT_MS).unref();
  };

  onStopRequested = (signal) => {
    log("info", `${signal} received: stopping api and worker`);
    stopAll(signal);
  };
  if (requestedStop) onStopRequested(requestedStop);

  let unexpectedExit = false;
  const settled = [...exits].map(async ([name, exitPromise]) => {
    const exit = await exitPromise;
    if (stopping) {
      log("info", `${name} stopped (${describeExit(exit)})`, { service: name });
      return exit;
    }
    unexpectedExit = true;
    log("error", `${name} ${describeExit(exit)} unexpectedly: stopping the others`, {
      service: name,
      exit_code: exit.code,
    });
    stopAll("SIGTERM");
    return exit;
  });
  const results = await Promise.all(settled);

  if (unexpectedExit || killedAfterTimeout) return 1;
  // After a requested stop, a child that ended on the signal we sent it stopped as asked.
  const stoppedCleanly = results.every((exit) => exit.code === 0 || (exit.signal !== null && exit.signal === requestedStop));
  return stoppedCleanly ? 0 : 1;
}

/**
 * The API serves apps/console/dist at /console/: build it when missing or older than its sources
 * (a checkout updated since `npm ci`). A failed build is logged and the API starts anyway: the
 * HTTP API does not need the console.
 */
function buildConsole(): void {
  try {
    ensureConsoleBuilt({ log: (message) => log("info", message) });
  } catch (error) {
    log("error", `the web console is not available: ${error instanceof Error ? error.message : String(error)}`);
  }
}

/**
 * The services run bundles of their sources: build them once here when missing or stale, rather than
 * in each child at once. A failed build stops everything: without it no service can start.
 */
async function buildServer(): Promise<void> {
  try {
    await ensureServerBuilt({ log: (message) => log("info", message) });
  } catch (error) {
    log("error", `cannot start: ${error instanceof Error ? error.message : String(error)}`);
    process.exit(1);
  }
}

checkEntriesExist();
buildConsole();
await buildServer();
await migrate();
const exitCode = await runServices();
log(exitCode === 0 ? "info" : "error", `supervisor exiting with code ${exitCode}`);
process.exit(exitCode);
