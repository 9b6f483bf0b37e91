import { describe, expect, it } from "vitest";
import { z } from "zod";
import { mergeTaintSources, type TaintSource } from "../policy/taint-sources.ts";
import { CALL_DESCRIPTION_MAX_CHARS, describeToolCall } from "./describe-tool-call.ts";
import { createListFilesTool } from "./files/list-files-tool.ts";
import { createReadFileTool } from "./files/read-file-tool.ts";
import { createSearchFilesTool } from "./files/search-files-tool.ts";
import { createJobTools } from "./process/job-tools.ts";
import { createRunCommandTool } from "./process/run-command-tool.ts";
import type { ToolDefinition } from "./tool-definition.ts";
import { createFetchPageTool } from "./web/fetch-page-tool.ts";
import { createWebSearchTool } from "./web/web-search-tool.ts";

const ok = (data?: Record<string, unknown>) => ({ ok: true as const, output: "(the material)", ...(data ? { data } : {}) });

const jobOutput = createJobTools(null).find((tool) => tool.name === "job_output")!;
const runCommand = createRunCommandTool({ environment: {}, sandbox: { kind: "test" } as never });

/** A tool that declares no description, as an MCP server's tool would be. */
const undescribed: ToolDefinition = {
  name: "mcp__wiki__lookup",
  family: "mcp",
  description: "test tool",
  parameters: z.object({}),
  effects: ["mcp"],
  taints: true,
  requiresWorkspace: false,
  execute: async () => ok(),
};

describe("describeToolCall", () => {
  it("names what each tainting tool read: a path, a query in a path, a URL, a search, a command", () => {
    expect(describeToolCall(createReadFileTool(), { path: "src/app.ts", offset: 10 }, ok())).toBe("src/app.ts");
    expect(describeToolCall(createListFilesTool(), { path: "docs" }, ok())).toBe("docs");
    expect(describeToolCall(createListFilesTool(), {}, ok())).toBe("the workspace root");
    expect(describeToolCall(createSearchFilesTool(), { query: "TODO", path: "src" }, ok())).toBe('"TODO" in src');
    expect(describeToolCall(createSearchFilesTool(), { query: "TODO" }, ok())).toBe('"TODO"');
    expect(describeToolCall(createFetchPageTool(), { url: "https://example.com/a?b=c" }, ok())).toBe("https://example.com/a?b=c");
    expect(describeToolCall(createWebSearchTool({ backend: null }), { query: "agentq approvals" }, ok())).toBe("agentq approvals");
    expect(describeToolCall(runCommand, { command: "npm test\n  | tail -5" }, ok())).toBe("npm test | tail -5");
  });

  it("names a job's output by the job's command, and by its id when the result does not say", () => {
    expect(describeToolCall(jobOutput, { job_id: "job_1" }, ok({ command: "npm run build" }))).toBe("output of npm run build");
    expect(describeToolCall(jobOutput, { job_id: "job_1" }, ok())).toBe("output of job job_1");
  });

  it("falls back to a path, URL, query or command argument, then to the arguments as JSON", () => {
    expect(describeToolCall(undescribed, { url: "https://wiki.example/Page" }, ok())).toBe("https://wiki.example/Page");
    expect(describeToolCall(undescribed, { title: "Page", lang: "en" }, ok())).toBe('{"lang":"en","title":"Page"}');
    expect(describeToolCall(undescribed, undefined, ok())).toBe("{}");
  });

  it("is one line of at most 200 characters", () => {
    const long = describeToolCall(createReadFileTool(), { path: `${"a/".repeat(150)}file.txt` }, ok());
    expect(long).toHaveLength(CALL_DESCRIPTION_MAX_CHARS);
    expect(long.endsWith("…")).toBe(true);
    const emoji = describeToolCall(createWebSearchTool({ backend: null }), { query: `${"x".repeat(198)}😀😀` }, ok());
    expect(emoji.length).toBeLessThanOrEqual(CALL_DESCRIPTION_MAX_CHARS);
    expect(emoji).toBe(`${"x".repeat(198)}…`);
  });
});

describe("mergeTaintSources", () => {
  const source = (runId: string, callId: string | null): TaintSource => ({ run_id: runId, tool_call_id: callId, tool: callId && "read_file", detail: "x" });

  it("keeps the order, names each call once and stops at five", () => {
    const earlier = [source("run_1", "a"), source("run_2", null)];
    const later = [source("run_1", "a"), source("run_2", null), source("run_3", "b"), source("run_3", "c"), source("run_3", "d"), source("run_3", "e")];
    expect(mergeTaintSources(earlier, later)).toEqual([
      source("run_1", "a"),
      source("run_2", null),
      source("run_3", "b"),
      source("run_3", "c"),
      source("run_3", "d"),
    ]);
  });
});
