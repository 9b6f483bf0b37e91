import { describe, expect, it } from "vitest";
import { createBubblewrapSandbox, createUnconfinedSandbox, type SystemBindings } from "./bubblewrap-sandbox.ts";
import type { SandboxRequest } from "./process-sandbox.ts";

const BINDINGS: SystemBindings = {
  readOnly: ["/usr", "/etc/ld.so.cache"],
  symlinks: [{ path: "/bin", target: "usr/bin" }],
  networkOnly: ["/etc/resolv.conf"],
  passwdFile: "/var/tmp/etc/passwd",
  groupFile: "/var/tmp/etc/group",
};

const REQUEST: SandboxRequest = {
  command: "echo 'a b'; cat /proc/1/environ",
  workspacePath: "/srv/workspaces/ws_1",
  environment: { PATH: "/usr/bin:/bin", LANG: "C.UTF-8" },
  network: false,
};

function sandbox(prlimitPath: string | null = "/usr/bin/prlimit") {
  return createBubblewrapSandbox({
    bwrapPath: "/usr/bin/bwrap",
    prlimitPath,
    cgroups: null,
    bindings: BINDINGS,
    limits: { maxOpenFiles: 64, maxFileSizeBytes: 4096 },
  });
}

/** The value after each occurrence of `flag` in argv (pairs like `--bind SRC DEST` give SRC). */
function after(args: string[], flag: string): string[] {
  return args.flatMap((arg, index) => (arg === flag ? [args[index + 1] ?? ""] : []));
}

describe("the bubblewrap invocation", () => {
  it("starts prlimit then bwrap with an empty environment, from /", () => {
    const spec = sandbox().invocation(REQUEST);
    expect(spec.file).toBe("/usr/bin/prlimit");
    expect(spec.env).toEqual({});
    expect(spec.cwd).toBe("/");
    expect(spec.args.slice(0, 4)).toEqual(["--nofile=64:64", "--fsize=4096:4096", "--", "/usr/bin/bwrap"]);
  });

  it("without prlimit starts bwrap itself, still with an empty environment", () => {
    const spec = sandbox(null).invocation(REQUEST);
    expect(spec.file).toBe("/usr/bin/bwrap");
    expect(spec.env).toEqual({});
    expect(spec.args[0]).toBe("--unshare-all");
  });

  it("unshares every namespace, drops capabilities, dies with its parent and starts a new session", () => {
    const { args } = sandbox().invocation(REQUEST);
    for (const flag of ["--unshare-all", "--unshare-user", "--die-with-parent", "--new-session"]) expect(args).toContain(flag);
    expect(after(args, "--cap-drop")).toEqual(["ALL"]);
    expect(args).not.toContain("--share-net");
    expect(after(args, "--ro-bind")).not.toContain("/etc/resolv.conf");
  });

  it("shares the network, with name resolution, only when the request asks for it", () => {
    const { args } = sandbox().invocation({ ...REQUEST, network: true });
    expect(args).toContain("--share-net");
    expect(after(args, "--ro-bind")).toContain("/etc/resolv.conf");
  });

  it("clears the environment and sets only the request's variables, HOME on the private /tmp", () => {
    const { args } = sandbox().invocation(REQUEST);
    const clear = args.indexOf("--clearenv");
    expect(clear).toBeGreaterThan(0);
    const set = args.flatMap((arg, index) => (arg === "--setenv" ? [`${args[index + 1]}=${args[index + 2]}`] : []));
    expect(set).toEqual(["PATH=/usr/bin:/bin", "LANG=C.UTF-8", "HOME=/tmp"]);
    expect(args.indexOf("--setenv")).toBeGreaterThan(clear);
  });

  it("binds the system read-only and only the workspace read-write, as the working directory", () => {
    const { args } = sandbox().invocation(REQUEST);
    expect(after(args, "--ro-bind")).toEqual(["/usr", "/etc/ld.so.cache", "/var/tmp/etc/passwd", "/var/tmp/etc/group"]);
    expect(after(args, "--bind")).toEqual([REQUEST.workspacePath]);
    expect(after(args, "--chdir")).toEqual([REQUEST.workspacePath]);
    expect(after(args, "--tmpfs")).toEqual(["/tmp"]);
    expect(after(args, "--proc")).toEqual(["/proc"]);
    expect(after(args, "--dev")).toEqual(["/dev"]);
    // The workspace is bound after the tmpfs, so a workspace under /tmp is still the real one.
    expect(args.indexOf("--bind")).toBeGreaterThan(args.indexOf("--tmpfs"));
  });

  it("passes the command as one last argument to bash, never inside a script", () => {
    const { args } = sandbox().invocation(REQUEST);
    const separator = args.lastIndexOf("--");
    expect(args.slice(separator + 1)).toEqual(["/bin/bash", "-c", 'exec 2>&1; exec "$BASH" -c -- "$1" bash', "bash", REQUEST.command]);
  });
});

describe("the unconfined sandbox (PROCESS_SANDBOX=off)", () => {
  it("runs bash in the workspace with exactly the request's environment", () => {
    const off = createUnconfinedSandbox();
    expect(off.mode).toBe("off");
    const spec = off.invocation(REQUEST);
    expect(spec).toEqual({
      file: "/bin/bash",
      args: ["-c", 'exec 2>&1; exec "$BASH" -c -- "$1" bash', "bash", REQUEST.command],
      env: REQUEST.environment,
      cwd: REQUEST.workspacePath,
    });
  });
});
