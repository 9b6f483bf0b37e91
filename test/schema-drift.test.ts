// prisma/schema.prisma and prisma/migrations must describe the same database: the Prisma client is
// generated from the first, the database is built from the second, and nothing else checks that
// they agree (`prisma migrate diff` needs an engine binary we cannot download). This test reads the
// schema with Prisma's own parser (getDMMF, WASM) and the migrated template through pg_catalog,
// renders both as the same sorted lines, and compares them.
import { readFile } from "node:fs/promises";
import { fileURLToPath } from "node:url";
import { getDMMF, type GetDMMFError } from "@prisma/get-dmmf";
import pg from "pg";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createTestDatabase, type TestDatabase } from "./support/database.ts";

const SCHEMA_PATH = fileURLToPath(new URL("../prisma/schema.prisma", import.meta.url));
/** Prisma's own bookkeeping table: in the database, never in the schema. */
const MIGRATIONS_TABLE = "_prisma_migrations";
/** Postgres truncates identifiers to 63 bytes; Prisma shortens default constraint names to fit. */
const MAX_IDENTIFIER_LENGTH = 63;

type Dmmf = Exclude<ReturnType<typeof getDMMF>, GetDMMFError>;
type DmmfModel = Dmmf["datamodel"]["models"][number];
type DmmfField = DmmfModel["fields"][number];

// ---------------------------------------------------------------------------------------------
// What the schema says the database should contain.

/** An identifier as Postgres' format_type prints it: quoted unless plain lower case. */
function quoteIdentifier(name: string): string {
  return /^[a-z_][a-z0-9_$]*$/.test(name) ? name : `"${name.replace(/"/g, '""')}"`;
}

/** Prisma's default constraint/index name: `<table>_<columns>_<suffix>`, shortened to fit 63 bytes. */
function defaultConstraintName(table: string, columns: string[], suffix: "pkey" | "key" | "idx" | "fkey"): string {
  const base = suffix === "pkey" ? table : `${table}_${columns.join("_")}`;
  return `${base.slice(0, MAX_IDENTIFIER_LENGTH - suffix.length - 1)}_${suffix}`;
}

function columnType(field: DmmfField, enums: Map<string, string>): string {
  const base = scalarColumnType(field, enums);
  return field.isList ? `${base}[]` : base;
}

function scalarColumnType(field: DmmfField, enums: Map<string, string>): string {
  if (field.kind === "enum") return quoteIdentifier(enums.get(field.type) ?? field.type);
  const [nativeName, nativeArguments = []] = (field.nativeType ?? []) as [string?, string[]?];
  if (nativeName !== undefined) {
    switch (nativeName) {
      case "Timestamptz":
        return `timestamp(${nativeArguments[0] ?? 3}) with time zone`;
      case "Timestamp":
        return `timestamp(${nativeArguments[0] ?? 3}) without time zone`;
      case "Text":
        return "text";
      case "VarChar":
        return nativeArguments[0] === undefined ? "character varying" : `character varying(${nativeArguments[0]})`;
      case "Uuid":
        return "uuid";
      default:
        throw new Error(`schema-drift.test.ts does not know @db.${nativeName} yet (field ${field.name}): add its Postgres type`);
    }
  }
  const scalarTypes: Record<string, string> = {
    String: "text",
    Int: "integer",
    BigInt: "bigint",
    Float: "double precision",
    Decimal: "numeric(65,30)",
    Boolean: "boolean",
    DateTime: "timestamp(3) without time zone",
    Json: "jsonb",
    Bytes: "bytea",
  };
  const type = scalarTypes[field.type];
  if (type === undefined) throw new Error(`schema-drift.test.ts does not know the Prisma type ${field.type} (field ${field.name})`);
  return type;
}

/** The column default as pg_get_expr prints it, or undefined for none (client-side defaults like cuid()). */
function columnDefault(field: DmmfField, type: string): string | undefined {
  const value = field.default as unknown;
  if (value === undefined) return undefined;
  if (typeof value === "object" && value !== null && "name" in value) {
    const call = value as { name: string; args: unknown[] };
    if (call.name === "now") return "CURRENT_TIMESTAMP";
    if (["cuid", "uuid", "nanoid", "ulid"].includes(call.name)) return undefined;
    if (call.name === "dbgenerated" && typeof call.args[0] === "string") return call.args[0];
    throw new Error(`schema-drift.test.ts does not know the default ${call.name}() (field ${field.name})`);
  }
  if (field.isList) {
    // Prisma writes @default([]) as ARRAY[]::<type>[] (what the migration says, as Postgres prints it).
    if (Array.isArray(value) && value.length === 0) return `ARRAY[]::${type.replace(/\[\]$/, "")}[]`;
    throw new Error(`schema-drift.test.ts does not know non-empty list defaults yet (field ${field.name})`);
  }
  if (typeof value === "boolean") return String(value);
  if (typeof value === "number") return value >= 0 ? String(value) : `'${value}'::${type}`;
  if (typeof value === "string") return `'${value.replace(/'/g, "''")}'::${type}`;
  throw new Error(`schema-drift.test.ts cannot render the default of field ${field.name}`);
}

