// The public surface of @agentq/core: what the apps (API, worker, scripts) build on. Everything else
// in src/ is internal to core. Two more entry points: `@agentq/core/testing` (the fake provider
// server, the scripted model; never a production default) and `@agentq/core/migrations`.

// Runs: the commands the API calls (each commits, then publishes and schedules what follows).
export { type RunAfterCommit, type RunCommandDependencies, cancelRun, decideRunApproval, startRun } from "./runs/run-commands.ts";
export type { CreateRunInput, CreateRunResult } from "./runs/create-run.ts";
export type { ApprovalDecisionKind, DecideApprovalInput, DecideApprovalResult } from "./runs/decide-approval.ts";
export {
  type ApprovalDecisionRecord,
  approvalDecisionRecord,
  type DecisionCommitOutcome,
  type WorkerDecisionRequest,
} from "./runs/approval-decision-record.ts";
// Runs: what the API reads.
export { getRunView, readRunEvents, readRunEventsWithToken, requireOwnRun, type RunEventsPage } from "./runs/run-queries.ts";
export { isTerminal, RunStatus } from "./runs/run-status.ts";
// Runs: what a worker does with a run: take its lease, execute it, renew, release, fail it.
export { acquireRun, type AcquireOutcome, releaseLease, renewLeases, returnHandedOverRun, type RunLease } from "./runs/run-lease.ts";
export { HANDOVER_CONTEXT_MAX_LENGTH, type HandedDecision, handedOverRun, type ResumeHandover } from "./runs/resume-handover.ts";
export { type NewRunStart, newRunFromStart } from "./runs/new-run-start.ts";
export { executeRun, type ExecuteRunInput } from "./runs/loop/execute-run.ts";
export { failRunWithoutLease } from "./runs/fail-run-without-lease.ts";
export { findRunsToReconcile, isRunStillUnheld, type RunToReconcile } from "./runs/runs-to-reconcile.ts";
export { RunAbort, type RunAbortReason } from "./runs/run-abort.ts";
export type { RunOutcome } from "./runs/run-outcome.ts";
export type { RunError } from "./runs/run-error.ts";
export type { LoopLogger, ModelResolver, RunGeneration, RunLoopDependencies, RunScheduler, ToolCatalog } from "./runs/run-loop-dependencies.ts";

// Chats, users, workspaces.
export { createChat, getChatWithMessages } from "./chats/chat-store.ts";
export { listChatApprovals, listChatGrants, revokeChatGrant } from "./chats/chat-permissions.ts";
export { type ChatPage, type ChatSummaryView, listChats } from "./chats/list-chats.ts";
export { listChatRuns } from "./chats/list-chat-runs.ts";
export { type InboxApprovalView, listPendingApprovals } from "./chats/list-pending-approvals.ts";
export { type AuthenticatedUser, isAdmin, type RequestCaller, USER_ROLES, userNameSchema } from "./users/user.ts";
export { createUser, findUserByToken } from "./users/user-store.ts";
export { hashApiToken } from "./users/api-token.ts";
export { InvalidTokenError, UnauthorizedError } from "./users/user-errors.ts";
export { listUsers } from "./users/list-users.ts";
export { type UserChanges, updateUser } from "./users/update-user.ts";
export { rotateUserToken } from "./users/rotate-user-token.ts";
export type { UserView } from "./users/user-view.ts";
export { bootstrapAdmin } from "./users/bootstrap-admin.ts";
export { type AdmittedRun, ADMITTED_WAITING_PER_USER, type DispatchDependencies, dispatchRunsOfUser } from "./runs/admit-runs.ts";
export { AdmissionRounds } from "./runs/admission-rounds.ts";
export { findUsersAwaitingAdmission } from "./runs/runs-to-reconcile.ts";
export { vacuumRunsWhereAutovacuumIsOff } from "./runs/vacuum-runs.ts";
export { QuotaExceededError, quotaDay } from "./users/user-quotas.ts";
export { getUserUsage, type UserUsageView } from "./users/user-usage.ts";
export { createWorkspace, getWorkspace, listWorkspaces, registerWorkspaceDirectory } from "./workspaces/workspace-store.ts";
export { readWorkspaceFile, writeWorkspaceFile } from "./workspaces/workspace-files.ts";
export { FileNotFoundError } from "./workspaces/workspace-file-errors.ts";
export { type DirectoryListing, listWorkspaceDirectory } from "./workspaces/list-workspace-directory.ts";

