import { randomBytes } from "node:crypto";
import { mkdir, readdir, readFile, readlink, rmdir, writeFile } from "node:fs/promises";
import path from "node:path";

/**
 * A cap on the processes of one sandboxed command, with the cgroup `pids` controller: a fork bomb
 * ends that command, not the worker (RLIMIT_NPROC does not hold for root, nor across user
 * namespaces). cgroup v1 (`/sys/fs/cgroup/pids`) and v2 (a delegated `/sys/fs/cgroup` with the pids
 * controller) are supported; where neither is writable, `openPidsCgroupRoot` says why and commands
 * run without a process cap (the README says which limits hold where).
 */
export interface PidsCgroupRoot {
  /** `v1` or `v2`. */
  readonly version: 1 | 2;
  readonly directory: string;
  /**
   * A fresh cgroup for one command, capped at `maxProcesses`. Its name says which process made it
   * (`cmd-<pid namespace>-<pid>-<random>`), so that a later start can remove what a killed worker left.
   */
  create(maxProcesses: number): Promise<PidsCgroup>;
}

export interface PidsCgroup {
  /** Moves these processes (and so everything they start from now on) into the cgroup. */
  add(pids: readonly number[]): Promise<void>;
  /**
   * Waits until the cgroup's processes are gone (up to 0.5 s, then kills what is left), and removes
   * it: when it resolves, nothing the command started is still running.
   */
  remove(): Promise<void>;
}

const V1_ROOT = "/sys/fs/cgroup/pids";
const V2_ROOT = "/sys/fs/cgroup";

/**
 * Finds a writable pids hierarchy and makes `agentq-sandbox` in it; undefined + reason where none is.
 * The cgroups that processes of this pid namespace made and that outlived them (a worker killed with
 * SIGKILL never releases its commands' cgroups) are removed on the way.
 */
export async function openPidsCgroupRoot(name = "agentq-sandbox"): Promise<{ root: PidsCgroupRoot } | { root: undefined; reason: string }> {
  const attempts: string[] = [];
  const owner = `${await pidNamespace()}-${process.pid}`;
  for (const [version, base] of [
    [1, V1_ROOT],
    [2, V2_ROOT],
  ] as const) {
    try {
      if (version === 1) await readFile(path.join(base, "cgroup.procs"));
      else {
        const controllers = await readFile(path.join(base, "cgroup.controllers"), "utf8");
        if (!controllers.split(/\s+/).includes("pids")) throw new Error("the pids controller is not available");
      }
      const directory = path.join(base, name);
      await mkdir(directory, { recursive: true });
      if (version === 2) await writeFile(path.join(directory, "cgroup.subtree_control"), "+pids").catch(() => undefined);
      // Prove it works: a child cgroup with a limit can be made and removed.
      await removeOrphans(directory);
      const probe = path.join(directory, `probe-${owner}`);
      await mkdir(probe, { recursive: true });
      await writeFile(path.join(probe, "pids.max"), "8");
      await rmdir(probe);
      return { root: cgroupRoot(version, directory, owner) };
    } catch (error) {
      attempts.push(`cgroup v${version} at ${base}: ${error instanceof Error ? error.message : String(error)}`);
    }
  }
  return { root: undefined, reason: `no writable pids cgroup (${attempts.join("; ")})` };
}

/** The inode of this process's pid namespace: pids are only comparable within one namespace. */
async function pidNamespace(): Promise<string> {
  const link = await readlink("/proc/self/ns/pid").catch(() => "pid:[unknown]");
  return /\[(\d+)\]/.exec(link)?.[1] ?? "unknown";
}

/**
 * Removes the cgroups left by dead processes of this pid namespace (named `cmd-<ns>-<pid>-...` or
 * `probe-<ns>-<pid>`), killing whatever still runs in them (the sandbox dies with its parent, so
 * normally nothing does). Cgroups of other pid namespaces (workers in other containers sharing the
 * hierarchy) are left alone: their pids mean nothing here.
 */
async function removeOrphans(directory: string): Promise<void> {
  const namespace = await pidNamespace();
  const entries = await readdir(directory, { withFileTypes: true }).catch(() => []);
  for (const entry of entries) {
    if (!entry.isDirectory()) continue;
    const match = /^(?:cmd|probe)-(\d+)-(\d+)(?:-|$)/.exec(entry.name);
    if (match === null || match[1] !== namespace || processAlive(Number(match[2]))) continue;
    const orphan = path.join(directory, entry.name);
    for (const pid of await members(orphan)) killProcess(pid);
    await removeWhenEmpty(orphan);
  }
}

function processAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === "EPERM";
  }
}

function killProcess(pid: number): void {
  try {
    process.kill(pid, "SIGKILL");
  } catch {
    // gone meanwhile
  }
}

async function members(cgroup: string): Promise<number[]> {
  return (await readFile(path.join(cgroup, "cgroup.procs"), "utf8").catch(() => ""))
    .split("\n")
    .filter((line) => line !== "")
    .map(Number);
}

/** rmdir, retried while the kernel still counts exiting processes in it (EBUSY), for up to a second. */
async function removeWhenEmpty(cgroup: string): Promise<void> {
  for (let attempt = 0; attempt < 20; attempt += 1) {
    try {
      await rmdir(cgroup);
      return;
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== "EBUSY") return;
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
  }
}

function cgroupRoot(version: 1 | 2, directory: string, owner: string): PidsCgroupRoot {
  return {
    version,
    directory,
    async create(maxProcesses) {
      const own = path.join(directory, `cmd-${owner}-${randomBytes(6).toString("hex")}`);
      await mkdir(own);
      await writeFile(path.join(own, "pids.max"), String(maxProcesses));
      return {
        async add(pids) {
          // One pid per write: the kernel takes a single pid each time.
          for (const pid of pids) await writeFile(path.join(own, "cgroup.procs"), String(pid));
        },
        async remove() {
          // Nothing of the command may outlive it: its processes normally die with the sandbox's pid 1
          // (asynchronously); whatever is still listed after a short wait is killed here.
          for (let attempt = 0; attempt < 40; attempt += 1) {
            const pids = await members(own);
            if (pids.length === 0) break;
            if (attempt >= 20) for (const pid of pids) killProcess(pid);
            await new Promise((resolve) => setTimeout(resolve, 25));
          }
          await removeWhenEmpty(own);
        },
      };
    },
  };
}