const REFERENTIAL_ACTIONS: Record<string, string> = {
  Cascade: "cascade",
  SetNull: "set null",
  Restrict: "restrict",
  NoAction: "no action",
  SetDefault: "set default",
};

function parseSchema(schemaText: string): Dmmf {
  const result = getDMMF({ datamodel: schemaText });
  // getDMMF returns (does not throw) its errors.
  if ("reason" in result) throw new Error(`prisma/schema.prisma does not parse: ${result.reason}`, { cause: result.error });
  return result;
}

/**
 * The `Unsupported("type")` fields of each model (a tsvector column): getDMMF leaves them out, so they
 * are read from the schema's text. A `dbgenerated("expr")` default is the column's expression (Postgres
 * shows a generated column's expression where it shows defaults).
 */
function unsupportedFields(schemaText: string): Map<string, { name: string; column: string; line: string }[]> {
  const fields = new Map<string, { name: string; column: string; line: string }[]>();
  for (const model of schemaText.matchAll(/^model (\w+) \{\n([\s\S]*?)^\}/gm)) {
    const table = /@@map\("([^"]+)"\)/.exec(model[2]!)?.[1] ?? model[1]!;
    for (const field of model[2]!.matchAll(/^\s+(\w+)\s+Unsupported\("([^"]+)"\)(\?)?([^\n]*)$/gm)) {
      const column = /@map\("([^"]+)"\)/.exec(field[4]!)?.[1] ?? field[1]!;
      const generated = /@default\(dbgenerated\("((?:[^"\\]|\\.)*)"\)\)/.exec(field[4]!)?.[1];
      const line = `column ${table}.${column} ${field[2]}${field[3] ? "" : " not null"}${generated === undefined ? "" : ` default ${generated}`}`;
      fields.set(model[1]!, [...(fields.get(model[1]!) ?? []), { name: field[1]!, column, line }]);
    }
  }
  return fields;
}

