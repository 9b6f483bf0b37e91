// The API's and the worker's code as the processes run it: apps/*/src and the workspace packages
// bundled by esbuild into dist/server/<hash>/ (api.js, worker.js and their chunks, with source
// maps), npm packages left to Node. A process that loaded its 340 TypeScript files through tsx's loader
// hooks spent twice the CPU starting, and ran with about 40 MB more RSS and a few per cent more CPU
// a run (issue 11; README, "Benchmark").
//
// Built when missing or stale, like the console (ensure-console-built.mjs): stale = the files the
// last build read (its `inputs`, recorded in dist/server/current.json) or esbuild's version differ
// from what they were. Each build goes to a directory named by that hash, made whole before
// current.json points to it, so that processes started from an earlier build keep their chunks,
// and concurrent builders (the API and the worker started together) cannot mix their files.
//
// Plain Node (no tsx): scripts/run-server.mjs, scripts/start.ts, the tests' setup and the Dockerfile
// use it. `node scripts/server-bundle.mjs [--force]`, or import { ensureServerBuilt }.
import { createHash, randomBytes } from "node:crypto";
import { existsSync, mkdirSync, readdirSync, readFileSync, renameSync, rmSync, statSync, writeFileSync } from "node:fs";
import { createRequire } from "node:module";
import { join, relative, sep } from "node:path";
import { fileURLToPath, pathToFileURL } from "node:url";

const repositoryRoot = fileURLToPath(new URL("..", import.meta.url));
const thisScript = fileURLToPath(import.meta.url);

/** The processes' entry points: what `scripts/run-server.mjs <name>` starts. */
export const SERVER_ENTRIES = { api: "apps/api/src/main.ts", worker: "apps/worker/src/main.ts" };

/** Builds kept besides the current one, for processes still running from them. */
const EARLIER_BUILDS_KEPT = 2;

/** Where a repository's builds go: dist/server. */
function serverDirectoryOf(root) {
  return join(root, "dist", "server");
}

/** The hash of a build's inputs (paths relative to `root`, read now), this script and esbuild's version; null if one is gone. */
function inputsHash(root, inputs) {
  const hash = createHash("sha256");
  hash.update(`esbuild ${createRequire(join(root, "package.json"))("esbuild/package.json").version}\0`);
  hash.update(readFileSync(thisScript));
  for (const name of [...inputs].sort()) {
    const file = join(root, name);
    if (!existsSync(file)) return null;
    hash.update(`\0${name.split(sep).join("/")}\0`);
    hash.update(readFileSync(file));
  }
  return hash.digest("hex").slice(0, 20);
}

function readCurrent(root) {
  const serverDirectory = serverDirectoryOf(root);
  try {
    const current = JSON.parse(readFileSync(join(serverDirectory, "current.json"), "utf8"));
    if (typeof current.build === "string" && Array.isArray(current.inputs) && existsSync(join(serverDirectory, current.build, "api.js"))) return current;
  } catch {
    // none yet, or unreadable: built again
  }
  return undefined;
}

/**
 * Rewrites `import.meta.url` in our sources to the URL the file had before bundling, relative to the
 * bundle's own (a chunk sits in dist/server/<hash>/, the source elsewhere), so that paths computed from
 * it (the console's files, createRequire, the tracing hook's registration) stay what they were.
 */
function sourceLocationPlugin(outputDepthFile) {
  return {
    name: "source-import-meta-url",
    setup(build) {
      build.onLoad({ filter: /\.ts$/ }, (args) => {
        if (args.path.includes(`${sep}node_modules${sep}`)) return undefined;
        const contents = readFileSync(args.path, "utf8");
        if (!contents.includes("import.meta.url")) return undefined;
        const fromOutput = relative(join(outputDepthFile, ".."), args.path).split(sep).join("/");
        return { contents: contents.replaceAll("import.meta.url", `new URL(${JSON.stringify(fromOutput)}, import.meta.url).href`), loader: "ts" };
      });
    },
  };
}

/** npm packages stay imports resolved by Node (so tracing's loader hook still sees express, pg, ioredis load); the workspace's own are bundled. */
const externalPackagesPlugin = {
  name: "external-packages",
  setup(build) {
    build.onResolve({ filter: /^[^./]/ }, (args) => (args.path.startsWith("@agentq/") ? undefined : { path: args.path, external: true }));
  },
};

