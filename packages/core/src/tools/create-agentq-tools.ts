import { createFileTools } from "./files/create-file-tools.ts";
import { createJobTools, type JobControl } from "./process/job-tools.ts";
import { createRunCommandTool } from "./process/run-command-tool.ts";
import type { ToolDefinition } from "./tool-definition.ts";
import { createFetchPageTool } from "./web/fetch-page-tool.ts";
import { createSearxngBackend } from "./web/searxng-backend.ts";
import { createWebSearchTool } from "./web/web-search-tool.ts";

export interface AgentqToolsOptions {
  /** The whole environment of `run_command` processes (TOOL_ENV_ALLOW applied by the app). */
  toolEnvironment: Record<string, string>;
  /** SearXNG base URL; undefined: `web_search` answers that no search backend is configured. */
  searxngUrl: string | undefined;
  /** Runs background jobs (the worker's supervisor); null where tools are only listed (the API). */
  jobs?: JobControl | null;
}

/**
 * Every tool agentq ships, in the order they are offered. The API (GET /api/tools) and the workers
 * build the same list, so what a user is shown is what the model gets.
 */
export function createAgentqTools(options: AgentqToolsOptions): ToolDefinition[] {
  return [
    ...createFileTools(),
    createRunCommandTool({ environment: options.toolEnvironment }),
    ...createJobTools(options.jobs ?? null),
    createFetchPageTool(),
    createWebSearchTool({ backend: options.searxngUrl ? createSearxngBackend({ baseUrl: options.searxngUrl }) : null }),
  ];
}
