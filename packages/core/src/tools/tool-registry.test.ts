import { describe, expect, it } from "vitest";
import { z } from "zod";
import type { ToolDefinition } from "./tool-definition.ts";
import { createToolRegistry, parseToolArguments } from "./tool-registry.ts";

function fakeTool(name: string, parameters: z.ZodType = z.object({ path: z.string() })): ToolDefinition {
  return {
    name,
    family: "test",
    description: `the ${name} tool`,
    parameters,
    effects: ["read"],
    taints: false,
    requiresWorkspace: false,
    execute: async () => ({ ok: true, output: "" }),
  };
}

describe("createToolRegistry", () => {
  it("finds tools by name and lists them in registration order", () => {
    const registry = createToolRegistry([fakeTool("b_tool"), fakeTool("a_tool")]);
    expect(registry.get("a_tool")?.name).toBe("a_tool");
    expect(registry.get("missing")).toBeUndefined();
    expect(registry.list().map((tool) => tool.name)).toEqual(["b_tool", "a_tool"]);
  });

  it("throws on duplicate names, malformed names and non-object parameters", () => {
    expect(() => createToolRegistry([fakeTool("same"), fakeTool("same")])).toThrow(/two tools are named "same"/);
    expect(() => createToolRegistry([fakeTool("has space")])).toThrow(/must match/);
    expect(() => createToolRegistry([fakeTool("scalar", z.string())])).toThrow(/must be a zod object schema/);
  });

  it("derives a closed JSON Schema without $schema, where defaulted fields are optional", () => {
    const tool = fakeTool(
      "shaped",
      z.object({
        path: z.string().describe("where"),
        limit: z.number().int().min(1).default(10),
        options: z.object({ deep: z.boolean() }).optional(),
      }),
    );
    const schema = createToolRegistry([tool]).toModelSchema(tool);
    expect(schema.name).toBe("shaped");
    expect(schema.description).toBe("the shaped tool");
    expect(schema.parameters).not.toHaveProperty("$schema");
    expect(schema.parameters).toMatchObject({
      type: "object",
      additionalProperties: false,
      required: ["path"],
      properties: {
        path: { type: "string", description: "where" },
        limit: { type: "integer", minimum: 1, default: 10 },
        options: { type: "object", additionalProperties: false, required: ["deep"] },
      },
    });
  });
});

describe("parseToolArguments", () => {
  const tool = fakeTool("read_thing", z.object({ path: z.string(), offset: z.number().int().min(1).optional() }));

  it("returns the parsed arguments", () => {
    expect(parseToolArguments(tool, '{"path":"a.txt","offset":3}')).toEqual({ ok: true, args: { path: "a.txt", offset: 3 } });
  });

  it("reads empty text as an empty object", () => {
    expect(parseToolArguments(fakeTool("no_args", z.object({})), "  ")).toEqual({ ok: true, args: {} });
  });

  it("says when the text is not JSON", () => {
    const result = parseToolArguments(tool, '{"path": "a.txt"');
    expect(result.ok).toBe(false);
    expect(!result.ok && result.error).toMatch(/^The arguments of read_thing are not valid JSON \(.+\)\. Send one JSON object/);
  });

  it("says when the JSON is not an object", () => {
    const result = parseToolArguments(tool, '["a.txt"]');
    expect(!result.ok && result.error).toBe("The arguments of read_thing must be a JSON object, not an array.");
  });

  it("names a missing field and what was expected", () => {
    const result = parseToolArguments(tool, "{}");
    expect(!result.ok && result.error).toContain('field "path" is required (expected string)');
  });

  it("names a field of the wrong type and what it received", () => {
    const result = parseToolArguments(tool, '{"path": 7, "offset": 1.5}');
    expect(!result.ok && result.error).toContain('field "path" must be a string, not a number');
    expect(!result.ok && result.error).toContain('field "offset" must be an integer, not the number 1.5');
  });

  it("names a field out of range", () => {
    const result = parseToolArguments(tool, '{"path": "a", "offset": 0}');
    expect(!result.ok && result.error).toMatch(/field "offset": .*>=\s*1/);
  });

  it("names unknown fields for a strict schema", () => {
    const strict = fakeTool("strict_tool", z.strictObject({ path: z.string() }));
    const result = parseToolArguments(strict, '{"path": "a", "pth": "b"}');
    expect(!result.ok && result.error).toContain('has unknown field(s) "pth"');
  });
});
