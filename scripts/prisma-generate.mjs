// Generates the Prisma client (prisma-client generator, no engine binary needed at run time).
// The Prisma CLI insists on locating a schema-engine binary even for `generate`, which does not
// use it; where none was downloaded (offline machines), any existing file satisfies the check.
import { spawnSync } from "node:child_process";
import { existsSync } from "node:fs";
import { fileURLToPath } from "node:url";

const root = fileURLToPath(new URL("..", import.meta.url));
const env = { ...process.env, PRISMA_HIDE_UPDATE_MESSAGE: "1", CHECKPOINT_DISABLE: "1" };
if (!env.PRISMA_SCHEMA_ENGINE_BINARY || !existsSync(env.PRISMA_SCHEMA_ENGINE_BINARY)) {
  env.PRISMA_SCHEMA_ENGINE_BINARY = process.execPath;
}
if (!existsSync(`${root}/prisma/schema.prisma`)) process.exit(0);
const result = spawnSync(process.execPath, [`${root}/node_modules/prisma/build/index.js`, "generate"], {
  cwd: root,
  env,
  stdio: "inherit",
});
process.exit(result.status ?? 1);
