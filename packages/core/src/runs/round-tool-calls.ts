import type { NewRunEvent } from "../events/run-event.ts";
import { generateSecretId } from "../ids.ts";
import { POLICY_VERSION, hashArguments, isApprovalIntact, sealApproval } from "../policy/approval-seal.ts";
import { decideToolCall } from "../policy/decide-tool-call.ts";
import { decideToolOffer } from "../policy/offered-tools.ts";
import { effectLabels } from "../policy/effects.ts";
import { createFileReadLedger } from "../store/file-read-ledger.ts";
import { stageToolCallUpdate } from "../store/run-statement.ts";
import { parseToolArguments, validateToolArguments } from "../tools/parse-tool-arguments.ts";
import { isReadOnlyTool, type ToolDefinition, type ToolResult } from "../tools/tool-definition.ts";
import { workspaceFileRevision } from "../workspaces/workspace-files.ts";
import type { RunExecution } from "./execute-run.ts";
import { callSignature } from "./guards/call-signature.ts";
import type { OpenCallApproval } from "./load-run-context.ts";
import type { LoopState } from "./loop-state.ts";
import { assertNever, type StepOutcome } from "./run-outcome.ts";
import { RunStatus } from "./run-status.ts";

/** A call of the model waiting to be handled, as stored in `tool_calls`. */
export interface PendingCall {
  rowId: string;
  callId: string;
  name: string;
  argumentsText: string;
  round: number;
  position: number;
}

interface ApprovalRequest {
  call: PendingCall;
  tool: ToolDefinition;
  args: unknown;
  effects: string[];
}

/** Results stored in events are capped: the full text is in the tool message. */
const EVENT_RESULT_LIMIT = 16 * 1024;

/**
 * Handles the tool calls of a round: the executor's policy check, the guards, execution recorded as
 * started before and completed after, and the pause for approval (invariants 3, 4 and 8). Also
 * resumes the calls a previous execution left open: after a crash or an approval decision.
 */
export class RoundToolCalls {
  readonly #execution: RunExecution;

  constructor(execution: RunExecution) {
    this.#execution = execution;
  }

  /**
   * `sentTools` names the tools sent to the model in the calls' round (null: not recorded, for runs
   * written by an older release); a call of any other tool is refused before anything runs.
   */
  async process(calls: readonly PendingCall[], options: { tainted: boolean; sentTools: readonly string[] | null }): Promise<StepOutcome> {
    const execution = this.#execution;
    const approvals: ApprovalRequest[] = [];
    for (const call of calls) {
      const interruption = execution.interruption();
      if (interruption) return { kind: "stop", outcome: interruption };
      const tool = execution.dependencies.tools.get(call.name);
      if (!tool) {
        this.answer(call, { ok: false, error: `there is no tool named "${call.name}"; use one of the tools you were given` });
        continue;
      }
      // Invariant 8 first: a call of a tool that was not sent in its round is refused before it can
      // count towards a guard or be parsed, let alone run.
      const decision = decideToolCall({
        tool,
        toolName: call.name,
        offer: execution.offerContext,
        tainted: options.tainted,
        grants: execution.context.grants,
        sentTools: options.sentTools,
      });
      if (decision.kind === "refuse") {
        this.answer(call, { ok: false, error: decision.reason });
        continue;
      }
      const parsed = parseToolArguments(tool, call.argumentsText);
      if (!parsed.ok) {
        this.answer(call, { ok: false, error: parsed.error });
        continue;
      }
      const guard = this.checkGuards(call, parsed.args);
      if (guard) {
        this.answer(call, { ok: false, error: guard.error }, guard.events);
        continue;
      }
      switch (decision.kind) {
        case "needs_approval":
          approvals.push({ call, tool, args: parsed.args, effects: decision.effects });
          break;
        case "execute":
          await this.execute(call, tool, parsed.args);
          break;
        default:
          assertNever(decision);
      }
    }
    if (approvals.length > 0) return this.park(approvals);
    return { kind: "next_round" };
  }

  /** Repeated identical calls and the call budget; a tripped guard withdraws the tools for one final answer. */
  checkGuards(call: PendingCall, args: unknown): { error: string; events: NewRunEvent[] } | null {
    const execution = this.#execution;
    const { settings, run } = execution.context;
    const signature = callSignature(call.name, args);
    const count = (execution.loopState.callCounts[signature] ?? 0) + 1;
    execution.loopState = { ...execution.loopState, callCounts: { ...execution.loopState.callCounts, [signature]: count } };
    if (count >= settings.agent_repeated_call_limit) {
      execution.loopState = { ...execution.loopState, finalAnswerRound: true };
      return {
        error: `this exact call has been made ${count} times in this run and its result will not change; stop calling it and give your answer`,
        events: [{ type: "guard.triggered", data: { guard: "repeated_call", tool: call.name, tool_call_id: call.callId, count } }],
      };
    }
    const limit = settings.agent_max_tool_calls;
    if (limit > 0 && run.toolCalls >= limit) {
      execution.loopState = { ...execution.loopState, finalAnswerRound: true };
      return {
        error: `the run has used its budget of ${limit} tool calls (agent_max_tool_calls); give your answer with what you have`,
        events: [{ type: "guard.triggered", data: { guard: "call_budget", limit, tool_call_id: call.callId } }],
      };
    }
    return null;
  }

