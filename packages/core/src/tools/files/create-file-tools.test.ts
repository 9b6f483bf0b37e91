import { describe, expect, it } from "vitest";
import { createToolRegistry } from "../tool-registry.ts";
import { createFileTools } from "./create-file-tools.ts";

describe("createFileTools", () => {
  it("gives the five contract tools of the files family, all registrable with the contract's arguments", () => {
    const registry = createToolRegistry(createFileTools());
    const schemas = Object.fromEntries(registry.list().map((tool) => [tool.name, registry.toModelSchema(tool).parameters]));
    expect(Object.keys(schemas)).toEqual(["read_file", "list_files", "search_files", "write_file", "edit_file"]);
    expect(registry.list().every((tool) => tool.family === "files" && tool.requiresWorkspace)).toBe(true);
    expect(schemas.read_file).toMatchObject({ required: ["path"], additionalProperties: false });
    expect(Object.keys((schemas.read_file as { properties: object }).properties)).toEqual(["path", "offset", "limit"]);
    expect(schemas.list_files).not.toHaveProperty("required");
    expect(schemas.search_files).toMatchObject({ required: ["query"] });
    expect(schemas.write_file).toMatchObject({ required: ["path", "content"] });
    expect(schemas.edit_file).toMatchObject({ required: ["path", "old_text", "new_text"] });
  });
});
