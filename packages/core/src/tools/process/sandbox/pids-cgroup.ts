import { mkdir, readFile, rmdir, writeFile } from "node:fs/promises";
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
  /** A fresh cgroup for one command, capped at `maxProcesses`. */
  create(name: string, maxProcesses: number): Promise<PidsCgroup>;
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

/** Finds a writable pids hierarchy and makes `agentq-sandbox` in it; undefined + reason where none is. */
export async function openPidsCgroupRoot(name = "agentq-sandbox"): Promise<{ root: PidsCgroupRoot } | { root: undefined; reason: string }> {
  const attempts: string[] = [];
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
      const probe = path.join(directory, `probe-${process.pid}`);
      await mkdir(probe, { recursive: true });
      await writeFile(path.join(probe, "pids.max"), "8");
      await rmdir(probe);
      return { root: cgroupRoot(version, directory) };
    } catch (error) {
      attempts.push(`cgroup v${version} at ${base}: ${error instanceof Error ? error.message : String(error)}`);
    }
  }
  return { root: undefined, reason: `no writable pids cgroup (${attempts.join("; ")})` };
}

function cgroupRoot(version: 1 | 2, directory: string): PidsCgroupRoot {
  return {
    version,
    directory,
    async create(name, maxProcesses) {
      const own = path.join(directory, name);
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
          const members = async () =>
            (await readFile(path.join(own, "cgroup.procs"), "utf8").catch(() => ""))
              .split("\n")
              .filter((line) => line !== "")
              .map(Number);
          for (let attempt = 0; attempt < 40; attempt += 1) {
            const pids = await members();
            if (pids.length === 0) break;
            if (attempt >= 20) {
              for (const pid of pids) {
                try {
                  process.kill(pid, "SIGKILL");
                } catch {
                  // gone meanwhile
                }
              }
            }
            await new Promise((resolve) => setTimeout(resolve, 25));
          }
          for (let attempt = 0; attempt < 20; attempt += 1) {
            try {
              await rmdir(own);
              return;
            } catch (error) {
              const code = (error as NodeJS.ErrnoException).code;
              if (code !== "EBUSY") return;
              await new Promise((resolve) => setTimeout(resolve, 50));
            }
          }
        },
      };
    },
  };
}