async function describeSchema(schemaText: string): Promise<string[]> {
  const { datamodel } = parseSchema(schemaText);
  const unsupported = unsupportedFields(schemaText);
  const lines: string[] = [];
  const enums = new Map(datamodel.enums.map((enumeration) => [enumeration.name, enumeration.dbName ?? enumeration.name]));
  for (const enumeration of datamodel.enums) {
    const values = enumeration.values.map((value) => value.dbName ?? value.name);
    lines.push(`enum ${quoteIdentifier(enumeration.dbName ?? enumeration.name)} (${values.join(", ")})`);
  }

  const models = new Map(datamodel.models.map((model) => [model.name, model]));
  const tableOf = (model: DmmfModel) => model.dbName ?? model.name;
  const columnOf = (model: DmmfModel, fieldName: string) => {
    const field = model.fields.find((candidate) => candidate.name === fieldName);
    const unsupportedField = unsupported.get(model.name)?.find((candidate) => candidate.name === fieldName);
    if (field === undefined && unsupportedField !== undefined) return unsupportedField.column;
    if (field === undefined) throw new Error(`no field ${fieldName} in model ${model.name}`);
    return field.dbName ?? field.name;
  };

  for (const model of datamodel.models) {
    const table = tableOf(model);
    lines.push(`table ${table}`);
    for (const field of unsupported.get(model.name) ?? []) lines.push(field.line);
    for (const field of model.fields) {
      if (field.kind === "object") {
        const fromFields = field.relationFromFields ?? [];
        if (fromFields.length === 0) continue; // the back-relation side holds no column
        const target = models.get(field.type)!;
        const fromColumns = fromFields.map((name) => columnOf(model, name));
        const toColumns = (field.relationToFields ?? []).map((name) => columnOf(target, name));
        const allRequired = fromFields.every((name) => model.fields.find((candidate) => candidate.name === name)?.isRequired);
        // Prisma's defaults: Restrict for a required relation, SetNull for an optional one; onUpdate Cascade.
        const onDelete = field.relationOnDelete ?? (allRequired ? "Restrict" : "SetNull");
        lines.push(
          `foreign key ${defaultConstraintName(table, fromColumns, "fkey")}: ${table} (${fromColumns.join(", ")}) ` +
            `references ${tableOf(target)} (${toColumns.join(", ")}) on delete ${REFERENTIAL_ACTIONS[onDelete]} on update cascade`,
        );
        continue;
      }
      const type = columnType(field, enums);
      // Prisma creates scalar lists without NOT NULL (its migrations write `"effects" TEXT[]`).
      const notNull = field.isRequired && !field.isList ? " not null" : "";
      const defaultValue = columnDefault(field, type);
      lines.push(`column ${table}.${field.dbName ?? field.name} ${type}${notNull}${defaultValue === undefined ? "" : ` default ${defaultValue}`}`);
    }
  }

  for (const index of datamodel.indexes) {
    const model = models.get(index.model)!;
    const table = tableOf(model);
    const columns = index.fields.map((field) => columnOf(model, field.name));
    const explicitName = (index as { dbName?: string | null }).dbName ?? undefined;
    if (index.type === "id") {
      lines.push(`primary key ${explicitName ?? defaultConstraintName(table, columns, "pkey")}: ${table} (${columns.join(", ")})`);
    } else if (index.type === "unique") {
      lines.push(`unique index ${explicitName ?? defaultConstraintName(table, columns, "key")}: ${table} (${columns.join(", ")})`);
    } else if (index.type === "normal") {
      lines.push(`index ${explicitName ?? defaultConstraintName(table, columns, "idx")}: ${table} (${columns.join(", ")})`);
    } else {
      throw new Error(`schema-drift.test.ts does not know ${index.type} indexes yet (model ${index.model})`);
    }
  }
  return lines.sort();
}

// ---------------------------------------------------------------------------------------------
// What the migrated database contains, rendered in the same lines.

const DATABASE_QUERIES = {
  enums: `
    SELECT format_type(t.oid, NULL) AS name, string_agg(e.enumlabel, ', ' ORDER BY e.enumsortorder) AS labels
      FROM pg_type t JOIN pg_enum e ON e.enumtypid = t.oid
     WHERE t.typnamespace = current_schema()::regnamespace
     GROUP BY t.oid`,
  tables: `
    SELECT relname AS name FROM pg_class
     WHERE relnamespace = current_schema()::regnamespace AND relkind IN ('r', 'p', 'v', 'm') AND relname <> $1`,
  columns: `
    SELECT c.relname AS table, a.attname AS column, format_type(a.atttypid, a.atttypmod) AS type,
           a.attnotnull AS not_null, pg_get_expr(d.adbin, d.adrelid) AS default
      FROM pg_attribute a
      JOIN pg_class c ON c.oid = a.attrelid
      LEFT JOIN pg_attrdef d ON d.adrelid = a.attrelid AND d.adnum = a.attnum
     WHERE c.relnamespace = current_schema()::regnamespace AND c.relkind = 'r' AND c.relname <> $1
       AND a.attnum > 0 AND NOT a.attisdropped`,
  indexes: `
    SELECT i.relname AS name, t.relname AS table, x.indisprimary AS primary, x.indisunique AS unique,
           (SELECT string_agg(COALESCE(a.attname, 'expression'), ', ' ORDER BY k.ordinality)
              FROM unnest(x.indkey) WITH ORDINALITY AS k(attnum, ordinality)
              LEFT JOIN pg_attribute a ON a.attrelid = t.oid AND a.attnum = k.attnum) AS columns,
           x.indpred IS NOT NULL AS partial
      FROM pg_index x
      JOIN pg_class i ON i.oid = x.indexrelid
      JOIN pg_class t ON t.oid = x.indrelid
     WHERE t.relnamespace = current_schema()::regnamespace AND t.relname <> $1`,
  foreignKeys: `
    SELECT con.conname AS name, src.relname AS table, dst.relname AS target,
           (SELECT string_agg(a.attname, ', ' ORDER BY k.ordinality) FROM unnest(con.conkey) WITH ORDINALITY AS k(attnum, ordinality)
              JOIN pg_attribute a ON a.attrelid = con.conrelid AND a.attnum = k.attnum) AS columns,
           (SELECT string_agg(a.attname, ', ' ORDER BY k.ordinality) FROM unnest(con.confkey) WITH ORDINALITY AS k(attnum, ordinality)
              JOIN pg_attribute a ON a.attrelid = con.confrelid AND a.attnum = k.attnum) AS target_columns,
           con.confdeltype AS on_delete, con.confupdtype AS on_update
      FROM pg_constraint con
      JOIN pg_class src ON src.oid = con.conrelid
      JOIN pg_class dst ON dst.oid = con.confrelid
     WHERE con.contype = 'f' AND src.relnamespace = current_schema()::regnamespace`,
};

