import { type ChildProcess, spawn } from "node:child_process";
import { existsSync } from "node:fs";
import { readFile } from "node:fs/promises";
import type { Socket } from "node:net";
import type { Readable } from "node:stream";
import type { PidsCgroupRoot } from "./pids-cgroup.ts";
import {
  DEFAULT_SANDBOX_LIMITS,
  type ProcessSandbox,
  type SandboxedProcess,
  type SandboxLimits,
  type SandboxRequest,
  type ServerSandboxRequest,
  type SpawnInvocation,
} from "./process-sandbox.ts";

/** `exec 2>&1` joins stderr to stdout, then the command runs exactly as `bash -c <command>` would, passed as `$1`. */
const BASH_ARGS = ["-c", 'exec 2>&1; exec "$BASH" -c -- "$1" bash', "bash"];

/** Inside the sandbox the command is this user (mapped to the worker's own uid outside). */
const SANDBOX_UID = 1000;

export interface BubblewrapSandboxOptions {
  /** Absolute path of `bwrap`. */
  bwrapPath: string;
  /** Absolute path of util-linux `prlimit` (sets RLIMIT_NOFILE and RLIMIT_FSIZE); null: none is applied. */
  prlimitPath: string | null;
  /** Where each command gets a pids cgroup; null: no process cap holds (see README). */
  cgroups: PidsCgroupRoot | null;
  /** Files bound read-only at the same place inside (from `systemBindings`). */
  bindings: SystemBindings;
  limits?: Partial<SandboxLimits>;
}

/** What of the host's file system the sandbox shows (read-only). */
export interface SystemBindings {
  /** Directories and files bound as they are (`/usr`, the /etc files programs need). */
  readOnly: string[];
  /** Top-level links to recreate (`/bin` → `usr/bin` on a merged-/usr system). */
  symlinks: { path: string; target: string }[];
  /** Bound only when the command has the network (`/etc/resolv.conf`...). */
  networkOnly: string[];
  /** A passwd and group file naming the sandbox user, so that `id` and `whoami` answer. */
  passwdFile: string;
  groupFile: string;
}

/**
 * Every command in bubblewrap (docs/design.md invariant 10): new user, pid, ipc, uts, cgroup and network
 * namespaces (the network shared only when asked), dies with the worker, its own session (no
 * TIOCSTI), no capabilities; an empty environment for bwrap itself and `--clearenv` plus the allowed
 * variables for the command; the system read-only, a fresh /proc and /dev, a private capped /tmp,
 * the workspace read-write and nothing else of the host. Spawned with an argv array: no shell
 * stands between Node and bwrap.
 */
