import { describe, expect, it } from "vitest";
import { validateJsonSchema } from "./validate-json-schema.ts";

// The shape zod's toJSONSchema gives write_file's parameters.
const writeFile = {
  type: "object",
  properties: {
    path: { type: "string", minLength: 1, description: "path in the workspace" },
    content: { type: "string" },
    mode: { type: "string", enum: ["overwrite", "append"] },
    timeout_seconds: { type: "integer", minimum: 1, maximum: 600 },
  },
  required: ["path", "content"],
  additionalProperties: false,
};

describe("validateJsonSchema", () => {
  it("accepts conforming arguments", () => {
    expect(validateJsonSchema(writeFile, { path: "notes.txt", content: "hello" })).toEqual([]);
  });

  it("names a missing required argument, a wrong type and an unknown argument", () => {
    expect(validateJsonSchema(writeFile, { content: 3, extra: true })).toEqual([
      { path: "/path", message: "path is required" },
      { path: "/content", message: "content must be string, not integer" },
      { path: "/extra", message: "extra is not a known argument" },
    ]);
  });

  it("checks enums, lengths and ranges", () => {
    const errors = validateJsonSchema(writeFile, { path: "", content: "", mode: "delete", timeout_seconds: 0 });
    expect(errors.map((error) => error.message)).toEqual([
      "path must not be empty",
      'mode must be one of "overwrite", "append"',
      "timeout_seconds must be at least 1",
    ]);
  });

  it("refuses a value that is not an object", () => {
    expect(validateJsonSchema(writeFile, [1])).toEqual([{ path: "", message: "the arguments must be object, not array" }]);
  });

  it("follows local references and anyOf", () => {
    const schema = {
      $defs: { Id: { type: "string" } },
      type: "object",
      properties: { id: { $ref: "#/$defs/Id" }, n: { anyOf: [{ type: "string" }, { type: "null" }] } },
    };
    expect(validateJsonSchema(schema, { id: 1, n: null })).toEqual([{ path: "/id", message: "id must be string, not integer" }]);
    expect(validateJsonSchema(schema, { id: "a", n: 2 })).toEqual([{ path: "/n", message: "n does not match any allowed form" }]);
  });
});
