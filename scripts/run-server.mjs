// `node [flags] scripts/run-server.mjs api|worker`: runs the API or a worker from its bundle
// (scripts/server-bundle.mjs), built first if missing or stale. The bundle is imported into this
// same process, so signals, node flags and the exit code are the service's own.
import { join } from "node:path";
import { pathToFileURL } from "node:url";
import { ensureServerBuilt, SERVER_ENTRIES } from "./server-bundle.mjs";

const name = process.argv[2];
if (!name || !Object.hasOwn(SERVER_ENTRIES, name)) {
  process.stderr.write(`usage: node scripts/run-server.mjs ${Object.keys(SERVER_ENTRIES).join("|")}\n`);
  process.exit(2);
}
let directory;
try {
  ({ directory } = await ensureServerBuilt());
} catch (error) {
  process.stderr.write(`${error instanceof Error ? error.message : String(error)}\n`);
  process.exit(1);
}
await import(pathToFileURL(join(directory, `${name}.js`)).href);
