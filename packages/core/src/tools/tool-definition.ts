import type { z } from "zod";

/** What a tool can do to the world (docs/design.md, "Policy"). */
export const EFFECTS = ["read", "write", "process", "network", "admin", "mcp"] as const;
export type Effect = (typeof EFFECTS)[number];

export interface WorkspaceRef {
  id: string;
  /** Absolute real path of the workspace root. */
  rootPath: string;
}

/**
 * Revisions of workspace files this run has read. A write or edit of an existing file needs a
 * read of its current revision by the same run (so the model never overwrites what it has not seen).
 */
export interface FileReadLedger {
  lastReadRevision(workspaceId: string, path: string): Promise<string | undefined>;
  recordRead(workspaceId: string, path: string, revision: string): Promise<void>;
}

/** Settings an admin can change at run time that tools consult on every call. */
export interface ToolRuntimeSettings {
  /** Hosts/CIDRs (optional port) that fetch_page may reach although the SSRF guard would refuse them. */
  webFetchAllow: readonly string[];
  /** Commands and jobs share the host's network (admin setting `process_network`, default false). */
  processNetwork: boolean;
  /** An MCP tool call without an answer after this long is a tool error (`mcp_call_timeout_seconds`). Default 60. */
  mcpCallTimeoutSeconds?: number;
}

export interface ToolContext {
  runId: string;
  chatId: string;
  userId: string;
  /** The run's workspace; tools with `requiresWorkspace` are never offered without one. */
  workspace: WorkspaceRef | null;
  /** Aborted when the run is cancelled or the worker shuts down. */
  signal: AbortSignal;
  fileReads: FileReadLedger;
  settings: ToolRuntimeSettings;
}

/**
 * A tool's answer, handed to the model as the call's result. Failures are data, not exceptions:
 * a tool that throws is turned into `{ok: false}` by the executor, the run goes on.
 */
export type ToolResult = { ok: true; output: string; data?: Record<string, unknown> } | { ok: false; error: string; data?: Record<string, unknown> };

// biome-ignore lint/suspicious/noExplicitAny: one registry holds tools of every argument type; each tool's own zod schema types its arguments.
export interface ToolDefinition<Args = any> {
  /** Unique name the model calls (`read_file`). */
  name: string;
  /** The family the tool belongs to (`files`, `process`, `web`, `documents`, `personal`, ...). */
  family: string;
  /**
   * What the admin's feature flag switches (settings/agent-settings.ts, TOOL_FAMILY_FLAGS). Default: the
   * family. Families with one flag per kind name the kind here (`personal` tools: `notes`, `email`, ...).
   */
  feature?: string;
  description: string;
  /** Arguments schema: validates every call; JSON Schema for the model is derived from it (z.toJSONSchema) unless `jsonSchema` is given. */
  parameters: z.ZodType<Args>;
  /**
   * A ready JSON Schema of the arguments (an object schema), sent to the model as it is instead of one
   * derived from `parameters`: tools defined elsewhere (MCP servers) come with their own. `parameters`
   * must still validate the same shape (for MCP tools it is converted from this schema).
   */
  jsonSchema?: Record<string, unknown>;
  /** Declared effects; `undefined` means unclassified, which policy treats as the riskiest. */
  effects: readonly Effect[] | undefined;
  /** Results are untrusted material: once one enters the turn, the run is tainted. */
  taints: boolean;
  /** Offered only when the run has a workspace. */
  requiresWorkspace: boolean;
  execute(args: Args, context: ToolContext): Promise<ToolResult>;
  /** The workspace-relative file a call targets, whose revision an approval binds to. */
  targetPath?(args: Args): string | undefined;
  /** The document a call changes, whose revision an approval binds to (the documents family). */
  targetDocument?(args: Args): string | undefined;
  /** The email a call sends, whose recipients, subject and body an approval binds to and shows (send_email). */
  targetEmail?(args: Args): string | undefined;
  /**
   * What a call read, in a few words for a person (its path, URL, query or command): an approval
   * names the calls that tainted the run by it. Never sent to the model. `result` is the call's
   * successful result (some tools learn what they read only then). Without it, a generic
   * description of the arguments is used (tools/describe-tool-call.ts).
   */
  describeCall?(args: Args, result: Extract<ToolResult, { ok: true }>): string;
}

/** A tool is read-only when every effect it declares is `read`; only those are re-run after a crash. */
export function isReadOnlyTool(tool: Pick<ToolDefinition, "effects">): boolean {
  if (tool.effects === undefined) return false;
  return tool.effects.every((effect) => effect === "read");
}
