/**
 * The attributes of agentq's own spans (in-span.ts). Every span about a run carries `agentq.run_id`, so a
 * tracing backend finds all of a run's work by that one attribute, across the API and the workers.
 * Model calls also use the OpenTelemetry GenAI names (`gen_ai.*`) that backends know how to show.
 */
export const TraceAttribute = {
  runId: "agentq.run_id",
  chatId: "agentq.chat_id",
  /** How an execution or a step ended: a RunOutcome kind, a tool call's `ok`/`error`/`refused`/`awaiting_approval`. */
  outcome: "agentq.outcome",
  /** Whether this execution continues a run that had started before (an approval, a recovery). */
  resumed: "agentq.run.resumed",
  round: "agentq.round",
  modelTimeToFirstTokenMs: "agentq.model.time_to_first_token_ms",
  toolName: "agentq.tool.name",
  toolCallId: "agentq.tool.call_id",
  toolEffects: "agentq.tool.effects",
  approvalId: "agentq.approval.id",
  approvalIds: "agentq.approval.ids",
  approvalTools: "agentq.approval.tools",
  approvalReasons: "agentq.approval.reasons",
  approvalDecision: "agentq.approval.decision",
  /** Whether the decision handed the run back to the workers (it was the run's last pending approval). */
  approvalResumed: "agentq.approval.resumed",
  genAiOperation: "gen_ai.operation.name",
  genAiRequestModel: "gen_ai.request.model",
  genAiInputTokens: "gen_ai.usage.input_tokens",
  genAiOutputTokens: "gen_ai.usage.output_tokens",
  genAiFinishReasons: "gen_ai.response.finish_reasons",
} as const;

/** The names of agentq's spans. */
export const SpanName = {
  /** The API: creating a run (POST /api/chats/:id/runs, a chat message). */
  runStart: "agentq.run.start",
  /** A worker's execution of a run job, from taking the run until it finishes, parks or is handed back. */
  runExecute: "agentq.run.execute",
  round: "agentq.round",
  modelCall: "agentq.model_call",
  toolCall: "agentq.tool_call",
  approvalPause: "agentq.approval.pause",
  /** The API: a person's decision on an approval (POST /api/approvals). */
  approvalDecide: "agentq.approval.decide",
} as const;
