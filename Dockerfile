# agentq image: one image for every process (migrate, api, worker); docker-compose.yml picks the
# command per service. The API and the worker run bundles of their sources (scripts/server-bundle.mjs),
# built below; the migration and the supervisor run their TypeScript through tsx.
# Node 24 (current LTS): the code also runs on Node 20.19+, which is what the development machines have.

# Stage 1: only what `npm ci` reads (package manifests, the lockfile) and what the root postinstall
# runs: the Prisma client's generation (schema, config, generator script) and the console's build
# check (which skips quietly here, the console's sources being absent). The install layer in
# stage 2 is then rebuilt only when these change, not on every source edit. Filtering with `find`
# instead of listing the workspaces keeps this correct when a workspace is added.
FROM node:24-slim AS manifests
WORKDIR /app
COPY . .
RUN find . -type f \
      ! -name package.json ! -name package-lock.json \
      ! -path ./prisma/schema.prisma ! -path ./prisma.config.ts ! -path ./scripts/prisma-generate.mjs \
      ! -path ./scripts/ensure-console-built.mjs \
      -delete \
 && find . -mindepth 1 -type d -empty -delete

# Stage 2: the runtime image.
FROM node:24-slim
# Every command and job runs in a bubblewrap sandbox (README, "Sandbox"); prlimit (util-linux) sets
# its file limits. bash is Essential in Debian, so node:*-slim has it; run_command runs `bash -c`.
# Checked here so a base image change that drops one fails the build instead of every command.
RUN apt-get update \
 && apt-get install -y --no-install-recommends bubblewrap \
 && rm -rf /var/lib/apt/lists/* \
 && bwrap --version > /dev/null && prlimit --version > /dev/null && bash --version > /dev/null
WORKDIR /app
COPY --from=manifests /app ./
# Dev dependencies (typescript, vitest, @types) are only for typechecking and tests; tsx, esbuild and
# prisma are regular dependencies. The root postinstall generates the Prisma client (no engine download).
RUN npm ci --omit=dev && npm cache clean --force
COPY . .
# The web console (apps/console), built to the static files the API serves at /console/. vite is a
# regular dependency of the console's workspace, so the --omit=dev install above has it.
RUN node scripts/ensure-console-built.mjs
# The API's and the worker's bundles (dist/server), built as root like the console: the processes,
# run as `node`, find them current and never write there.
RUN node scripts/server-bundle.mjs
# Workspaces live on a volume every api and worker container mounts at this same path
# (docs/design.md, "Deploying on many hosts"). Created here, owned by the runtime user, so a fresh named volume
# inherits that ownership.
RUN mkdir -p /data/workspaces && chown node:node /data/workspaces
ENV NODE_ENV=production \
    HOST=0.0.0.0 \
    PORT=3000 \
    WORKSPACES_ROOT=/data/workspaces
# Application files stay root-owned and read-only to the process; it writes only to the volume and /tmp.
USER node
EXPOSE 3000
# Default: the all-in-one supervisor (migrate, then api + one worker), like `npm start`; use
# `docker run --init` so the commands run_command starts are reaped (compose sets `init: true`).
# docker-compose.yml runs each process as its own service instead. Processes are started with
# `node` directly rather than through npm or the tsx CLI, so SIGTERM reaches them directly.
CMD ["node", "--import", "tsx", "scripts/start.ts"]
