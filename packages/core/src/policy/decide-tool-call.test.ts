import { describe, expect, it } from "vitest";
import { z } from "zod";
import { defaultSettings } from "../settings/agent-settings.ts";
import type { Effect, ToolDefinition } from "../tools/tool-definition.ts";
import { decideToolCall, type GrantRef } from "./decide-tool-call.ts";
import type { ToolOfferContext } from "./offered-tools.ts";

function tool(name: string, family: string, effects: readonly Effect[] | undefined, options: Partial<ToolDefinition> = {}): ToolDefinition {
  return {
    name,
    family,
    description: name,
    parameters: z.object({}),
    effects,
    taints: false,
    requiresWorkspace: false,
    execute: async () => ({ ok: true, output: "" }),
    ...options,
  };
}

const readFile = tool("read_file", "files", ["read"], { requiresWorkspace: true });
const writeFile = tool("write_file", "files", ["write"], { requiresWorkspace: true });
const runCommand = tool("run_command", "process", ["process"], { requiresWorkspace: true });
const fetchPage = tool("fetch_page", "web", ["network"]);
const mystery = tool("mystery", "plugins", undefined);
const mcpTool = tool("mcp_call", "plugins", ["mcp"]);
const adminTool = tool("rotate_keys", "admin", ["admin"]);

const offer: ToolOfferContext = {
  mode: "agent",
  allowBash: true,
  allowWebSearch: true,
  useWeb: true,
  hasWorkspace: true,
  role: "admin",
  settings: defaultSettings(),
};

function decide(
  candidate: ToolDefinition | undefined,
  options: { tainted?: boolean; grants?: GrantRef[]; offer?: Partial<ToolOfferContext>; name?: string; sentTools?: string[]; approvalAlways?: string[] } = {},
) {
  return decideToolCall({
    tool: candidate,
    toolName: options.name ?? candidate?.name ?? "missing",
    offer: { ...offer, ...options.offer },
    tainted: options.tainted ?? false,
    grants: options.grants ?? [],
    sentTools: options.sentTools ?? null,
    approvalAlways: options.approvalAlways ?? [],
  });
}

describe("decideToolCall", () => {
  it("executes every offered call while the run is untainted", () => {
    for (const candidate of [readFile, writeFile, runCommand, fetchPage, mystery, mcpTool, adminTool]) expect(decide(candidate)).toEqual({ kind: "execute" });
  });

  it("once tainted, pauses process, write, network, admin, mcp and unclassified calls with their effects", () => {
    expect(decide(runCommand, { tainted: true })).toEqual({ kind: "needs_approval", effects: ["process"], reason: "tainted" });
    expect(decide(writeFile, { tainted: true })).toEqual({ kind: "needs_approval", effects: ["write"], reason: "tainted" });
    expect(decide(fetchPage, { tainted: true })).toEqual({ kind: "needs_approval", effects: ["network"], reason: "tainted" });
    expect(decide(adminTool, { tainted: true })).toEqual({ kind: "needs_approval", effects: ["admin"], reason: "tainted" });
    expect(decide(mcpTool, { tainted: true })).toEqual({ kind: "needs_approval", effects: ["mcp"], reason: "tainted" });
    expect(decide(mystery, { tainted: true })).toEqual({ kind: "needs_approval", effects: ["unclassified"], reason: "tainted" });
  });

  it("approval_always pauses a named or matching tool tainted or not, even a read; a grant still covers it; refusals come first", () => {
    expect(decide(writeFile, { approvalAlways: ["write_file"] })).toEqual({ kind: "needs_approval", effects: ["write"], reason: "approval_always" });
    expect(decide(readFile, { approvalAlways: ["read_*"] })).toEqual({ kind: "needs_approval", effects: ["read"], reason: "approval_always" });
    expect(decide(mcpTool, { tainted: true, approvalAlways: ["mcp_*"] })).toMatchObject({ kind: "needs_approval", reason: "approval_always" });
    expect(decide(writeFile, { approvalAlways: ["write_files", "write"] })).toEqual({ kind: "execute" });
    expect(decide(writeFile, { approvalAlways: ["write_file"], grants: [{ tool: "write_file", effects: ["write"] }] })).toEqual({ kind: "execute" });
    expect(decide(writeFile, { approvalAlways: ["write_file"], sentTools: ["read_file"] }).kind).toBe("refuse");
  });

  it("once tainted, read-only calls still execute", () => {
    expect(decide(readFile, { tainted: true })).toEqual({ kind: "execute" });
  });

  it("a grant covers only the same tool with exactly the same effects", () => {
    expect(decide(runCommand, { tainted: true, grants: [{ tool: "run_command", effects: ["process"] }] })).toEqual({ kind: "execute" });
    expect(decide(runCommand, { tainted: true, grants: [{ tool: "write_file", effects: ["process"] }] }).kind).toBe("needs_approval");
    expect(decide(runCommand, { tainted: true, grants: [{ tool: "run_command", effects: ["process", "network"] }] }).kind).toBe("needs_approval");
    expect(decide(mystery, { tainted: true, grants: [{ tool: "mystery", effects: [] }] }).kind).toBe("needs_approval");
    expect(decide(mystery, { tainted: true, grants: [{ tool: "mystery", effects: ["unclassified"] }] })).toEqual({ kind: "execute" });
  });

  it("refuses unknown tools and tools the run is not offered, tainted or not, grant or not", () => {
    expect(decide(undefined, { name: "drop_database" })).toEqual({ kind: "refuse", reason: expect.stringContaining("drop_database") });
    const grants = [{ tool: "run_command", effects: ["process"] }];
    expect(decide(runCommand, { offer: { allowBash: false }, grants })).toMatchObject({ kind: "refuse", reason: expect.stringContaining("allow_bash") });
    expect(decide(runCommand, { offer: { hasWorkspace: false } })).toMatchObject({ kind: "refuse", reason: expect.stringContaining("workspace") });
    expect(decide(fetchPage, { offer: { useWeb: false } })).toMatchObject({ kind: "refuse", reason: expect.stringContaining("use_web") });
    expect(decide(fetchPage, { offer: { allowWebSearch: false } })).toMatchObject({ kind: "refuse", reason: expect.stringContaining("allow_web_search") });
    expect(decide(adminTool, { offer: { role: "user" } })).toMatchObject({ kind: "refuse", reason: expect.stringContaining("admin") });
    expect(decide(readFile, { offer: { mode: "guide" }, tainted: true })).toMatchObject({ kind: "refuse", reason: expect.stringContaining("guide") });
    expect(decide(runCommand, { offer: { settings: { ...defaultSettings(), tools_process_enabled: false } } })).toMatchObject({
      kind: "refuse",
      reason: expect.stringContaining("administrator"),
    });
  });

  it("refuses a call of a tool that was not sent in its round, offered or not, granted or not", () => {
    const grants = [{ tool: "write_file", effects: ["write"] }];
    expect(decide(writeFile, { sentTools: [], grants })).toMatchObject({ kind: "refuse", reason: expect.stringContaining("no tools were offered") });
    expect(decide(writeFile, { sentTools: ["read_file"], grants })).toMatchObject({ kind: "refuse", reason: expect.stringContaining("write_file") });
    expect(decide(writeFile, { sentTools: ["read_file", "write_file"] })).toEqual({ kind: "execute" });
    // The offer is still checked: a tool recorded as sent but no longer offered is refused.
    expect(decide(runCommand, { sentTools: ["run_command"], offer: { allowBash: false } }).kind).toBe("refuse");
  });
});
