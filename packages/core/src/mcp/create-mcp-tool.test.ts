import { describe, expect, it } from "vitest";
import { validateToolArguments } from "../tools/parse-tool-arguments.ts";
import { deriveModelSchema } from "../tools/tool-registry.ts";
import { createListedMcpTools, createMcpTool, isOfferableMcpTool } from "./create-mcp-tool.ts";
import { mcpServerNameSchema } from "./mcp-server-registration.ts";

const listed = {
  name: "search",
  description: "Searches issues",
  input_schema: { type: "object", properties: { query: { type: "string" }, limit: { type: "integer", minimum: 1 } }, required: ["query"] },
};
const never = async () => ({ ok: false as const, error: "not called" });

describe("MCP tools", () => {
  it("are named mcp__<server>__<tool>, family and effect mcp, tainting, with the server's JSON Schema sent as it is", () => {
    const tool = createMcpTool("tracker", listed, never);
    expect(tool).toMatchObject({ name: "mcp__tracker__search", family: "mcp", effects: ["mcp"], taints: true, requiresWorkspace: false });
    expect(deriveModelSchema(tool)).toEqual({ name: "mcp__tracker__search", description: "Searches issues", parameters: listed.input_schema });
  });

  it("validate arguments against that schema before the server is called", () => {
    const tool = createMcpTool("tracker", listed, never);
    expect(validateToolArguments(tool, { query: "bug", limit: 3 })).toMatchObject({ ok: true });
    const missing = validateToolArguments(tool, { limit: 3 });
    expect(missing.ok).toBe(false);
    expect(!missing.ok && missing.error).toContain('"query"');
    expect(validateToolArguments(tool, { query: "bug", limit: 0 }).ok).toBe(false);
  });

  it("are not offered when the full name would not fit providers' 64 characters", () => {
    expect(isOfferableMcpTool("tracker", "search")).toBe(true);
    expect(isOfferableMcpTool("tracker", "x".repeat(60))).toBe(false);
    expect(isOfferableMcpTool("tracker", "has space")).toBe(false);
  });

  it("are listed for the API from connected, enabled servers only", () => {
    const servers = [
      { name: "a", enabled: true, status: "connected", tools: [listed] },
      { name: "b", enabled: true, status: "failed", tools: [listed] },
      { name: "c", enabled: false, status: "connected", tools: [listed] },
    ];
    expect(createListedMcpTools(servers).map((tool) => tool.name)).toEqual(["mcp__a__search"]);
  });

  it("take server names that keep every tool name parseable and short", () => {
    for (const name of ["github", "a", "my-server-2", "x".repeat(24)]) expect(mcpServerNameSchema.safeParse(name).success, name).toBe(true);
    for (const name of ["", "GitHub", "my_server", "a__b", "-a", "a-", "a--b", "x".repeat(25), "a.b"])
      expect(mcpServerNameSchema.safeParse(name).success, name).toBe(false);
  });
});
