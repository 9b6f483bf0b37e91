import { z } from "zod";
import type { ToolDefinition } from "./tool-definition.ts";

/** What a model is given for one tool: the function schema of OpenAI/Anthropic tool calling. */
export interface ModelToolSchema {
  name: string;
  description: string;
  /** JSON Schema of the arguments object (no `$schema` key; objects are closed). */
  parameters: Record<string, unknown>;
}

export interface ToolRegistry {
  /** The tool of that name, or undefined (a model may call a name it invented). */
  get(name: string): ToolDefinition | undefined;
  /** Every tool, in registration order. */
  list(): ToolDefinition[];
  toModelSchema(tool: ToolDefinition): ModelToolSchema;
}

/** Providers accept at most this (OpenAI: `^[a-zA-Z0-9_-]{1,64}$`); checking at startup beats a 400 mid-run. */
export const TOOL_NAME_PATTERN = /^[a-zA-Z0-9_-]{1,64}$/;

/**
 * Holds the tools a process knows. Duplicate or malformed names and non-object argument schemas
 * throw here, at startup, instead of confusing a model later. Model schemas are derived once per
 * tool and cached.
 */
export function createToolRegistry(tools: readonly ToolDefinition[]): ToolRegistry {
  const byName = new Map<string, ToolDefinition>();
  const schemas = new Map<ToolDefinition, ModelToolSchema>();
  for (const tool of tools) {
    if (!TOOL_NAME_PATTERN.test(tool.name)) throw new Error(`tool name "${tool.name}" must match ${TOOL_NAME_PATTERN}`);
    if (byName.has(tool.name)) throw new Error(`two tools are named "${tool.name}"`);
    byName.set(tool.name, tool);
    schemas.set(tool, deriveModelSchema(tool));
  }
  return {
    get: (name) => byName.get(name),
    list: () => [...byName.values()],
    toModelSchema: (tool) => schemas.get(tool) ?? deriveModelSchema(tool),
  };
}

/** The JSON Schema a model sees for a tool: its ready `jsonSchema`, or one derived from its zod schema. */
export function deriveModelSchema(tool: ToolDefinition): ModelToolSchema {
  if (tool.jsonSchema !== undefined) {
    const { $schema: _ignored, ...parameters } = tool.jsonSchema;
    if (parameters.type !== "object") throw new Error(`tool "${tool.name}": its JSON Schema must describe an object`);
    return { name: tool.name, description: tool.description, parameters };
  }
  // "input": the shape the model sends (a field with a default is optional to it).
  const { $schema: _ignored, ...parameters } = z.toJSONSchema(tool.parameters, { io: "input", unrepresentable: "any" }) as Record<string, unknown>;
  if (parameters.type !== "object") throw new Error(`tool "${tool.name}": parameters must be a zod object schema`);
  closeObjects(parameters);
  return { name: tool.name, description: tool.description, parameters };
}

/**
 * Marks every object schema `additionalProperties: false` unless it says otherwise: the "input"
 * view leaves it open, and strict function calling (OpenAI) needs closed objects.
 */
function closeObjects(schema: unknown): void {
  if (Array.isArray(schema)) {
    for (const item of schema) closeObjects(item);
    return;
  }
  if (typeof schema !== "object" || schema === null) return;
  const record = schema as Record<string, unknown>;
  if (record.type === "object" && record.additionalProperties === undefined) record.additionalProperties = false;
  for (const value of Object.values(record)) closeObjects(value);
}

export { parseToolArguments, validateToolArguments } from "./parse-tool-arguments.ts";
export type { ParsedToolArguments } from "./parse-tool-arguments.ts";
