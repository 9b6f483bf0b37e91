import { parseToolArguments } from "../../tools/parse-tool-arguments.ts";
import { isReadOnlyTool } from "../../tools/tool-definition.ts";
import type { OpenToolCall } from "../load-run-context.ts";
import type { StepOutcome } from "../run-outcome.ts";
import { checkApprovedCall } from "./check-approved-call.ts";
import { executeToolCall } from "./execute-tool-call.ts";
import { documentRevisionNow, emailRevisionNow, reparkForApproval } from "./park-for-approval.ts";
import { argumentsTextOf, type PendingCall } from "./pending-call.ts";
import type { RunExecution } from "./run-execution.ts";
import { runToolCalls } from "./run-tool-calls.ts";
import { answerWithoutRunning } from "./trace-tool-call.ts";

const OUTCOME_UNKNOWN = "outcome unknown: the worker executing this call stopped before recording its result; check the current state before repeating it";

/**
 * Continues the calls a previous execution left open, after a crash or an approval decision. A call
 * that started and has no result is re-run only if its tool is read-only; a side-effecting one is
 * answered "outcome unknown" and never executed twice (invariant 3). Decided approvals are applied;
 * while one is undecided the run parks again. Calls not handled yet go through the round's checks.
 */
export async function resumeOpenCalls(execution: RunExecution): Promise<StepOutcome> {
  const pending: PendingCall[] = [];
  for (const open of execution.context.openToolCalls) {
    const interruption = execution.interruption();
    if (interruption) return { kind: "stop", outcome: interruption };
    const call = pendingCallOf(open);
    const tool = execution.dependencies.tools.get(open.tool);
    switch (open.status) {
      case "pending":
        pending.push(call);
        break;
      case "started":
        if (tool && isReadOnlyTool(tool)) {
          const parsed = parseToolArguments(tool, call.argumentsText);
          if (parsed.ok) await executeToolCall(execution, call, tool, parsed.args);
          else await answerWithoutRunning(execution, call, "refused", parsed.error);
        } else {
          await answerWithoutRunning(execution, call, "outcome_unknown", OUTCOME_UNKNOWN);
        }
        break;
      case "awaiting_approval": {
        const approval = open.approval;
        if (!approval || approval.status === "pending") return reparkForApproval(execution);
        if (approval.status === "denied") {
          await answerWithoutRunning(execution, call, "denied", "the user denied this call");
        } else if (approval.status === "cancelled") {
          await answerWithoutRunning(execution, call, "withdrawn", "not executed: its approval was withdrawn");
        } else {
          const check = await checkApprovedCall({
            toolName: call.name,
            tool,
            approval,
            approvalSecret: execution.dependencies.approvalSecret,
            offer: execution.offerContext,
            workspace: execution.context.workspace,
            documentRevision: (documentId) => documentRevisionNow(execution, documentId),
            emailRevision: (emailId) => emailRevisionNow(execution, emailId),
          });
          if (check.kind === "execute") await executeToolCall(execution, call, check.tool, check.args);
          else await answerWithoutRunning(execution, call, "refused", check.error);
        }
        break;
      }
    }
  }
  if (pending.length === 0) return { kind: "next_round" };
  const { roundTainted, roundTaintSources, roundTools } = execution.loopState;
  const { run } = execution.context;
  return runToolCalls(execution, pending, {
    tainted: roundTainted ?? run.tainted,
    // The sources that had entered when the calls' round began (calls resumed above may have added more).
    taintedBy: run.taintedBy.slice(0, roundTaintSources ?? undefined),
    sentTools: roundTools,
  });
}

function pendingCallOf(open: OpenToolCall): PendingCall {
  return {
    rowId: open.rowId,
    callId: open.callId,
    name: open.tool,
    argumentsText: argumentsTextOf(open.arguments),
    round: open.round,
    position: open.position,
  };
}