// Tools, policy, the process sandbox and background jobs.
export { createAgentqTools } from "./tools/create-agentq-tools.ts";
export { DOCUMENT_MAX_CHARS, DocumentStore, documentStoreOf, RevisionConflictError, toDocumentSummary, toDocumentView } from "./documents/document-store.ts";
export { EXPORT_FORMATS, type ExportFormat, exportDocument } from "./documents/export-document.ts";
export { createToolRegistry, TOOL_NAME_PATTERN, type ToolRegistry } from "./tools/tool-registry.ts";
export type { ToolDefinition, ToolResult } from "./tools/tool-definition.ts";
export { effectLabels } from "./policy/effects.ts";
export { offeredTools } from "./policy/offered-tools.ts";
export { buildToolEnvironment } from "./tools/process/build-tool-environment.ts";
export type { ProcessSandbox, SandboxAvailability } from "./tools/process/sandbox/process-sandbox.ts";
export { logSandboxAvailability, probeProcessSandbox } from "./tools/process/sandbox/probe-process-sandbox.ts";
export { JobStatus } from "./jobs/job-status.ts";
export { findOwnJob, listOwnJobs, markLostJobs } from "./jobs/job-store.ts";
export { JobSupervisor } from "./jobs/job-supervisor.ts";
export { toJobView } from "./jobs/job-view.ts";
export { readJobOutput } from "./jobs/job-output.ts";
export { stopJob } from "./jobs/stop-job.ts";

// Personal data: email.
export { DEFAULT_EMAIL_FROM, describeSmtpServer, type EmailConfig, emailConfigFromEnvironment, emailEnvironmentShape } from "./email/email-config.ts";
export { createEmailServices, type EmailServices } from "./email/create-email-services.ts";
export { EmailAlreadySentError, EmailNotConfiguredError } from "./email/email-errors.ts";
export { emailAddressList, emailBody, emailSubject } from "./email/email-fields.ts";
export { createEmailDraft, deleteEmailDraft, getOwnEmail, listOwnEmails, updateEmailDraft } from "./email/email-store.ts";
export { type EmailView, toEmailView } from "./email/email-view.ts";
export { claimEmailForSending, deliverClaimedEmail, type EmailSendOutcome } from "./email/send-email.ts";
export { EMAIL_STATUSES, type EmailRecord } from "./store/statements/email-statements.ts";

// Models.
export type { ModelClient } from "./models/model-client.ts";
export { ModelProviderError } from "./models/model-errors.ts";
export { createModelRouter } from "./models/model-router.ts";
export { contextWindowFor, DEFAULT_CONTEXT_WINDOW } from "./models/context-window.ts";
export { warmUpTokenizer } from "./models/count-tokens.ts";

