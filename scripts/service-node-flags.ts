/**
 * Node flags of the API and worker processes, wherever they are started (npm scripts, `npm start` and
 * so the Dockerfile, docker-compose, the bench). package.json and docker-compose.yml repeat them: keep
 * them in step with this list.
 *
 * - `--max-semi-space-size=8`: a young generation of 8 MB semi-spaces instead of 16. Both processes
 *   make mostly short-lived garbage, and the smaller nursery keeps peak RSS about 30-40 MB lower at 50
 *   runs in flight with no measurable cost in throughput (W1, 800 runs, interleaved, December 2026).
 * - `--heap-growing-percent=50`: after each full collection the old generation may grow to 1.5 times
 *   what survived before the next one, instead of V8's default of up to 4 times on a machine with
 *   memory to spare. The live heap of either process stays near 60 MB, but under steady load V8 let
 *   the old generation fill with dead objects for tens of seconds: in W1 with 6,000 runs at 50 in
 *   flight, peak RSS reached 371-377 MB (API) and 299-315 MB (worker) by default, and 194 / 194 MB
 *   with this flag, with CPU a run unchanged within the noise (a full collection of a 60 MB heap
 *   every few seconds instead of every tens of seconds).
 * - `--enable-source-maps`: the processes run bundles (scripts/server-bundle.mjs); stack traces, in
 *   logs and errors, name the TypeScript files and lines, as they did when tsx ran the sources.
 */
export const SERVICE_NODE_FLAGS: readonly string[] = ["--max-semi-space-size=8", "--heap-growing-percent=50", "--enable-source-maps"];
