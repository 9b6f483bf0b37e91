// Checks edited tool arguments against the tool's JSON Schema (from GET /api/tools) before they are
// sent, with @cfworker/json-schema: it interprets schemas instead of compiling them with
// `new Function` (as Ajv does), which the console's Content-Security-Policy (`script-src 'self'`,
// no 'unsafe-eval') forbids. The server validates the call again in any case.
import { type OutputUnit, Validator } from "@cfworker/json-schema";

export interface SchemaError {
  /** Where, as a JSON pointer: "" for the whole value, "/content", "/items/0". */
  path: string;
  message: string;
}

/** Errors that only say "something below me failed"; the error below says what. */
const CONTAINER_KEYWORDS = new Set(["properties", "items", "prefixItems", "$ref", "allOf", "$defs", "dependentSchemas", "unevaluatedProperties"]);

function label(path: string): string {
  return path === "" ? "the arguments" : path.slice(1).replaceAll("/", ".");
}

function quotedName(message: string): string | undefined {
  return /"([^"]+)"/.exec(message)?.[1];
}

/** One error of the validator as a person reads it, or undefined for a container's summary. */
function describe(unit: OutputUnit): SchemaError | undefined {
  const path = unit.instanceLocation.replace(/^#/, "");
  switch (unit.keyword) {
    case "required": {
      const name = quotedName(unit.error);
      return name ? { path: `${path}/${name}`, message: `${label(`${path}/${name}`)} is required` } : { path, message: unit.error };
    }
    case "additionalProperties": {
      const name = quotedName(unit.error);
      return name ? { path: `${path}/${name}`, message: `${label(`${path}/${name}`)} is not a known argument` } : { path, message: unit.error };
    }
    // The leaf of an unknown property (reported above through additionalProperties).
    case "false":
      return undefined;
    default:
      return CONTAINER_KEYWORDS.has(unit.keyword) ? undefined : { path, message: `${label(path)}: ${unit.error}` };
  }
}

/** Every way `value` breaks `schema` (empty when it conforms, or when there is no schema to check). */
export function validateJsonSchema(schema: unknown, value: unknown): SchemaError[] {
  if (typeof schema !== "object" || schema === null || Array.isArray(schema)) return [];
  const result = new Validator(schema as Record<string, unknown>, "2020-12", false).validate(value);
  if (result.valid) return [];
  return result.errors.map(describe).filter((error): error is SchemaError => error !== undefined);
}
