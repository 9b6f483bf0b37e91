// `npm run check`: the static checks `npm test` runs before the suite, the npm scripts below, at the same
// time (the two typechecks and Biome are each about one core's work: 35 s one after another on the 2-core
// machine, 28 s at once).
// Each check's output is printed whole when it ends, so their lines do not interleave; the exit code is
// 1 when any failed, and the last line names the ones that did.
import { spawn } from "node:child_process";

const CHECKS = ["typecheck:server", "typecheck:console", "lint"];

function run(name) {
  return new Promise((resolve) => {
    const started = performance.now();
    const child = spawn("npm", ["run", "--silent", name], { stdio: ["ignore", "pipe", "pipe"] });
    const output = [];
    child.stdout.on("data", (chunk) => output.push(chunk));
    child.stderr.on("data", (chunk) => output.push(chunk));
    const finish = (passed, extra = "") => {
      const seconds = ((performance.now() - started) / 1000).toFixed(1);
      process.stdout.write(`\n==> npm run ${name}: ${passed ? "passed" : "FAILED"} (${seconds} s)\n${Buffer.concat(output).toString()}${extra}`);
      resolve({ name, passed });
    };
    child.once("error", (error) => finish(false, `could not start: ${error.message}\n`));
    child.once("close", (code) => finish(code === 0));
  });
}

const results = await Promise.all(CHECKS.map(run));
const failed = results.filter((result) => !result.passed).map((result) => result.name);
if (failed.length > 0) {
  console.error(`\nfailed: ${failed.map((name) => `npm run ${name}`).join(", ")}`);
  process.exit(1);
}
