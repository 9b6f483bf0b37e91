// The resources the console reads: the generated OpenAPI types (schema.gen.ts, from the API's own
// zod schemas), under the names the console uses, plus the few shapes the document leaves open.
import type { components } from "./schema.gen.ts";

type Schemas = components["schemas"];

export type Role = Schemas["UserRole"];
export type Me = Schemas["Me"];
export type RunStatus = Schemas["RunStatus"];
export type RunMode = NonNullable<Schemas["CreateRunRequest"]["mode"]>;
export type Multitask = NonNullable<Schemas["CreateRunRequest"]["multitask"]>;
export type ApprovalDecision = Schemas["ApprovalDecisionRequest"]["tool_approval_decision"];
/** A tool call whose result made the run's turn untrusted; `detail` is the path, URL, query or command. */
export type TaintSource = Schemas["TaintSource"];
export type PendingApproval = Schemas["PendingApproval"];
/** A pending approval as the inbox lists it (GET /api/approvals?status=pending). */
export type InboxApproval = Schemas["InboxApproval"];
export type Run = Schemas["Run"];
export type RunRequest = Schemas["CreateRunRequest"];
export type ChatSummary = Schemas["ChatSummary"];
export type ChatPage = Schemas["ChatList"];
export type Message = Schemas["Message"];
export type ToolCall = NonNullable<Message["tool_calls"]>[number];
export type Chat = Schemas["ChatWithMessages"];
export type Grant = Schemas["Grant"];
/** An approval of a chat, decided or not (GET /api/chats/:id/approvals). */
export type ApprovalRecord = Schemas["ApprovalRecord"];
export type Workspace = Schemas["Workspace"];
export type TreeEntry = Schemas["TreeEntry"];
export type Tree = Schemas["WorkspaceTree"];
export type WorkspaceFile = Schemas["WorkspaceFile"];
export type Tool = Schemas["Tool"];
export type CreatedUser = Schemas["CreatedUser"];
/** A user as admins see it (GET /api/users); the per-user limits are not in the API yet. */
export type User = Schemas["User"];
/** A user as the admin's list shows it: with their usage today and the limits that apply. */
export type UserWithUsage = Schemas["UserWithUsage"];
export type UserUsage = Schemas["UserUsage"];
export type UserLimits = Schemas["UserLimits"];
export type UserChanges = Schemas["UpdateUserRequest"];
export type Job = Schemas["Job"];
export type Note = Schemas["Note"];
export type Task = Schemas["Task"];
export type TaskStatus = Schemas["TaskStatus"];
export type CalendarEvent = Schemas["CalendarEvent"];
export type Memory = Schemas["Memory"];
export type JobStatus = Schemas["JobStatus"];
export type JobOutput = Schemas["JobOutput"];
export type McpServer = Schemas["McpServer"];
export type McpServerRegistration = Schemas["McpServerRegistration"];
export type McpServerTool = Schemas["McpServerTool"];
export type Email = Schemas["Email"];
export type Webhook = Schemas["Webhook"];
export type CreatedWebhook = Schemas["CreatedWebhook"];
export type WebhookRegistration = Schemas["WebhookRegistration"];
export type WebhookEventType = WebhookRegistration["events"][number];
export type WebhookDelivery = Schemas["WebhookDelivery"];
export type EmailStatus = Schemas["EmailStatus"];
/** A durable run event (API.md "Events"): `seq` is contiguous per run, from 1. */
export type RunEvent = Schemas["Event"];

/** GET /api/tools's switches, as the console holds them (the query string wants "true"/"false"). */
export interface ToolQuery {
  workspace_id?: string;
  mode?: RunMode;
  allow_bash?: boolean;
  allow_web_search?: boolean;
  use_web?: boolean;
}

/** Every setting is a number, a switch or a list of strings (web_fetch_allow); the form walks them by name. */
export type SettingValue = number | boolean | string[] | string | null;
export type Settings = Record<string, SettingValue>;