export function createBubblewrapSandbox(options: BubblewrapSandboxOptions): ProcessSandbox {
  const limits = { ...DEFAULT_SANDBOX_LIMITS, ...options.limits };

  const invocation = (request: SandboxRequest, blockFd?: number): SpawnInvocation => {
    const bwrap: string[] = ["--unshare-all", "--unshare-user", "--uid", String(SANDBOX_UID), "--gid", String(SANDBOX_UID)];
    if (request.network) bwrap.push("--share-net");
    bwrap.push("--die-with-parent", "--new-session", "--cap-drop", "ALL", "--hostname", "agentq-sandbox");
    for (const path of options.bindings.readOnly) bwrap.push("--ro-bind", path, path);
    for (const { path, target } of options.bindings.symlinks) bwrap.push("--symlink", target, path);
    if (request.network) for (const path of options.bindings.networkOnly) bwrap.push("--ro-bind", path, path);
    bwrap.push("--ro-bind", options.bindings.passwdFile, "/etc/passwd", "--ro-bind", options.bindings.groupFile, "/etc/group");
    bwrap.push("--proc", "/proc", "--dev", "/dev", "--size", String(limits.tmpSizeBytes), "--tmpfs", "/tmp");
    bwrap.push("--bind", request.workspacePath, request.workspacePath, "--chdir", request.workspacePath);
    bwrap.push("--clearenv");
    // HOME of the worker does not exist in here: the private /tmp stands in for it.
    for (const [name, value] of Object.entries({ ...request.environment, HOME: "/tmp" })) bwrap.push("--setenv", name, value);
    if (blockFd !== undefined) bwrap.push("--block-fd", String(blockFd));
    bwrap.push("--", "/bin/bash", ...BASH_ARGS, request.command);
    if (options.prlimitPath === null) return { file: options.bwrapPath, args: bwrap, env: {}, cwd: "/" };
    return {
      file: options.prlimitPath,
      args: [
        `--nofile=${limits.maxOpenFiles}:${limits.maxOpenFiles}`,
        `--fsize=${limits.maxFileSizeBytes}:${limits.maxFileSizeBytes}`,
        "--",
        options.bwrapPath,
        ...bwrap,
      ],
      env: {},
      cwd: "/",
    };
  };

  return {
    mode: "bwrap",
    enforcement: {
      namespaces: "user, pid, ipc, uts, cgroup, network (bubblewrap)",
      processes: options.cgroups ? `cgroup v${options.cgroups.version} pids (${limits.maxProcesses})` : "not capped: no writable pids cgroup",
      open_files: options.prlimitPath ? `RLIMIT_NOFILE (${limits.maxOpenFiles})` : "not capped: prlimit not found",
      file_size: options.prlimitPath ? `RLIMIT_FSIZE (${limits.maxFileSizeBytes} bytes)` : "not capped: prlimit not found",
      tmp: `tmpfs (${limits.tmpSizeBytes} bytes)`,
    },
    invocation: (request) => invocation(request),
    serverInvocation(request: ServerSandboxRequest): SpawnInvocation {
      const bwrap: string[] = ["--unshare-all", "--unshare-user", "--uid", String(SANDBOX_UID), "--gid", String(SANDBOX_UID)];
      if (request.network) bwrap.push("--share-net");
      bwrap.push("--die-with-parent", "--new-session", "--cap-drop", "ALL", "--hostname", "agentq-sandbox");
      // The host read-only (a server is whatever program the admin registered, wherever it lives), minus
      // what holds other users' data or local sockets (Postgres' unix socket is under /run).
      bwrap.push("--ro-bind", "/", "/");
      for (const path of request.hiddenPaths) bwrap.push("--tmpfs", path);
      bwrap.push("--tmpfs", "/run", "--proc", "/proc", "--dev", "/dev", "--size", String(limits.tmpSizeBytes), "--tmpfs", "/tmp", "--chdir", "/tmp");
      // The private /tmp would hide a server installed under the host's /tmp (a checkout there, with its
      // node_modules): the top-level /tmp entries its program and arguments name stay visible, read-only,
      // with the hidden paths inside them hidden again.
      for (const top of tmpEntriesNamed([request.file, ...request.args])) {
        bwrap.push("--ro-bind", top, top);
        for (const path of request.hiddenPaths) if (path === top || path.startsWith(`${top}/`)) bwrap.push("--tmpfs", path);
      }
      // bwrap passes its own environment on: the server's, minus what the spawner added.
      for (const name of request.inheritedVariables) if (!(name in request.environment)) bwrap.push("--unsetenv", name);
      bwrap.push("--", request.file, ...request.args);
      return { file: options.bwrapPath, args: bwrap, env: { HOME: "/tmp", ...request.environment }, cwd: "/" };
    },
    async spawn(request) {
      const cgroup = options.cgroups ? await options.cgroups.create(limits.maxProcesses) : null;
      // With a cgroup, bwrap waits on fd 3 after it has forked its first child and before the command
      // starts: both are moved into the cgroup, then released, so everything the command starts is capped.
      const spec = invocation(request, cgroup ? 3 : undefined);
      const child = spawn(spec.file, spec.args, {
        cwd: spec.cwd,
        env: spec.env,
        stdio: cgroup ? ["ignore", "pipe", "pipe", "pipe"] : ["ignore", "pipe", "pipe"],
        detached: true,
      });
      try {
        await new Promise<void>((resolve, reject) => {
          child.once("spawn", () => resolve());
          child.once("error", reject);
        });
        if (cgroup && child.pid !== undefined) {
          // bwrap that fails at once (user namespaces refused...) never runs the command: what it
          // printed says why, so it is kept while the cgroup is set up (Node drops the output of an
          // exited child that nobody reads).
          const setupOutput = holdOutput(child);
          const exited = () => child.exitCode !== null || child.signalCode !== null;
          const pids = [child.pid, ...(await childrenOf(child.pid, exited))];
          try {
            if (!exited()) await cgroup.add(pids);
          } catch (error) {
            // ESRCH: it exited meanwhile (said below); anything else is a cgroup that does not work.
            if ((error as NodeJS.ErrnoException).code !== "ESRCH") throw error;
          }
          if (exited()) {
            const message = setupOutput.stop().toString().trim();
            throw new Error(`bwrap exited (${child.exitCode ?? child.signalCode}) before the command started${message ? `: ${message.slice(0, 500)}` : ""}`);
          }
          setupOutput.giveBack();
          // Closed once written: an open fd 3 would hold back the child's "close" event.
          const release = child.stdio[3] as Socket;
          release.on("error", () => release.destroy());
          release.end("x", () => release.destroy());
        }
      } catch (error) {
        if (child.pid !== undefined) killGroup(child.pid);
        await cgroup?.remove();
        throw error;
      }
      return {
        child: child as SandboxedProcess["child"],
        release: async () => {
          await cgroup?.remove();
        },
      };
    },
  };
}

