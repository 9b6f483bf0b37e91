// A Postgres server of the test's own (initdb in a temporary directory, a free port), for tests that
// stop and start it: the shared server on 5432 is never stopped. Runs as the `postgres` OS user when
// the tests run as root (initdb and postgres refuse root).
import { execFile } from "node:child_process";
import { chmod, chown, mkdtemp, readdir, rm } from "node:fs/promises";
import { tmpdir, userInfo } from "node:os";
import { join } from "node:path";
import { promisify } from "node:util";
import { freePort } from "./free-port.ts";

const run = promisify(execFile);

export interface PrivatePostgres {
  /** postgresql://postgres@127.0.0.1:<port>/<database> */
  url(database: string): string;
  port: number;
  /** A crash: `pg_ctl stop -m immediate` (no shutdown checkpoint, connections cut). */
  crash(): Promise<void>;
  start(): Promise<void>;
  /** Stops the server and removes its directory. */
  destroy(): Promise<void>;
}

async function binDirectory(): Promise<string> {
  const versions = (await readdir("/usr/lib/postgresql")).sort((a, b) => Number(b) - Number(a));
  if (versions.length === 0) throw new Error("no Postgres server binaries under /usr/lib/postgresql");
  return `/usr/lib/postgresql/${versions[0]}/bin`;
}

export async function startPrivatePostgres(): Promise<PrivatePostgres> {
  const bin = await binDirectory();
  const directory = await mkdtemp(join(tmpdir(), "agentq-pg-"));
  const dataDirectory = join(directory, "data");
  const asRoot = userInfo().uid === 0;
  // The server's own user runs every command; the directory must be theirs.
  const command = async (file: string, args: string[]) => {
    if (!asRoot) return run(join(bin, file), args);
    return run("runuser", ["-u", "postgres", "--", join(bin, file), ...args]);
  };
  if (asRoot) {
    const { stdout } = await run("id", ["-u", "postgres"]);
    const { stdout: group } = await run("id", ["-g", "postgres"]);
    await chown(directory, Number(stdout.trim()), Number(group.trim()));
  }
  await chmod(directory, 0o700);
  await command("initdb", ["-D", dataDirectory, "-U", "postgres", "--auth=trust", "--no-sync", "-E", "UTF8", "--locale=C"]);
  const port = await freePort();
  const options = `-p ${port} -k ${directory} -c listen_addresses=127.0.0.1 -c fsync=off`;
  const start = async () => {
    await command("pg_ctl", ["-D", dataDirectory, "-o", options, "-l", join(directory, "server.log"), "-w", "-t", "60", "start"]);
  };
  await start();
  return {
    port,
    url: (database) => `postgresql://postgres@127.0.0.1:${port}/${database}`,
    crash: async () => {
      await command("pg_ctl", ["-D", dataDirectory, "-m", "immediate", "-w", "stop"]);
    },
    start,
    destroy: async () => {
      await command("pg_ctl", ["-D", dataDirectory, "-m", "immediate", "-w", "stop"]).catch(() => undefined);
      await rm(directory, { recursive: true, force: true });
    },
  };
}