  /** Records the call as started, runs it, and records its result: two commits around the handler. */
  async execute(call: PendingCall, tool: ToolDefinition, args: unknown): Promise<void> {
    const execution = this.#execution;
    execution.stage((change) => {
      change.events.push({ type: "tool.started", data: { tool_call_id: call.callId, tool: call.name, arguments: args } });
      stageToolCallUpdate(change, { id: call.rowId, status: "started", started: true, effects: effectLabels(tool) });
    });
    // Invariant 3: the call is recorded as started (with everything staged before it) before its handler runs.
    await execution.flush();
    const result = await this.runTool(tool, args);
    this.answer(call, result, [], { taints: tool.taints && result.ok });
  }

  async runTool(tool: ToolDefinition, args: unknown): Promise<ToolResult> {
    const execution = this.#execution;
    const { run, workspace, settings } = execution.context;
    try {
      return await tool.execute(args, {
        runId: run.id,
        chatId: run.chatId,
        userId: run.userId,
        workspace,
        signal: execution.input.signal,
        fileReads: createFileReadLedger(execution.dependencies.prisma, run.id),
        settings: { webFetchAllow: settings.web_fetch_allow, processNetwork: settings.process_network },
      });
    } catch (error) {
      return { ok: false, error: `the tool failed: ${error instanceof Error ? error.message : String(error)}` };
    }
  }

  /**
   * Records a call's result: the tool message, the counters and `tool.completed`. Staged: it is
   * committed with the next step (the next call's start, the next round's start, the run's end).
   */
  answer(call: PendingCall, result: ToolResult, extraEvents: NewRunEvent[] = [], options: { taints?: boolean } = {}): void {
    const execution = this.#execution;
    const { run } = execution.context;
    const content = result.ok ? result.output : `Error: ${result.error}`;
    const taintsNow = options.taints === true && !run.tainted;
    execution.stage((change) => {
      change.increments.toolCalls += 1;
      change.tainted ||= taintsNow;
      change.events.push(...extraEvents, {
        type: "tool.completed",
        data: result.ok
          ? { tool_call_id: call.callId, tool: call.name, ok: true, result: capped(result.output), ...(result.data ? { data: result.data } : {}) }
          : { tool_call_id: call.callId, tool: call.name, ok: false, error: capped(result.error) },
      });
      stageToolCallUpdate(change, { id: call.rowId, status: "completed", ok: result.ok, result: content, completed: true });
      change.messages.push({ id: execution.dependencies.generateId("msg"), role: "tool", toolCallId: call.callId, content });
    });
    run.toolCalls += 1;
    if (taintsNow) run.tainted = true;
    execution.context.transcript.push({ role: "tool", toolCallId: call.callId, content, ...(result.ok ? {} : { isError: true }) });
  }

  /** Writes a sealed approval record per call and parks the run: no worker, no job (invariant 4). */
  async park(requests: readonly ApprovalRequest[]): Promise<StepOutcome> {
    const execution = this.#execution;
    const { run, workspace, settings } = execution.context;
    const now = execution.dependencies.clock();
    const expiresAt = new Date(now.getTime() + settings.approval_ttl_seconds * 1000);
    const records = await Promise.all(
      requests.map(async (request) => {
        const targetPath = request.tool.targetPath?.(request.args) ?? null;
        const targetRevision = workspace && targetPath ? await workspaceFileRevision(workspace.rootPath, targetPath).catch(() => null) : null;
        const fields = {
          id: generateSecretId("apr"),
          runId: run.id,
          chatId: run.chatId,
          userId: run.userId,
          toolCallId: request.call.callId,
          tool: request.call.name,
          argumentsHash: hashArguments(request.args),
          workspaceId: workspace?.id ?? null,
          effects: request.effects,
          targetPath,
          targetRevision,
          policyVersion: POLICY_VERSION,
          expiresAt,
        };
        return { request, fields, seal: sealApproval(execution.dependencies.approvalSecret, fields) };
      }),
    );
    // One statement with whatever the round staged (often the calls' own rows): the approval
    // records, the calls marked as waiting, the status and the released lease commit together.
    execution.stage((change) => {
      change.status = RunStatus.awaiting_approval;
      change.releaseLease = true;
      for (const { request, fields, seal } of records) {
        change.events.push({
          type: "approval.required",
          data: {
            approval_id: fields.id,
            tool: fields.tool,
            tool_call_id: fields.toolCallId,
            arguments: request.args,
            effects: fields.effects,
            expires_at: expiresAt.toISOString(),
          },
        });
        stageToolCallUpdate(change, { id: request.call.rowId, status: "awaiting_approval", effects: fields.effects });
        change.approvals.push({ ...fields, toolCallRowId: request.call.rowId, arguments: request.args, seal });
      }
    });
    await execution.flush();
    return { kind: "stop", outcome: { kind: "parked", approvalIds: records.map(({ fields }) => fields.id) } };
  }

