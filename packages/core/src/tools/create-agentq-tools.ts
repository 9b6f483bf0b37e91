import { type AdministrationControl, createAdminTools } from "./admin/create-admin-tools.ts";
import type { DocumentStore } from "../documents/document-store.ts";
import { createDocumentTools } from "./documents/create-document-tools.ts";
import { createFileTools } from "./files/create-file-tools.ts";
import { createEmailTools, type EmailToolsOptions } from "./personal/email/email-tools.ts";
import { createCalendarTools } from "./personal/calendar/calendar-tools.ts";
import { createMemoryTools } from "./personal/memory/memory-tools.ts";
import { createNoteTools } from "./personal/notes/note-tools.ts";
import type { PersonalStore } from "./personal/personal-tool-support.ts";
import { createTaskTools } from "./personal/tasks/task-tools.ts";
import { createJobTools, type JobControl } from "./process/job-tools.ts";
import { createRunCommandTool } from "./process/run-command-tool.ts";
import type { ProcessSandbox } from "./process/sandbox/process-sandbox.ts";
import type { ToolDefinition } from "./tool-definition.ts";
import { createFetchPageTool } from "./web/fetch-page-tool.ts";
import { createSearxngBackend } from "./web/searxng-backend.ts";
import { createWebSearchTool } from "./web/web-search-tool.ts";

export interface AgentqToolsOptions {
  /** The whole environment of `run_command` processes (TOOL_ENV_ALLOW applied by the app). */
  toolEnvironment: Record<string, string>;
  /** SearXNG base URL; undefined: `web_search` answers that no search backend is configured. */
  searxngUrl: string | undefined;
  /**
   * Where commands and jobs run; null where the sandbox cannot start: then no process tool exists,
   * so none is offered (GET /api/tools) and the executor refuses any the model names.
   */
  sandbox: ProcessSandbox | null;
  /** Runs background jobs (the worker's supervisor); null where tools are only listed (the API). */
  jobs?: JobControl | null;
  /** What the admin tools act on (the worker's); null where tools are only listed (the API). */
  administration?: AdministrationControl | null;
  /** The email tools' storage and SMTP side (`sending` null: no send_email); undefined: no email tools. */
  email?: EmailToolsOptions;
  /** The users' documents (the worker's pool); null or absent where tools are only listed (the API). */
  documents?: DocumentStore | null;
  /** Where the personal tools (notes, tasks, calendar, memory) keep their data; null: listed, but a call is a tool error. */
  personal?: PersonalStore | null;
}

/**
 * Every tool agentq ships, in the order they are offered. The API (GET /api/tools) and the workers
 * build the same list, so what a user is shown is what the model gets.
 */
export function createAgentqTools(options: AgentqToolsOptions): ToolDefinition[] {
  return [
    ...createFileTools(),
    ...(options.sandbox === null
      ? []
      : [createRunCommandTool({ environment: options.toolEnvironment, sandbox: options.sandbox }), ...createJobTools(options.jobs ?? null)]),
    createFetchPageTool(),
    createWebSearchTool({ backend: options.searxngUrl ? createSearxngBackend({ baseUrl: options.searxngUrl }) : null }),
    ...createAdminTools(options.administration ?? null),
    ...(options.email === undefined ? [] : createEmailTools(options.email)),
    ...createDocumentTools(options.documents ?? null),
    ...createNoteTools(options.personal ?? null),
    ...createTaskTools(options.personal ?? null),
    ...createCalendarTools(options.personal ?? null),
    ...createMemoryTools(options.personal ?? null),
  ];
}