async function build(root) {
  const { build: esbuild } = await import(pathToFileURL(createRequire(join(root, "package.json")).resolve("esbuild")).href);
  const serverDirectory = serverDirectoryOf(root);
  const temporary = join(serverDirectory, `.building-${process.pid}-${randomBytes(4).toString("hex")}`);
  mkdirSync(temporary, { recursive: true });
  try {
    const result = await esbuild({
      absWorkingDir: root,
      entryPoints: SERVER_ENTRIES,
      outdir: temporary,
      bundle: true,
      splitting: true,
      format: "esm",
      platform: "node",
      target: "node20",
      // Stack traces point into the sources (the processes run with --enable-source-maps); the sources are in the repository.
      sourcemap: "linked",
      sourcesContent: false,
      metafile: true,
      logLevel: "warning",
      plugins: [externalPackagesPlugin, sourceLocationPlugin(join(temporary, "api.js"))],
    });
    const inputs = Object.keys(result.metafile.inputs).filter((name) => !name.includes("node_modules/"));
    const hash = inputsHash(root, inputs);
    if (hash === null) throw new Error("a source file vanished while the server was being built; build it again");
    const directory = join(serverDirectory, hash);
    // Another builder finished the same sources first: its build is as good as this one.
    if (existsSync(directory)) rmSync(temporary, { recursive: true, force: true });
    else renameSync(temporary, directory);
    const pointer = join(serverDirectory, `.current-${process.pid}-${randomBytes(4).toString("hex")}.json`);
    writeFileSync(pointer, `${JSON.stringify({ build: hash, inputs })}\n`);
    renameSync(pointer, join(serverDirectory, "current.json"));
    removeEarlierBuilds(serverDirectory, hash);
    return directory;
  } catch (error) {
    rmSync(temporary, { recursive: true, force: true });
    throw error;
  }
}

/** Leftovers of a builder that died (its `.building-*` directory) are this old at least. */
const ABANDONED_AFTER_MS = 10 * 60 * 1000;

function removeEarlierBuilds(serverDirectory, current) {
  const entries = readdirSync(serverDirectory, { withFileTypes: true }).map((entry) => {
    const path = join(serverDirectory, entry.name);
    return { name: entry.name, path, directory: entry.isDirectory(), at: statSync(path).mtimeMs };
  });
  const builds = entries.filter((entry) => entry.directory && !entry.name.startsWith(".") && entry.name !== current).sort((a, b) => b.at - a.at);
  const abandoned = entries.filter((entry) => entry.name.startsWith(".") && Date.now() - entry.at > ABANDONED_AFTER_MS);
  for (const old of [...builds.slice(EARLIER_BUILDS_KEPT), ...abandoned]) rmSync(old.path, { recursive: true, force: true });
}

/**
 * The directory of an up-to-date build of the server, built first if it is missing or stale (or
 * always, with `force`). Rejects when the build fails.
 *
 * `root`: the repository (default this one; tests build a small one of their own).
 *
 * @param {{ force?: boolean, log?: (message: string) => void, root?: string }} [options]
 * @returns {Promise<{ directory: string, built: boolean, reason: "current" | "missing" | "stale" | "forced" }>}
 */
export async function ensureServerBuilt(options = {}) {
  const log = options.log ?? ((message) => process.stderr.write(`${message}\n`));
  const root = options.root ?? repositoryRoot;
  const current = readCurrent(root);
  const reason = options.force ? "forced" : current === undefined ? "missing" : inputsHash(root, current.inputs) !== current.build ? "stale" : "current";
  if (reason === "current") return { directory: join(serverDirectoryOf(root), current.build), built: false, reason };
  log(`building the server (${reason === "forced" ? "requested" : reason === "missing" ? "no build yet" : "its sources changed"})…`);
  try {
    const directory = await build(root);
    log(`server built: ${relative(root, directory)}`);
    return { directory, built: true, reason };
  } catch (error) {
    throw new Error(`the server's build failed: ${error instanceof Error ? error.message : String(error)}`, { cause: error });
  }
}

if (process.argv[1] && fileURLToPath(import.meta.url) === process.argv[1]) {
  try {
    await ensureServerBuilt({ force: process.argv.includes("--force") });
  } catch (error) {
    process.stderr.write(`${error instanceof Error ? error.message : String(error)}\n`);
    process.exit(1);
  }
}