/**
 * PROCESS_SANDBOX=off: bash with the allowed environment in the workspace, unconfined (it can read
 * whatever the worker's user can). For single-user development only; the worker warns at every start.
 */
export function createUnconfinedSandbox(): ProcessSandbox {
  const invocation = (request: SandboxRequest): SpawnInvocation => ({
    file: "/bin/bash",
    args: [...BASH_ARGS, request.command],
    env: request.environment,
    cwd: request.workspacePath,
  });
  return {
    mode: "off",
    enforcement: { confinement: "none: PROCESS_SANDBOX=off" },
    invocation,
    // Unconfined, the server still gets its given environment only: `env -u` drops what the spawner added.
    serverInvocation: (request) => ({
      file: "/usr/bin/env",
      args: [
        ...request.inheritedVariables.filter((name) => !(name in request.environment)).flatMap((name) => ["-u", name]),
        "--",
        request.file,
        ...request.args,
      ],
      env: { HOME: "/tmp", ...request.environment },
      cwd: "/tmp",
    }),
    async spawn(request) {
      const spec = invocation(request);
      const child = spawn(spec.file, spec.args, { cwd: spec.cwd, env: spec.env, stdio: ["ignore", "pipe", "pipe"], detached: true });
      await new Promise<void>((resolve, reject) => {
        child.once("spawn", () => resolve());
        child.once("error", reject);
      });
      return { child, release: async () => undefined };
    },
  };
}

/**
 * Reads the child's stdout and stderr into a buffer until `stop` (returns what came) or `giveBack`
 * (puts it back at the front of the streams, paused, for whoever reads them next).
 */
function holdOutput(child: ChildProcess): { stop(): Buffer; giveBack(): void } {
  const streams = [child.stdout, child.stderr].filter((stream): stream is Readable => stream !== null);
  const held = new Map<Readable, Buffer[]>(streams.map((stream) => [stream, []]));
  const listeners = new Map(streams.map((stream) => [stream, (chunk: Buffer) => held.get(stream)?.push(chunk)]));
  for (const [stream, listener] of listeners) stream.on("data", listener);
  const stop = () => {
    for (const [stream, listener] of listeners) stream.off("data", listener);
    return Buffer.concat([...held.values()].flat());
  };
  return {
    stop,
    giveBack() {
      stop();
      for (const stream of streams) {
        stream.pause();
        for (const chunk of (held.get(stream) ?? []).reverse()) stream.unshift(chunk);
        // Back to "no mode chosen yet": the next `data` listener starts the flow, as on a fresh stream.
        (stream as { readableFlowing: boolean | null }).readableFlowing = null;
      }
    },
  };
}

/** The pids bwrap has forked so far (it forks its first child at once; give it up to 2 s, unless it exits). */
async function childrenOf(pid: number, exited: () => boolean): Promise<number[]> {
  const deadline = Date.now() + 2_000;
  for (;;) {
    if (exited()) return [];
    const text = await readFile(`/proc/${pid}/task/${pid}/children`, "utf8").catch(() => "");
    const pids = text
      .split(/\s+/)
      .filter((value) => value !== "")
      .map(Number);
    if (pids.length > 0 || Date.now() > deadline) return pids;
    await new Promise((resolve) => setTimeout(resolve, 2));
  }
}

function killGroup(pid: number): void {
  try {
    process.kill(-pid, "SIGKILL");
  } catch {
    // gone
  }
}

/** The top-level /tmp entries (`/tmp/<name>`) that exist and that absolute paths among `values` lie in. */
function tmpEntriesNamed(values: readonly string[]): string[] {
  const tops = new Set<string>();
  for (const value of values) {
    const match = /^\/tmp\/([^/]+)/.exec(value);
    if (match && match[1] !== "." && match[1] !== ".." && existsSync(`/tmp/${match[1]}`)) tops.add(`/tmp/${match[1]}`);
  }
  return [...tops];
}
