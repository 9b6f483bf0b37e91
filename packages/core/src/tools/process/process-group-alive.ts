import { readdirSync, readFileSync } from "node:fs";

/**
 * Whether process group `pgid` still has a running member. `kill(-pgid, 0)` alone is not enough:
 * where PID 1 does not reap orphans (minimal container inits), killed grandchildren linger as
 * zombies, which still count as group members but hold nothing and run nothing. On Linux the
 * members are checked in /proc and zombies are ignored; elsewhere the kill probe decides.
 */
export function processGroupAlive(pgid: number): boolean {
  try {
    process.kill(-pgid, 0);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === "ESRCH") return false;
    throw error;
  }
  let entries: string[];
  try {
    entries = readdirSync("/proc");
  } catch {
    return true;
  }
  return entries.some((entry) => {
    if (!/^\d+$/.test(entry)) return false;
    const status = processStatus(Number(entry));
    return status !== undefined && status.processGroup === pgid && status.state !== "Z";
  });
}

/** A process's state letter and process group from /proc/<pid>/stat; `undefined` when it is gone. */
export function processStatus(pid: number): { state: string; processGroup: number } | undefined {
  let stat: string;
  try {
    stat = readFileSync(`/proc/${pid}/stat`, "utf8");
  } catch {
    return undefined;
  }
  // "pid (comm) state ppid pgrp ...": comm may contain spaces and parentheses, so split after the last ")".
  const fields = stat.slice(stat.lastIndexOf(")") + 2).split(" ");
  return { state: fields[0] ?? "", processGroup: Number(fields[2]) };
}
