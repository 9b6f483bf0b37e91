// The API and worker processes get the same node flags wherever they are started: scripts/start.ts and
// the bench take them from SERVICE_NODE_FLAGS, while package.json's start scripts and docker-compose.yml
// repeat them as text. A flag added to one place only would make deployments differ from what was measured.
import { readFile } from "node:fs/promises";
import { fileURLToPath } from "node:url";
import { describe, expect, it } from "vitest";
import { SERVICE_NODE_FLAGS } from "../scripts/service-node-flags.ts";

const ROOT = fileURLToPath(new URL("..", import.meta.url));
const read = (path: string) => readFile(`${ROOT}${path}`, "utf8");

describe("the services' node flags", () => {
  it("package.json's start scripts pass exactly SERVICE_NODE_FLAGS", async () => {
    const scripts = JSON.parse(await read("package.json")).scripts as Record<string, string>;
    for (const service of ["api", "worker"]) {
      expect(scripts[`start:${service}`]).toBe(`exec node ${SERVICE_NODE_FLAGS.join(" ")} scripts/run-server.mjs ${service}`);
    }
  });

  it("docker-compose.yml's api and worker commands pass exactly SERVICE_NODE_FLAGS", async () => {
    const commands = (await read("docker-compose.yml"))
      .split("\n")
      .filter((line) => line.includes('"scripts/run-server.mjs"'))
      .map((line) => JSON.parse(line.slice(line.indexOf("["))) as string[]);
    expect(commands).toEqual([
      ["node", ...SERVICE_NODE_FLAGS, "scripts/run-server.mjs", "api"],
      ["node", ...SERVICE_NODE_FLAGS, "scripts/run-server.mjs", "worker"],
    ]);
  });
});
