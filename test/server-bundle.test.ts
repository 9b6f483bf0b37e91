// The server's bundle (scripts/server-bundle.mjs), built for a small repository of its own with the
// same layout (apps/api/src/main.ts, apps/worker/src/main.ts) and this repository's node_modules:
// built when missing or stale and not otherwise, each build in a directory of its own, import.meta.url
// and stack traces pointing at the sources, npm packages left to Node.
import { spawnSync } from "node:child_process";
import { existsSync } from "node:fs";
import { mkdir, mkdtemp, readdir, readFile, rm, symlink, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { ensureServerBuilt } from "../scripts/server-bundle.mjs";

const ROOT = fileURLToPath(new URL("..", import.meta.url));

let root: string;
const logs: string[] = [];
const build = () => ensureServerBuilt({ root, log: (message) => logs.push(message) });

/** Runs a built entry with source maps on; its exit code and output. */
function runEntry(directory: string, name: "api" | "worker", environment: Record<string, string> = {}) {
  const result = spawnSync(process.execPath, ["--enable-source-maps", join(directory, `${name}.js`)], {
    cwd: root,
    env: { PATH: process.env.PATH ?? "", ...environment },
    encoding: "utf8",
  });
  return { code: result.status, stdout: result.stdout, stderr: result.stderr };
}

/** greeting.ts, whose greeting is `word`; its line 2 throws when GREET_THROWS is set. */
const greetingSource = (word: string) => `export function greet(name: string): string {
  if (process.env.GREET_THROWS) throw new Error(\`no greeting for \${name}\`);
  return \`${word}, \${name}\`;
}
`;

beforeAll(async () => {
  root = await mkdtemp(join(tmpdir(), "agentq-server-bundle-"));
  await writeFile(join(root, "package.json"), JSON.stringify({ name: "bundle-fixture", private: true, type: "module" }));
  await symlink(join(ROOT, "node_modules"), join(root, "node_modules"));
  await mkdir(join(root, "apps/api/src"), { recursive: true });
  await mkdir(join(root, "apps/worker/src"), { recursive: true });
  await writeFile(join(root, "apps/api/src/greeting.ts"), greetingSource("hello"));
  await writeFile(
    join(root, "apps/api/src/main.ts"),
    [
      'import { fileURLToPath } from "node:url";',
      'import { z } from "zod";',
      'import { greet } from "./greeting.ts";',
      'const name = z.string().parse("api");',
      "console.log(JSON.stringify({ greeting: greet(name), source: fileURLToPath(import.meta.url) }));",
      "",
    ].join("\n"),
  );
  await writeFile(
    join(root, "apps/worker/src/main.ts"),
    ['import { greet } from "../../api/src/greeting.ts";', 'console.log(JSON.stringify({ greeting: greet("worker") }));', ""].join("\n"),
  );
});

afterAll(async () => {
  if (root) await rm(root, { recursive: true, force: true });
});

describe("the server's bundle", () => {
  it("is built when missing, runs its entries with import.meta.url as in the sources, and leaves npm packages to Node", async () => {
    const first = await build();
    expect(first).toMatchObject({ built: true, reason: "missing" });
    expect(logs.at(-1)).toMatch(/^server built: dist\/server\/[0-9a-f]{20}$/);

    const api = runEntry(first.directory, "api");
    expect(api.code).toBe(0);
    expect(JSON.parse(api.stdout)).toEqual({ greeting: "hello, api", source: join(root, "apps/api/src/main.ts") });
    expect(JSON.parse(runEntry(first.directory, "worker").stdout)).toEqual({ greeting: "hello, worker" });
    // zod is imported from node_modules at run time, not copied into the bundle.
    const bundled = await Promise.all(
      (await readdir(first.directory)).filter((file) => file.endsWith(".js")).map((file) => readFile(join(first.directory, file), "utf8")),
    );
    expect(bundled.some((text) => text.includes('from "zod"'))).toBe(true);
    expect(bundled.some((text) => text.includes("ZodString"))).toBe(false);
  });

  it("is built again only when a source it read changed, into a new directory, leaving the earlier build for processes still running from it", async () => {
    const current = await build();
    expect(current).toMatchObject({ built: false, reason: "current" });

    await writeFile(join(root, "apps/api/src/greeting.ts"), greetingSource("good morning"));
    const rebuilt = await build();
    expect(rebuilt).toMatchObject({ built: true, reason: "stale" });
    expect(rebuilt.directory).not.toBe(current.directory);
    expect(existsSync(join(current.directory, "api.js"))).toBe(true);
    expect(JSON.parse(runEntry(rebuilt.directory, "api").stdout).greeting).toBe("good morning, api");
    expect(JSON.parse(runEntry(current.directory, "api").stdout).greeting).toBe("hello, api");

    expect(await build()).toMatchObject({ built: false, reason: "current", directory: rebuilt.directory });
  });

  it("maps a stack trace back to the TypeScript source and line", async () => {
    const { directory } = await build();
    const thrown = runEntry(directory, "api", { GREET_THROWS: "1" });
    expect(thrown.code).toBe(1);
    expect(thrown.stderr).toContain("no greeting for api");
    expect(thrown.stderr).toContain(`${join(root, "apps/api/src/greeting.ts")}:2:`);
  });
});
