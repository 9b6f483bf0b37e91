// @agentq/client: the API's routes typed from its OpenAPI document, and the few helpers a script needs.
export { AgentqApiError, type AgentqClient, type AgentqClientOptions, createAgentqClient, type Schemas, unwrap } from "./create-agentq-client.ts";
export { FollowRunError, type FollowRunOptions, followRun, type RunEvent, TERMINAL_EVENT_TYPES, type WebSocketLike } from "./follow-run.ts";
export { type ApprovalDecision, decideApproval, FINISHED_STATUSES, type Run, waitForRunStatus } from "./run-helpers.ts";
export type { components, operations, paths } from "./schema.gen.ts";