  /**
   * Continues the calls a previous execution left open. A call that started and has no result is
   * re-run only if its tool is read-only; a side-effecting one is answered "outcome unknown" and
   * is never executed twice (invariant 3). Decided approvals are applied; undecided ones re-park.
   */
  async resumeOpenCalls(): Promise<StepOutcome> {
    const execution = this.#execution;
    const rows = execution.context.openToolCalls;
    const pending: PendingCall[] = [];
    for (const row of rows) {
      const interruption = execution.interruption();
      if (interruption) return { kind: "stop", outcome: interruption };
      const call: PendingCall = {
        rowId: row.rowId,
        callId: row.callId,
        name: row.tool,
        argumentsText: argumentsTextOf(row.arguments),
        round: row.round,
        position: row.position,
      };
      const tool = execution.dependencies.tools.get(row.tool);
      if (row.status === "pending") {
        pending.push(call);
      } else if (row.status === "started") {
        if (tool && isReadOnlyTool(tool)) {
          const parsed = parseToolArguments(tool, call.argumentsText);
          if (parsed.ok) await this.execute(call, tool, parsed.args);
          else this.answer(call, { ok: false, error: parsed.error });
        } else {
          this.answer(call, {
            ok: false,
            error: "outcome unknown: the worker executing this call stopped before recording its result; check the current state before repeating it",
          });
        }
      } else if (row.status === "awaiting_approval") {
        const approval = row.approval;
        if (!approval || approval.status === "pending") return this.repark();
        if (approval.status === "denied") this.answer(call, { ok: false, error: "the user denied this call" });
        else if (approval.status === "cancelled") this.answer(call, { ok: false, error: "not executed: its approval was withdrawn" });
        else await this.executeApproved(call, tool, approval);
      }
    }
    if (pending.length > 0) {
      const { roundTainted, roundTools } = execution.loopState;
      return this.process(pending, { tainted: roundTainted ?? execution.context.run.tainted, sentTools: roundTools });
    }
    return { kind: "next_round" };
  }

  /** An allowed call: the seal, the policy and the bound file revision are checked again where it runs. */
  async executeApproved(call: PendingCall, tool: ToolDefinition | undefined, approval: OpenCallApproval): Promise<void> {
    const execution = this.#execution;
    if (!isApprovalIntact(execution.dependencies.approvalSecret, approval)) {
      this.answer(call, { ok: false, error: "not executed: its approval record failed verification" });
      return;
    }
    if (!tool) {
      this.answer(call, { ok: false, error: `there is no tool named "${call.name}"` });
      return;
    }
    const offer = decideToolOffer(tool, execution.offerContext);
    if (!offer.offered) {
      this.answer(call, { ok: false, error: `not executed: ${offer.reason}` });
      return;
    }
    const { workspace } = execution.context;
    const args = approval.editedArguments ?? approval.arguments;
    const validated = validateToolArguments(tool, args);
    if (!validated.ok) {
      this.answer(call, { ok: false, error: validated.error });
      return;
    }
    const targetPath = tool.targetPath?.(validated.args) ?? null;
    if (workspace && targetPath && targetPath === approval.targetPath) {
      const revision = await workspaceFileRevision(workspace.rootPath, targetPath).catch(() => null);
      if (revision !== approval.targetRevision) {
        this.answer(call, { ok: false, error: `not executed: ${targetPath} changed after the call was approved; read it again` });
        return;
      }
    }
    await this.execute(call, tool, validated.args);
  }

  /** Some approvals of the run are still undecided: park again without asking twice. */
  async repark(): Promise<StepOutcome> {
    const execution = this.#execution;
    execution.stage((change) => {
      change.status = RunStatus.awaiting_approval;
      change.releaseLease = true;
    });
    await execution.flush();
    const pending = execution.context.openToolCalls.flatMap((call) => (call.approval?.status === "pending" ? [call.approval.id] : []));
    return { kind: "stop", outcome: { kind: "parked", approvalIds: pending } };
  }
}

function argumentsTextOf(stored: unknown): string {
  if (stored !== null && typeof stored === "object" && !Array.isArray(stored)) {
    const entries = Object.entries(stored as Record<string, unknown>);
    if (entries.length === 1 && entries[0]![0] === "raw_arguments" && typeof entries[0]![1] === "string") return entries[0]![1];
  }
  return JSON.stringify(stored ?? {});
}

function capped(text: string): string {
  return text.length <= EVENT_RESULT_LIMIT
    ? text
    : `${text.slice(0, EVENT_RESULT_LIMIT)}\n[... ${text.length - EVENT_RESULT_LIMIT} more characters in the tool message]`;
}

export type { LoopState };
