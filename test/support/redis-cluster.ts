// A private Redis Cluster for tests: 3 masters + 3 replicas of redis-server in cluster mode on free
// loopback ports, nothing kept on disk, a temporary directory for the nodes' cluster state files,
// and a short cluster-node-timeout so a replica takes over within a few seconds of its master's
// death. Never the shared Redis on 6379. `stop()` kills every node and removes the directory.
import { type ChildProcess, execFile, spawn } from "node:child_process";
import { once } from "node:events";
import { mkdtemp, readFile, rm } from "node:fs/promises";
import { createServer } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { promisify } from "node:util";
import { Redis } from "ioredis";

const run = promisify(execFile);

/** Milliseconds a node may be unreachable before the cluster fails it over. Default 1000: failovers take ~2 s in tests. */
const DEFAULT_NODE_TIMEOUT_MS = 1000;

export interface ClusterNode {
  port: number;
  process: ChildProcess;
}

export interface TestRedisCluster {
  /** `redis+cluster://127.0.0.1:p1,127.0.0.1:p2,...` (every master and replica). */
  url: string;
  nodes: ClusterNode[];
  /** The node that is master of `key`'s slot now (CLUSTER KEYSLOT + CLUSTER NODES). */
  masterOf(key: string): Promise<ClusterNode>;
  /** SIGKILLs a node (a crash: no shutdown, no failover handshake). */
  kill(node: ClusterNode): void;
  /** The live node that masters `key`'s slot now, or undefined while the slot has none (its master died and no replica took over yet). */
  liveMasterOf(key: string): Promise<ClusterNode | undefined>;
  /**
   * Stops every replica from taking over a failed master by itself (cluster-replica-no-failover) until
   * `allowFailovers`: a test that kills a master holds the slot masterless for as long as it needs,
   * whatever the machine's load, instead of racing the election (a second or two after the kill).
   */
  holdFailovers(): Promise<void>;
  /** Lets replicas take over again: a replica whose master is flagged failed starts its election within a cron tick. */
  allowFailovers(): Promise<void>;
  /** Resolves once a live node other than `former` masters `key`'s slot and the cluster state is ok. */
  waitForFailover(key: string, former: ClusterNode, timeoutMs?: number): Promise<ClusterNode>;
  stop(): Promise<void>;
}

async function isFree(port: number): Promise<boolean> {
  const server = createServer();
  return new Promise((resolve) => {
    server.once("error", () => resolve(false));
    server.listen(port, "127.0.0.1", () => server.close(() => resolve(true)));
  });
}

/**
 * Where the kernel picks the local ports of outgoing connections (Linux: ip_local_port_range; its
 * default where that cannot be read). A node's port must stay below it: a port free when checked but
 * in that range could be taken by any connection of the parallel test files before the node binds
 * it, and the node then never answers.
 */
async function ephemeralPortsStart(): Promise<number> {
  const range = await readFile("/proc/sys/net/ipv4/ip_local_port_range", "utf8").catch(() => "32768 60999");
  const start = Number(range.trim().split(/\s+/)[0]);
  return Number.isInteger(start) && start > 0 ? start : 32768;
}

/** A port p where p and p + 10000 (the cluster bus port) are both free, both below `ephemeralStart`. */
async function freeClusterPort(taken: Set<number>, ephemeralStart: number): Promise<number> {
  const highest = ephemeralStart - 10_001;
  const lowest = 10_000;
  if (highest <= lowest) throw new Error("no room below the ephemeral port range for a cluster node and its bus port");
  for (let attempt = 0; attempt < 200; attempt += 1) {
    const port = lowest + Math.floor(Math.random() * (highest - lowest));
    if (taken.has(port) || taken.has(port + 10_000)) continue;
    if ((await isFree(port)) && (await isFree(port + 10_000))) {
      taken.add(port);
      taken.add(port + 10_000);
      return port;
    }
  }
  throw new Error("no free port pair for a cluster node");
}

async function probe(port: number, command: string[]): Promise<string> {
  const { stdout } = await run("redis-cli", ["-h", "127.0.0.1", "-p", String(port), ...command], { timeout: 2000 });
  return stdout.trim();
}

/** A node's redis-server ended before the cluster formed (its port taken meanwhile, most likely). */
class NodeExitedError extends Error {
  constructor(node: ClusterNode) {
    super(`redis cluster: the node on port ${node.port} exited with code ${node.process.exitCode} before it answered (its port or bus port taken?)`);
  }
}

async function waitFor<T>(what: string, check: () => Promise<T | undefined>, timeoutMs: number): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = await check().catch((error: unknown) => {
      if (error instanceof NodeExitedError) throw error;
      return undefined;
    });
    if (value !== undefined) return value;
    if (Date.now() > deadline) throw new Error(`redis cluster: ${what} not reached in ${timeoutMs} ms`);
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
}

/** Masters of each slot range from `CLUSTER NODES` as seen by the node on `port`. */
function masterPortOfSlot(clusterNodes: string, slot: number): number | undefined {
  for (const line of clusterNodes.split("\n")) {
    const fields = line.trim().split(" ");
    if (fields.length < 8 || !fields[2]?.includes("master") || fields[2].includes("fail")) continue;
    for (const range of fields.slice(8)) {
      if (range.startsWith("[")) continue;
      const [from, to = from] = range.split("-").map(Number);
      if (from !== undefined && to !== undefined && slot >= from && slot <= to) return Number(fields[1]?.split(":")[1]?.split("@")[0]);
    }
  }
  return undefined;
}

