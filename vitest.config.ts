import { defineConfig } from "vitest/config";

export default defineConfig({
  test: {
    pool: "forks",
    // Most test files wait on other processes (workers, servers, sandboxes) more than they compute:
    // three at once on the 2-core machine takes `npm test` from ~5.5 to ~3.8 minutes, all green.
    maxWorkers: 3,
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
