import type { ModelToolSchema } from "./model-client.ts";

/**
 * Each tool schema's JSON texts, per schema object and per wire format: the registry hands out the
 * same schema objects every round, so each is serialized once for as long as it lives.
 */
const TOOL_SCHEMA_JSON = new WeakMap<ModelToolSchema, Map<string, string>>();

/**
 * `JSON.stringify(toWire(tool))`, serialized once per schema object and `format` (a name of the wire
 * shape, such as `openai`). `toWire` must depend on the schema only, never on the request.
 */
export function toolSchemaJson(tool: ModelToolSchema, format: string, toWire: (tool: ModelToolSchema) => unknown): string {
  let texts = TOOL_SCHEMA_JSON.get(tool);
  if (texts === undefined) {
    texts = new Map();
    TOOL_SCHEMA_JSON.set(tool, texts);
  }
  let json = texts.get(format);
  if (json === undefined) {
    json = JSON.stringify(toWire(tool));
    texts.set(format, json);
  }
  return json;
}

/** The JSON text of the tool's parameters schema (what the token count measures). */
export function toolParametersJson(tool: ModelToolSchema): string {
  return toolSchemaJson(tool, "parameters", (schema) => schema.parameters);
}
