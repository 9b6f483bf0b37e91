import { describe, expect, it } from "vitest";
import { handedOverRun, type ResumeHandover } from "./resume-handover.ts";

/** An approval as the context statement builds it (store/statements/run-context-statements.ts). */
function approvalJson(id: string, toolCallId: string) {
  return {
    id,
    runId: "run_1",
    chatId: "chat_1",
    userId: "user_1",
    toolCallId,
    tool: "write_file",
    arguments: { path: `${toolCallId}.txt`, content: "x" },
    argumentsHash: "hash",
    workspaceId: "ws_1",
    effects: ["write"],
    targetPath: `${toolCallId}.txt`,
    targetRevision: null,
    targetDocumentId: null,
    targetEmailId: null,
    policyVersion: "1",
    expiresAt: "2026-12-08T10:00:00.123+00:00",
    seal: "seal",
    status: "pending",
    editedArguments: null,
  };
}

/** A parked run's context as the decision's read returns it: two calls waiting for approval, one grant of the chat. */
const context = JSON.stringify({
  id: "run_1",
  chat_id: "chat_1",
  user_id: "user_1",
  status: "awaiting_approval",
  input: "write two files",
  model: "fake",
  mode: "agent",
  allow_bash: false,
  allow_web_search: false,
  use_web: false,
  tools: [],
  rounds: 2,
  tool_calls: 1,
  tainted: true,
  tainted_by: [{ run_id: "run_1", tool_call_id: "call_0", tool: "read_file", detail: "a.txt" }],
  cancel_requested: false,
  loop_state: null,
  role: "user",
  user_tokens_per_day: null,
  workspace_id: "ws_1",
  workspace_root: "/tmp/ws_1",
  settings: [],
  messages: [{ role: "user", content: "write two files", toolCalls: null, toolCallId: null }],
  grants: [{ tool: "read_file", effects: ["read"] }],
  chat_tainted_runs: [],
  open_calls: ["call_1", "call_2"].map((callId, position) => ({
    rowId: `row_${callId}`,
    callId,
    round: 2,
    position,
    tool: "write_file",
    arguments: { path: `${callId}.txt`, content: "x" },
    status: "awaiting_approval",
    approval: approvalJson(`apr_${callId}`, callId),
  })),
});

const lease = { runId: "run_1", leaseVersion: 4, owner: "worker-a" };

describe("handedOverRun", () => {
  it("applies what the decision committed to the context it read: the decided approvals, the edit, the grant", () => {
    const handover: ResumeHandover = {
      context,
      decided: [
        { approvalId: "apr_call_1", status: "allowed", editedArguments: { path: "call_1.txt", content: "edited" } },
        { approvalId: "apr_call_2", status: "allowed" },
      ],
      grant: { tool: "write_file", effects: ["write"] },
    };
    const handed = handedOverRun(handover, lease);
    expect(handed.lease).toEqual({ ...lease, resumed: true, previousStatus: "queued" });
    expect(handed.admissionAwaited).toBe(false);
    expect(handed.context.run.status).toBe("queued");
    expect(handed.context.openToolCalls.map((call) => [call.approval?.status, call.approval?.editedArguments])).toEqual([
      ["allowed", { path: "call_1.txt", content: "edited" }],
      ["allowed", null],
    ]);
    expect(handed.context.openToolCalls[0]?.approval?.expiresAt).toEqual(new Date("2026-12-08T10:00:00.123Z"));
    expect(handed.context.grants).toEqual([
      { tool: "read_file", effects: ["read"] },
      { tool: "write_file", effects: ["write"] },
    ]);
  });

  it("leaves the approvals a decision did not decide pending, and the grants alone after a deny", () => {
    const handed = handedOverRun({ context, decided: [{ approvalId: "apr_call_2", status: "denied" }], grant: null }, lease);
    expect(handed.context.openToolCalls.map((call) => call.approval?.status)).toEqual(["pending", "denied"]);
    expect(handed.context.grants).toEqual([{ tool: "read_file", effects: ["read"] }]);
  });

  it("refuses a context of another run, or one that is not a run's context", () => {
    expect(() => handedOverRun({ context, decided: [], grant: null }, { ...lease, runId: "run_2" })).toThrow(/run_1, not run_2/);
    expect(() => handedOverRun({ context: '{"id":"run_1"}', decided: [], grant: null }, lease)).toThrow();
  });
});