const ACTION_CODES: Record<string, string> = { a: "no action", r: "restrict", c: "cascade", n: "set null", d: "set default" };

async function describeDatabase(databaseUrl: string): Promise<string[]> {
  const client = new pg.Client({ connectionString: databaseUrl });
  await client.connect();
  try {
    const lines: string[] = [];
    for (const row of (await client.query(DATABASE_QUERIES.enums)).rows) lines.push(`enum ${row.name} (${row.labels})`);
    for (const row of (await client.query(DATABASE_QUERIES.tables, [MIGRATIONS_TABLE])).rows) lines.push(`table ${row.name}`);
    for (const row of (await client.query(DATABASE_QUERIES.columns, [MIGRATIONS_TABLE])).rows) {
      const notNull = row.not_null ? " not null" : "";
      lines.push(`column ${row.table}.${row.column} ${row.type}${notNull}${row.default === null ? "" : ` default ${row.default}`}`);
    }
    for (const row of (await client.query(DATABASE_QUERIES.indexes, [MIGRATIONS_TABLE])).rows) {
      const kind = row.primary ? "primary key" : row.unique ? "unique index" : "index";
      lines.push(`${kind} ${row.name}: ${row.table} (${row.columns})${row.partial ? " where ..." : ""}`);
    }
    for (const row of (await client.query(DATABASE_QUERIES.foreignKeys)).rows) {
      lines.push(
        `foreign key ${row.name}: ${row.table} (${row.columns}) references ${row.target} (${row.target_columns}) ` +
          `on delete ${ACTION_CODES[row.on_delete]} on update ${ACTION_CODES[row.on_update]}`,
      );
    }
    return lines.sort();
  } finally {
    await client.end();
  }
}

// ---------------------------------------------------------------------------------------------

let database: TestDatabase;
let schemaText: string;

beforeAll(async () => {
  database = await createTestDatabase();
  schemaText = await readFile(SCHEMA_PATH, "utf8");
});

afterAll(async () => {
  await database?.drop();
});

describe("prisma/schema.prisma and prisma/migrations", () => {
  it("describe the same tables, columns, keys, indexes, foreign keys and enums", async () => {
    // On failure, lines only in "expected" are missing from the migrations; lines only in
    // "received" are in the migrations but not in the schema. Write a new migration to fix either.
    expect(await describeDatabase(database.url)).toEqual(await describeSchema(schemaText));
  });

  it("disagree as soon as the schema gains a field that no migration adds", async () => {
    const withNewField = schemaText.replace(/(model Setting \{\n)/, `$1  driftProbe String @map("drift_probe")\n`);
    expect(withNewField).not.toBe(schemaText);
    const expected = await describeSchema(withNewField);
    expect(expected).toContain("column settings.drift_probe text not null");
    expect(await describeDatabase(database.url)).not.toEqual(expected);
  });

  it("disagree as soon as the database loses an index, a default or an enum value", async () => {
    const damaged = await createTestDatabase();
    try {
      const client = new pg.Client({ connectionString: damaged.url });
      await client.connect();
      try {
        await client.query(`DROP INDEX "runs_chat_id_status_idx"`);
        await client.query(`ALTER TABLE "runs" ALTER COLUMN "allow_web_search" DROP DEFAULT`);
        await client.query(`ALTER TYPE "RunMode" RENAME VALUE 'guide' TO 'guided'`);
      } finally {
        await client.end();
      }
      const actual = await describeDatabase(damaged.url);
      const expected = await describeSchema(schemaText);
      expect(expected.filter((line) => !actual.includes(line))).toEqual([
        "column runs.allow_web_search boolean not null default true",
        'enum "RunMode" (agent, guide)',
        "index runs_chat_id_status_idx: runs (chat_id, status)",
      ]);
    } finally {
      await damaged.drop();
    }
  });
});
