import { randomBytes } from "node:crypto";
import { constants } from "node:fs";
import { access, link, lstat, mkdir, mkdtemp, readFile, readlink, rename, rm, unlink, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import path from "node:path";
import { createBubblewrapSandbox, createUnconfinedSandbox, type SystemBindings } from "./bubblewrap-sandbox.ts";
import { openPidsCgroupRoot } from "./pids-cgroup.ts";
import type { SandboxAvailability, SandboxLimits } from "./process-sandbox.ts";

export interface ProbeProcessSandboxOptions {
  /** PROCESS_SANDBOX: `bwrap` (default) or `off`. */
  mode: "bwrap" | "off";
  /** Where `bwrap` and `prlimit` are looked for (the worker's PATH). */
  searchPath: string;
  limits?: Partial<SandboxLimits>;
  /** How long the trial command may take. Default 15 s (a cold start on a loaded machine). */
  timeoutMs?: number;
}

/** /etc files programs commonly read, none holding a secret (no shadow, no private keys, no machine-id). */
const ETC_FILES = [
  "/etc/ld.so.cache",
  "/etc/ld.so.conf",
  "/etc/ld.so.conf.d",
  "/etc/alternatives",
  "/etc/ssl/certs",
  "/etc/ca-certificates",
  "/etc/localtime",
  "/etc/timezone",
  "/etc/mime.types",
  "/etc/protocols",
  "/etc/services",
  "/etc/nsswitch.conf",
  "/etc/bash.bashrc",
  "/etc/profile",
  "/etc/inputrc",
  "/etc/magic",
  "/etc/magic.mime",
];
/** Only with the network: name resolution. */
const NETWORK_ETC_FILES = ["/etc/resolv.conf", "/etc/hosts", "/etc/host.conf", "/etc/gai.conf"];
const TOP_LEVEL = ["/bin", "/sbin", "/lib", "/lib32", "/lib64", "/libx32"];

/**
 * Decides once, at process start, how commands will run: PROCESS_SANDBOX=off → unconfined; otherwise
 * bubblewrap, proven by running `true` in it with the real arguments. Where it cannot start (no bwrap,
 * user namespaces refused...), the reason says what failed and what to do.
 */
export async function probeProcessSandbox(options: ProbeProcessSandboxOptions): Promise<SandboxAvailability> {
  if (options.mode === "off") return { available: true, sandbox: createUnconfinedSandbox() };
  const bwrapPath = await findExecutable("bwrap", options.searchPath);
  if (bwrapPath === undefined) {
    return {
      available: false,
      reason: "bwrap (bubblewrap) was not found on PATH: install the bubblewrap package (or set PROCESS_SANDBOX=off for single-user development only)",
    };
  }
  const prlimitPath = (await findExecutable("prlimit", options.searchPath)) ?? null;
  const cgroups = await openPidsCgroupRoot();
  const bindings = await systemBindings();
  const sandbox = createBubblewrapSandbox({
    bwrapPath,
    prlimitPath,
    cgroups: cgroups.root ?? null,
    bindings,
    ...(options.limits ? { limits: options.limits } : {}),
  });
  const workspace = await mkdtemp(path.join(tmpdir(), "agentq-sandbox-probe-"));
  try {
    const started = await sandbox.spawn({ command: "test -w .", workspacePath: workspace, environment: {}, network: false });
    let output = "";
    started.child.stdout.on("data", (chunk: Buffer) => (output += chunk.toString()));
    started.child.stderr.on("data", (chunk: Buffer) => (output += chunk.toString()));
    const code = await new Promise<number | null>((resolve) => {
      const timer = setTimeout(() => {
        try {
          process.kill(-started.child.pid!, "SIGKILL");
        } catch {
          // gone
        }
        resolve(null);
      }, options.timeoutMs ?? 15_000);
      started.child.once("close", (exitCode) => {
        clearTimeout(timer);
        resolve(exitCode);
      });
    });
    await started.release();
    if (code !== 0) {
      return {
        available: false,
        reason: `bubblewrap could not start a sandbox (exit ${code ?? "timeout"}${output.trim() ? `: ${output.trim().slice(0, 300)}` : ""}); it needs user namespaces (see the README's "Sandbox" section)`,
      };
    }
    return { available: true, sandbox };
  } catch (error) {
    return {
      available: false,
      reason: `bubblewrap could not start a sandbox (${error instanceof Error ? error.message : String(error)}); it needs user namespaces (see the README's "Sandbox" section)`,
    };
  } finally {
    await rm(workspace, { recursive: true, force: true });
  }
}

/**
 * Where the sandbox's passwd and group live: one directory per user, reused by every process (a
 * directory per process would pile up in /tmp, since workers are often killed rather than stopped).
 * It must be this user's own and writable by no one else, or another local user could choose what
 * the sandbox binds; otherwise a fresh private directory is made.
 */
async function etcDirectory(): Promise<string> {
  const uid = process.getuid?.() ?? 0;
  const shared = path.join(tmpdir(), `agentq-sandbox-etc-${uid}`);
  await mkdir(shared, { mode: 0o755 }).catch(() => undefined);
  const stats = await lstat(shared).catch(() => undefined);
  if (stats?.isDirectory() && stats.uid === uid && (stats.mode & 0o022) === 0) return shared;
  return mkdtemp(path.join(tmpdir(), "agentq-sandbox-etc-"));
}

/**
 * Makes `file` hold `text` without ever replacing a file that already holds it: every worker process
 * of this user shares the directory, and a sandbox starting in another process may be bind-mounting
 * the file at this moment (bubblewrap fails if the inode it is binding was renamed over). A new file
 * appears whole (written aside, then hard-linked into place); only a file with other content (an
 * older agentq's) is replaced.
 */
async function ensureFileText(file: string, text: string): Promise<void> {
  const current = await readFile(file, "utf8").catch(() => undefined);
  if (current === text) return;
  const temporary = `${file}.${process.pid}.${randomBytes(4).toString("hex")}`;
  await writeFile(temporary, text, { mode: 0o644 });
  try {
    if (current === undefined) {
      // Another process may have created it in the meantime, with the same text: then it stays.
      await link(temporary, file).catch((error: unknown) => {
        if ((error as NodeJS.ErrnoException).code !== "EEXIST") throw error;
      });
    } else {
      await rename(temporary, file);
    }
  } finally {
    await unlink(temporary).catch(() => undefined);
  }
}

async function findExecutable(name: string, searchPath: string): Promise<string | undefined> {
  for (const directory of searchPath.split(":")) {
    if (directory === "") continue;
    const candidate = path.join(directory, name);
    try {
      await access(candidate, constants.X_OK);
      return candidate;
    } catch {
      // next
    }
  }
  return undefined;
}

/** The sandbox's /etc/passwd and /etc/group: the sandbox user (uid 1000) has a name, `id` and `whoami` answer. */
const SANDBOX_PASSWD =
  "root:x:0:0:root:/tmp:/bin/bash\nagentq:x:1000:1000:agentq sandbox:/tmp:/bin/bash\nnobody:x:65534:65534:nobody:/nonexistent:/usr/sbin/nologin\n";
const SANDBOX_GROUP = "root:x:0:\nagentq:x:1000:\nnogroup:x:65534:\n";

let bindings: Promise<SystemBindings> | undefined;

/** What of this host the sandbox binds: only paths that exist here (found once per process). */
function systemBindings(): Promise<SystemBindings> {
  bindings ??= findSystemBindings();
  return bindings;
}

async function findSystemBindings(): Promise<SystemBindings> {
  const exists = (candidate: string) =>
    lstat(candidate).then(
      () => true,
      () => false,
    );
  const readOnly = ["/usr"];
  const symlinks: SystemBindings["symlinks"] = [];
  for (const top of TOP_LEVEL) {
    const stats = await lstat(top).catch(() => undefined);
    if (stats === undefined) continue;
    if (stats.isSymbolicLink()) symlinks.push({ path: top, target: await readlink(top) });
    else readOnly.push(top);
  }
  for (const file of ETC_FILES) if (await exists(file)) readOnly.push(file);
  const networkOnly: string[] = [];
  for (const file of NETWORK_ETC_FILES) if (await exists(file)) networkOnly.push(file);
  const directory = await etcDirectory();
  const passwdFile = path.join(directory, "passwd");
  const groupFile = path.join(directory, "group");
  await ensureFileText(passwdFile, SANDBOX_PASSWD);
  await ensureFileText(groupFile, SANDBOX_GROUP);
  return { readOnly, symlinks, networkOnly, passwdFile, groupFile };
}

/**
 * Says at start what commands will run in, the same way in every process: an error with the reason
 * when the sandbox cannot start (process tools are not offered), a warning for PROCESS_SANDBOX=off,
 * and which limits hold otherwise.
 */
export function logSandboxAvailability(
  availability: SandboxAvailability,
  logger: {
    info(object: Record<string, unknown>, message: string): void;
    warn(object: Record<string, unknown>, message: string): void;
    error(object: Record<string, unknown>, message: string): void;
  },
): void {
  if (!availability.available) {
    logger.error({ reason: availability.reason }, `process sandbox unavailable, so run_command and background jobs are not offered: ${availability.reason}`);
  } else if (availability.sandbox.mode === "off") {
    logger.warn({}, "PROCESS_SANDBOX=off: commands and jobs run unconfined, with everything this process's user can read (single-user development only)");
  } else {
    logger.info({ enforcement: availability.sandbox.enforcement }, "process sandbox ready (bubblewrap)");
  }
}
