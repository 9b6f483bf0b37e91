import type { SERVER_ENTRIES } from "../../scripts/server-bundle.mjs";
import { SERVICE_NODE_FLAGS } from "../../scripts/service-node-flags.ts";

/**
 * The arguments of `node` that start the API or a worker as `npm run start:api` / `start:worker` and
 * `npm start` do: the service's bundle through scripts/run-server.mjs (built by the tests' global setup).
 * Run from the repository's root.
 */
export function serviceArguments(service: keyof typeof SERVER_ENTRIES, nodeFlags: readonly string[] = []): string[] {
  return [...SERVICE_NODE_FLAGS, ...nodeFlags, "scripts/run-server.mjs", service];
}
