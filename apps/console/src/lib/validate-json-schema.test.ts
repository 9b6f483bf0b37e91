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
    const errors = validateJsonSchema(writeFile, { content: 3, extra: true });
    expect(errors.map((error) => error.path)).toEqual(["/path", "/content", "/extra"]);
    expect(errors[0]?.message).toBe("path is required");
    expect(errors[1]?.message).toMatch(/^content: .*string/);
    expect(errors[2]?.message).toBe("extra is not a known argument");
  });

  it("checks enums, lengths and ranges, naming each argument", () => {
    const errors = validateJsonSchema(writeFile, { path: "", content: "", mode: "delete", timeout_seconds: 0 });
    expect(errors.map((error) => error.path)).toEqual(["/path", "/mode", "/timeout_seconds"]);
    expect(errors.map((error) => error.message.split(":")[0])).toEqual(["path", "mode", "timeout_seconds"]);
  });

  it("refuses a value that is not an object", () => {
    expect(validateJsonSchema(writeFile, [1])).toEqual([{ path: "", message: expect.stringMatching(/^the arguments: .*object/) }]);
  });

  it("follows local references and anyOf", () => {
    const schema = {
      $defs: { Id: { type: "string" } },
      type: "object",
      properties: { id: { $ref: "#/$defs/Id" }, n: { anyOf: [{ type: "string" }, { type: "null" }] } },
    };
    expect(validateJsonSchema(schema, { id: 1, n: null }).map((error) => error.path)).toEqual(["/id"]);
    expect(validateJsonSchema(schema, { id: "a", n: 2 }).map((error) => error.path)).toContain("/n");
  });

  it("checks nothing without a schema", () => {
    expect(validateJsonSchema(undefined, { anything: 1 })).toEqual([]);
  });
});