export async function startTestRedisCluster(options: { nodeTimeoutMs?: number } = {}): Promise<TestRedisCluster> {
  const directory = await mkdtemp(join(tmpdir(), "agentq-redis-cluster-"));
  const taken = new Set<number>();
  const nodes: ClusterNode[] = [];
  // A test process that dies without its teardown must not leave nodes running.
  const killOnExit = () => {
    for (const node of nodes) node.process.kill("SIGKILL");
  };
  process.once("exit", killOnExit);
  const stop = async () => {
    process.off("exit", killOnExit);
    for (const node of nodes) if (node.process.exitCode === null && node.process.signalCode === null) node.process.kill("SIGKILL");
    await Promise.all(nodes.map((node) => (node.process.exitCode === null && node.process.signalCode === null ? once(node.process, "exit") : undefined)));
    await rm(directory, { recursive: true, force: true });
  };
  try {
    const ephemeralStart = await ephemeralPortsStart();
    for (let index = 0; index < 6; index += 1) {
      const port = await freeClusterPort(taken, ephemeralStart);
      const child = spawn(
        "redis-server",
        [
          "--port",
          String(port),
          "--bind",
          "127.0.0.1",
          "--cluster-enabled",
          "yes",
          "--cluster-config-file",
          join(directory, `nodes-${port}.conf`),
          "--cluster-node-timeout",
          String(options.nodeTimeoutMs ?? DEFAULT_NODE_TIMEOUT_MS),
          "--dir",
          directory,
          "--save",
          "",
          "--appendonly",
          "no",
          "--maxmemory-policy",
          "noeviction",
          // A replica syncs at once (the default waits 5 s for more replicas) and may take over
          // however long its link was down: a test kills a master seconds after the cluster formed.
          "--repl-diskless-sync-delay",
          "0",
          "--cluster-replica-validity-factor",
          "0",
        ],
        { stdio: "ignore" },
      );
      nodes.push({ port, process: child });
    }
    await Promise.all(
      nodes.map((node) =>
        waitFor(
          `node ${node.port} answering`,
          async () => {
            // A node that could not bind its ports has exited: say so now rather than at the deadline.
            if (node.process.exitCode !== null) throw new NodeExitedError(node);
            return (await probe(node.port, ["PING"])) === "PONG" ? true : undefined;
          },
          10_000,
        ),
      ),
    );
    await run("redis-cli", ["--cluster", "create", ...nodes.map((node) => `127.0.0.1:${node.port}`), "--cluster-replicas", "1", "--cluster-yes"], {
      timeout: 30_000,
    });
    // Every node must agree that the cluster is whole before clients connect.
    await Promise.all(
      nodes.map((node) =>
        waitFor(
          `node ${node.port} cluster_state:ok`,
          async () => ((await probe(node.port, ["CLUSTER", "INFO"])).includes("cluster_state:ok") ? true : undefined),
          20_000,
        ),
      ),
    );
    // And every replica has its master's data (a replica that never synced cannot take over).
    await Promise.all(
      nodes.map((node) =>
        waitFor(
          `node ${node.port} replicating`,
          async () => {
            const replication = await probe(node.port, ["INFO", "replication"]);
            return replication.includes("role:master") || replication.includes("master_link_status:up") ? true : undefined;
          },
          20_000,
        ),
      ),
    );
  } catch (error) {
    await stop();
    throw error;
  }

  const alive = () => nodes.filter((node) => node.process.exitCode === null && node.process.signalCode === null);
  const masterOf = async (key: string, except?: ClusterNode): Promise<ClusterNode | undefined> => {
    const asked = alive().find((node) => node !== except);
    if (!asked) return undefined;
    const slot = Number(await probe(asked.port, ["CLUSTER", "KEYSLOT", key]));
    const port = masterPortOfSlot(await probe(asked.port, ["CLUSTER", "NODES"]), slot);
    return nodes.find((node) => node.port === port);
  };
  const setReplicaNoFailover = async (value: "yes" | "no") => {
    const replies = await Promise.all(alive().map((node) => probe(node.port, ["CONFIG", "SET", "cluster-replica-no-failover", value])));
    if (replies.some((reply) => reply !== "OK")) throw new Error(`redis cluster: CONFIG SET cluster-replica-no-failover ${value}: ${replies.join(", ")}`);
  };

  return {
    url: `redis+cluster://${nodes.map((node) => `127.0.0.1:${node.port}`).join(",")}`,
    nodes,
    async masterOf(key) {
      const master = await masterOf(key);
      if (!master) throw new Error(`no master found for ${key}`);
      return master;
    },
    async liveMasterOf(key) {
      const master = await masterOf(key);
      return master && alive().includes(master) ? master : undefined;
    },
    holdFailovers: () => setReplicaNoFailover("yes"),
    allowFailovers: () => setReplicaNoFailover("no"),
    kill(node) {
      node.process.kill("SIGKILL");
    },
    async waitForFailover(key, former, timeoutMs = 15_000) {
      return waitFor(
        `a new master for ${key}`,
        async () => {
          const master = await masterOf(key, former);
          if (!master || master === former || !alive().includes(master)) return undefined;
          return (await probe(master.port, ["CLUSTER", "INFO"])).includes("cluster_state:ok") ? master : undefined;
        },
        timeoutMs,
      );
    },
    stop,
  };
}

/** A plain connection to one node (for assertions that need a node, not the cluster). */
export function connectToNode(port: number): Redis {
  // The type argument spares the typecheck seconds (createRedis in packages/queue/src/create-redis.ts says why).
  return new Redis<"legacy">({ host: "127.0.0.1", port, maxRetriesPerRequest: 1, lazyConnect: false });
}
