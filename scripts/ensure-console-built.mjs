// Builds the web console (apps/console -> apps/console/dist, which the API serves at /console/)
// when the build is missing or stale, so that `npm ci && npm start` and the Docker image never serve
// a blank page. Stale = the hash of the console's sources (src/**, public/**, index.html,
// vite.config.ts, package.json) differs from the one stamped in dist/.build-hash by the last build.
//
// Plain Node (no tsx): it runs from the root postinstall, from scripts/start.ts and from the
// Dockerfile. `node scripts/ensure-console-built.mjs [--force]`, or import { ensureConsoleBuilt }.
import { spawnSync } from "node:child_process";
import { createHash } from "node:crypto";
import { existsSync, readdirSync, readFileSync, statSync, writeFileSync } from "node:fs";
import { createRequire } from "node:module";
import { join, relative, sep } from "node:path";
import { fileURLToPath } from "node:url";

const repositoryRoot = fileURLToPath(new URL("..", import.meta.url));
const consoleRoot = join(repositoryRoot, "apps", "console");
const distDirectory = join(consoleRoot, "dist");
const stampFile = join(distDirectory, ".build-hash");
/** What the build reads; a change to any of them makes dist stale. */
const INPUTS = ["src", "public", "index.html", "vite.config.ts", "package.json"];

function listFiles(path) {
  if (!existsSync(path)) return [];
  if (!statSync(path).isDirectory()) return [path];
  return readdirSync(path, { withFileTypes: true }).flatMap((entry) => listFiles(join(path, entry.name)));
}

/** The sources' hash: every input file's path and bytes, in a stable order. */
export function consoleSourceHash() {
  const hash = createHash("sha256");
  const files = INPUTS.flatMap((input) => listFiles(join(consoleRoot, input)))
    .map((file) => ({ file, name: relative(consoleRoot, file).split(sep).join("/") }))
    .sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
  for (const { file, name } of files) {
    hash.update(`${name}\0`);
    hash.update(readFileSync(file));
    hash.update("\0");
  }
  return hash.digest("hex");
}

function stampedHash() {
  try {
    return readFileSync(stampFile, "utf8").trim();
  } catch {
    return undefined;
  }
}

/**
 * Builds the console if apps/console/dist is missing or older than its sources (or always, with
 * `force`). Returns what it did; throws when the build fails. Quietly does nothing where the
 * console's sources are absent (the Dockerfile's manifests stage installs without them).
 *
 * @param {{ force?: boolean, log?: (message: string) => void }} [options]
 * @returns {{ built: boolean, reason: "absent" | "current" | "missing" | "stale" | "forced" }}
 */
export function ensureConsoleBuilt(options = {}) {
  const log = options.log ?? ((message) => process.stderr.write(`${message}\n`));
  if (!existsSync(join(consoleRoot, "src"))) return { built: false, reason: "absent" };
  const sourceHash = consoleSourceHash();
  const stamped = stampedHash();
  const reason = options.force
    ? "forced"
    : !existsSync(join(distDirectory, "index.html")) || stamped === undefined
      ? "missing"
      : stamped !== sourceHash
        ? "stale"
        : "current";
  if (reason === "current") return { built: false, reason };

  // vite is a regular dependency of the console workspace, so `npm ci --omit=dev` installs it too.
  const viteBin = join(createRequire(join(consoleRoot, "package.json")).resolve("vite/package.json"), "..", "bin", "vite.js");
  log(`building the web console (${reason === "forced" ? "requested" : reason === "missing" ? "no build yet" : "its sources changed"})…`);
  // NODE_ENV decides React's build: a caller's `test` (vitest) or `development` would ship React's
  // development build, with its warnings, to every browser.
  const result = spawnSync(process.execPath, [viteBin, "build", "--logLevel", "warn"], {
    cwd: consoleRoot,
    env: { ...process.env, NODE_ENV: "production" },
    stdio: ["ignore", "inherit", "inherit"],
  });
  if (result.status !== 0) {
    throw new Error(
      `the web console's build failed (${result.error?.message ?? `vite exited with ${result.status ?? result.signal}`}); run \`npm run build:console\` to see why`,
    );
  }
  writeFileSync(stampFile, `${sourceHash}\n`);
  log("web console built: apps/console/dist");
  return { built: true, reason };
}

if (process.argv[1] && fileURLToPath(import.meta.url) === process.argv[1]) {
  try {
    ensureConsoleBuilt({ force: process.argv.includes("--force") });
  } catch (error) {
    process.stderr.write(`${error instanceof Error ? error.message : String(error)}\n`);
    process.exit(1);
  }
}
