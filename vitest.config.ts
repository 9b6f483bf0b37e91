import { defineConfig } from "vitest/config";

export default defineConfig({
  test: {
    pool: "forks",
    // Most test files wait on other processes (workers, servers, sandboxes) more than they compute:
    // three at once on the 2-core machine takes `npm test` from ~5.5 to ~3.8 minutes, all green.
    maxWorkers: 3,
    // Test files share their worker's module cache instead of importing the whole app again each
    // (about 1.7 s of imports a file): `npm test`'s vitest part went from ~350 to ~250 s. Every file
    // makes its own stack, database and key prefix, and restores any environment variable it changes.
    isolate: false,
    testTimeout: 30_000,
    hookTimeout: 60_000,
    // Two layers (STYLE.md, "Tests"): `unit` is the modules next to their sources (no database or
    // Redis needed: `npx vitest run --project unit`); `integration` is test/, against real Postgres, Redis,
    // bubblewrap and processes, with the migrated template database its global setup prepares.
    projects: [
      { extends: true, test: { name: "unit", include: ["packages/*/src/**/*.test.ts", "apps/*/src/**/*.test.ts"] } },
      { extends: true, test: { name: "integration", include: ["test/**/*.test.ts"], globalSetup: ["test/support/global-setup.ts"] } },
    ],
  },
});
