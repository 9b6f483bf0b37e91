import { chmod, mkdir, mkdtemp, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { probeProcessSandbox } from "./probe-process-sandbox.ts";

let directory: string;

beforeAll(async () => {
  directory = await mkdtemp(path.join(tmpdir(), "agentq-probe-test-"));
});

afterAll(async () => {
  await rm(directory, { recursive: true, force: true });
});

describe("probeProcessSandbox", () => {
  it("reports unavailable, naming bwrap, when bwrap is not on the search path", async () => {
    const availability = await probeProcessSandbox({ mode: "bwrap", searchPath: `${path.join(directory, "missing")}:${directory}` });
    expect(availability.available).toBe(false);
    if (availability.available) return;
    expect(availability.reason).toMatch(/bwrap \(bubblewrap\) was not found on PATH/);
  });

  it("reports unavailable with bwrap's own message when bwrap cannot make a sandbox", async () => {
    // What a host that refuses user namespaces looks like: bwrap is there and fails at once.
    const fakeBin = path.join(directory, "fake-bin");
    await mkdir(fakeBin);
    const fakeBwrap = path.join(fakeBin, "bwrap");
    await writeFile(fakeBwrap, "#!/bin/sh\necho 'bwrap: No permissions to creating new namespace' >&2\nexit 1\n");
    await chmod(fakeBwrap, 0o755);
    const availability = await probeProcessSandbox({ mode: "bwrap", searchPath: fakeBin });
    expect(availability.available).toBe(false);
    if (availability.available) return;
    expect(availability.reason).toContain("No permissions to creating new namespace");
    expect(availability.reason).toContain("bwrap exited (1) before the command started");
  });

  it("finds the real bwrap on PATH and proves it by running a command", async () => {
    const availability = await probeProcessSandbox({ mode: "bwrap", searchPath: process.env.PATH ?? "/usr/bin:/bin" });
    if (!availability.available) throw new Error(availability.reason);
    expect(availability.sandbox.mode).toBe("bwrap");
  });

  it("PROCESS_SANDBOX=off is available without bwrap, unconfined", async () => {
    const availability = await probeProcessSandbox({ mode: "off", searchPath: path.join(directory, "empty") });
    expect(availability.available).toBe(true);
    if (!availability.available) return;
    expect(availability.sandbox.mode).toBe("off");
  });
});
