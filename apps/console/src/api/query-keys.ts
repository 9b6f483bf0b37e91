import type { ToolQuery } from "./types.ts";

/**
 * Every TanStack Query key of the console, in one place, so invalidation after a change (a run
 * finished, an approval decided) names exactly what it refreshes. Keys are hierarchical: the first
 * element is the resource, so `queryKeys.chats.all` invalidates every chat query.
 */
export const queryKeys = {
  me: ["me"] as const,
  chats: {
    all: ["chats"] as const,
    list: () => ["chats", "list"] as const,
    /** Prefixes: every chat's runs, grants or approval history. */
    allRuns: ["chats", "runs"] as const,
    allGrants: ["chats", "grants"] as const,
    allApprovals: ["chats", "approvals"] as const,
    detail: (chatId: string) => ["chats", "detail", chatId] as const,
    runs: (chatId: string) => ["chats", "runs", chatId] as const,
    grants: (chatId: string) => ["chats", "grants", chatId] as const,
    approvals: (chatId: string) => ["chats", "approvals", chatId] as const,
  },
  runs: {
    all: ["runs"] as const,
    detail: (runId: string) => ["runs", "detail", runId] as const,
  },
  approvals: {
    all: ["approvals"] as const,
    pending: () => ["approvals", "pending"] as const,
  },
  workspaces: {
    all: ["workspaces"] as const,
    list: () => ["workspaces", "list"] as const,
    tree: (workspaceId: string, path: string) => ["workspaces", "tree", workspaceId, path] as const,
    file: (workspaceId: string, path: string) => ["workspaces", "file", workspaceId, path] as const,
  },
  documents: {
    all: ["documents"] as const,
    list: (query: string) => ["documents", "list", query] as const,
    detail: (documentId: string) => ["documents", "detail", documentId] as const,
    revisions: (documentId: string) => ["documents", "revisions", documentId] as const,
    revision: (documentId: string, revision: number) => ["documents", "revision", documentId, revision] as const,
  },
  tools: (query: ToolQuery) => ["tools", query] as const,
  settings: ["settings"] as const,
  users: {
    all: ["users"] as const,
    list: () => ["users", "list"] as const,
  },
  services: ["services"] as const,
  audit: ["audit"] as const,
  /** The API's OpenAPI document (the settings' ranges come from it). */
  openapi: ["openapi"] as const,
  webhooks: {
    all: ["webhooks"] as const,
    list: () => ["webhooks", "list"] as const,
    deliveries: (webhookId: string) => ["webhooks", "deliveries", webhookId] as const,
  },
  mcpServers: {
    all: ["mcp-servers"] as const,
    list: () => ["mcp-servers", "list"] as const,
    tools: (name: string) => ["mcp-servers", "tools", name] as const,
  },
  emails: {
    all: ["emails"] as const,
    list: () => ["emails", "list"] as const,
  },
  notes: {
    all: ["notes"] as const,
    list: (filter: { query?: string; tag?: string }) => ["notes", "list", filter] as const,
  },
  tasks: {
    all: ["tasks"] as const,
    list: (status: string) => ["tasks", "list", status] as const,
  },
  calendar: {
    all: ["calendar"] as const,
    week: (from: string, to: string) => ["calendar", "events", from, to] as const,
  },
  memories: {
    all: ["memories"] as const,
    list: (query: string) => ["memories", "list", query] as const,
  },
  jobs: {
    all: ["jobs"] as const,
    list: () => ["jobs", "list"] as const,
    output: (jobId: string) => ["jobs", "output", jobId] as const,
  },
};
