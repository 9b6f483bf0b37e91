import { describe, expect, it } from "vitest";
import { planMigrations, type MigrationRecord } from "./plan-migrations.ts";
import type { MigrationFile } from "./read-migrations.ts";

const file = (name: string, checksum = `sum-${name}`): MigrationFile => ({ name, sql: "", checksum });
const record = (name: string, overrides: Partial<MigrationRecord> = {}): MigrationRecord => ({
  migrationName: name,
  checksum: `sum-${name}`,
  startedAt: new Date("2026-12-01T00:00:00Z"),
  finishedAt: new Date("2026-12-01T00:00:01Z"),
  rolledBackAt: null,
  logs: null,
  ...overrides,
});

describe("planMigrations", () => {
  it("returns the migrations without a record as pending, in directory order", () => {
    const plan = planMigrations([file("1_a"), file("2_b"), file("3_c")], [record("1_a")], "/m");
    expect(plan.alreadyApplied).toEqual(["1_a"]);
    expect(plan.pending.map((migration) => migration.name)).toEqual(["2_b", "3_c"]);
  });

  it("refuses an applied migration whose file changed", () => {
    expect(() => planMigrations([file("1_a", "new")], [record("1_a")], "/m")).toThrow(
      expect.objectContaining({ code: "migration_checksum_mismatch", details: expect.objectContaining({ migration: "1_a" }) }),
    );
  });

  it("refuses while a migration is started and unfinished", () => {
    expect(() => planMigrations([file("1_a")], [record("1_a", { finishedAt: null })], "/m")).toThrow(
      expect.objectContaining({ code: "migration_failed_previously" }),
    );
  });

  it("refuses when the database has a migration the directory lacks", () => {
    expect(() => planMigrations([file("1_a")], [record("1_a"), record("2_b")], "/m")).toThrow(
      expect.objectContaining({ code: "migration_missing_from_directory", message: expect.stringContaining("2_b") }),
    );
  });

  it("ignores rows marked rolled back, so a resolved migration is applied again", () => {
    const rolledBack = record("2_b", { finishedAt: null, rolledBackAt: new Date("2026-12-01T00:00:02Z"), checksum: "old" });
    const plan = planMigrations([file("1_a"), file("2_b")], [record("1_a"), rolledBack], "/m");
    expect(plan.pending.map((migration) => migration.name)).toEqual(["2_b"]);
  });
});