// Events, settings, errors, configuration, logging, ids and time.
export type { OwnedRun, RunChannelMessage, RunEventPublisher, RunEventRecord } from "./events/run-event.ts";
export { recentSettings } from "./settings/recent-settings.ts";
export { loadSettings, NUMERIC_SETTINGS, settingsPatchSchema, TOOL_FAMILY_FLAGS, updateSettings } from "./settings/agent-settings.ts";
export { selectEnabledUserRole } from "./users/enabled-user-role.ts";
// Administration: the audit log and the services view.
export { AUDIT_ACTIONS, type AuditAction, recordAuditEntry } from "./audit/record-audit-entry.ts";
export { type AuditEntryView, type AuditPage, listAuditEntries } from "./audit/list-audit-entries.ts";
export { loadServiceStatus, type QueueCounts, type ServiceStatus, WORKER_PRESENCE_INTERVAL_MS } from "./services/load-service-status.ts";
export { type LiveWorker, listLiveWorkers } from "./services/list-live-workers.ts";
export { recordWorkerPresence, removeWorkerPresence, type WorkerPresence } from "./services/worker-presence.ts";
export { runServiceProcess, type ServiceProcessOptions, type ServiceProcessTracing, type StoppableService } from "./services/run-service-process.ts";
export { AgentqError, ForbiddenError, InvalidRequestError, NotFoundError, UnavailableError } from "./errors/agentq-error.ts";
export { type ErrorCode, httpStatusOf } from "./errors/error-codes.ts";
export { isConnectionError } from "./errors/is-connection-error.ts";
export { describeStartupFailure, type StartupFailure } from "./config/describe-startup-failure.ts";
export { isClusterRedisUrl, parseRedisUrl, type RedisTarget, RedisUrlError } from "./config/parse-redis-url.ts";
export { type CommonConfig, commonConfigFromEnvironment, commonEnvironmentShape, parseEnvironment } from "./config/environment-schema.ts";
export { createLogger, type Logger } from "./logging/create-logger.ts";
export { redactSecrets } from "./logging/redact-secrets.ts";
export { exceedsJsonNesting, MAX_JSON_NESTING } from "./json/json-nesting.ts";
export { generateId, type GenerateId } from "./ids.ts";
export { type Clock, systemClock } from "./clock.ts";

// The store: the Prisma client (with its pg pool) and the secrets the deployment generates once.
export { createPrismaClient, createSqlPool, Prisma, type PrismaClient, sqlPoolOf } from "./store/create-prisma-client.ts";
export { createRunCommitBatcher, type RunCommitBatcherOptions, type RunCommitter } from "./store/run-commit-batcher.ts";
export { resolveApprovalSecret } from "./store/system-secret.ts";
export { pingDatabase } from "./store/ping-database.ts";
export { composeToolCatalog } from "./tools/compose-tool-catalog.ts";
export { checkRunToolList } from "./tools/check-run-tool-list.ts";
export {
  type McpListedTool,
  type McpServerRegistration,
  type McpServerStatus,
  type McpServerView,
  MCP_SERVER_STATUSES,
  mcpServerNameSchema,
  mcpServerRegistrationSchema,
} from "./mcp/mcp-server-registration.ts";
export {
  addMcpServer,
  type AddMcpServerDependencies,
  getMcpServer,
  getMcpServerTools,
  listMcpServers,
  listReportedMcpTools,
  McpServerExistsError,
  removeMcpServer,
} from "./mcp/mcp-server-store.ts";
export { createListedMcpTools, mcpToolName } from "./mcp/create-mcp-tool.ts";
export { McpConnections, type McpConnectionsOptions } from "./mcp/mcp-connections.ts";

// Personal data: notes, tasks, calendar events, memories (API.md "Personal data").
export * from "./personal/index.ts";

// Webhooks (API.md "Webhooks, tracing, the client and the CLI"): registrations, and one delivery attempt.
export {
  createWebhook,
  listWebhookDeliveries,
  listWebhooks,
  removeWebhook,
  type WebhookRegistration,
  webhookRegistrationSchema,
} from "./webhooks/webhook-store.ts";
export { attemptWebhookDelivery, type WebhookAttemptOutcome, type WebhookDeliveryDependencies } from "./webhooks/attempt-webhook-delivery.ts";
export { deriveWebhookSecretsKey } from "./webhooks/webhook-secret.ts";
export { WEBHOOK_MAX_ATTEMPTS, WEBHOOK_RETRY_DELAYS_MS } from "./webhooks/webhook-retry-schedule.ts";
export {
  enqueueDueWebhookDeliveries,
  WEBHOOK_DELIVERY_STATUSES,
  type WebhookDeliveryRecord,
  type WebhookRecord,
} from "./store/statements/webhook-statements.ts";
export { systemHostResolver } from "./tools/web/ssrf/ssrf-guard.ts";
export { activeTraceCarrier, withTraceCarrier } from "./telemetry/trace-carrier.ts";
