import { spawnSync } from "node:child_process";
import { mkdir, readdir, readlink, rmdir } from "node:fs/promises";
import path from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { openPidsCgroupRoot } from "./pids-cgroup.ts";

// A hierarchy of this test's own, so that no worker's cgroups are touched.
const NAME = `agentq-sandbox-test-${process.pid}`;
let directory: string | undefined;

afterAll(async () => {
  if (directory === undefined) return;
  for (const entry of await readdir(directory, { withFileTypes: true })) if (entry.isDirectory()) await rmdir(path.join(directory, entry.name));
  await rmdir(directory);
});

/** The pid of a process that has exited (pids are not reused this soon). */
function deadPid(): number {
  const child = spawnSync("/bin/sh", ["-c", "echo $$"], { encoding: "utf8" });
  return Number(child.stdout.trim());
}

describe("openPidsCgroupRoot", () => {
  it("removes the cgroups a dead process of this pid namespace left, and no other", async () => {
    const first = await openPidsCgroupRoot(NAME);
    // The project's machines and CI have one (docs/design.md: cgroups v1); a host without it fails here, saying why.
    if (first.root === undefined) throw new Error(`this test needs a writable pids cgroup: ${first.reason}`);
    directory = first.root.directory;
    const namespace = /\[(\d+)\]/.exec(await readlink("/proc/self/ns/pid"))?.[1];
    const dead = deadPid();
    const orphan = `cmd-${namespace}-${dead}-0123456789ab`;
    const foreign = `cmd-1-${dead}-0123456789ab`;
    const live = await first.root.create(8);
    for (const name of [orphan, foreign]) await mkdir(path.join(directory, name));

    const second = await openPidsCgroupRoot(NAME);
    expect(second.root?.directory).toBe(directory);
    const left = await readdir(directory, { withFileTypes: true });
    const names = left.filter((entry) => entry.isDirectory()).map((entry) => entry.name);
    expect(names).not.toContain(orphan);
    expect(names).toContain(foreign);
    // This process is alive: its own command's cgroup stays until it releases it.
    expect(names.filter((name) => name.startsWith(`cmd-${namespace}-${process.pid}-`))).toHaveLength(1);
    await live.remove();
    expect((await readdir(directory)).filter((name) => name.startsWith(`cmd-${namespace}-${process.pid}-`))).toHaveLength(0);
  });
});
