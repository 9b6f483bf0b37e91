import { describe, expect, it } from "vitest";
import { z } from "zod";
import { composeToolCatalog } from "./compose-tool-catalog.ts";
import type { ToolDefinition } from "./tool-definition.ts";
import { createToolRegistry } from "./tool-registry.ts";

const tool = (name: string, family = "files"): ToolDefinition => ({
  name,
  family,
  description: name,
  parameters: z.object({}),
  effects: ["read"],
  taints: false,
  requiresWorkspace: false,
  execute: async () => ({ ok: true, output: name }),
});

describe("composeToolCatalog", () => {
  it("reads the dynamic tools at every call: a tool gone since is not found", () => {
    let dynamic = [tool("mcp__a__x", "mcp")];
    const catalog = composeToolCatalog(createToolRegistry([tool("read_file")]), () => dynamic);
    expect(catalog.list().map((candidate) => candidate.name)).toEqual(["read_file", "mcp__a__x"]);
    expect(catalog.get("mcp__a__x")?.family).toBe("mcp");
    dynamic = [];
    expect(catalog.get("mcp__a__x")).toBeUndefined();
    expect(catalog.list().map((candidate) => candidate.name)).toEqual(["read_file"]);
  });

  it("never lets a dynamic tool shadow a fixed one", () => {
    const catalog = composeToolCatalog(createToolRegistry([tool("read_file")]), () => [tool("read_file", "mcp")]);
    expect(catalog.get("read_file")?.family).toBe("files");
    expect(catalog.list()).toHaveLength(1);
  });
});
