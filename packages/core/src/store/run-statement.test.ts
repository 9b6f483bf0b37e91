import { describe, expect, it } from "vitest";
import { commitPartsOf, commitStatement, emptyStatementChange, type RunStatementChange, withoutNulCharacters } from "./run-statement.ts";

describe("withoutNulCharacters", () => {
  it("replaces NUL characters and leaves an escaped backslash followed by u0000 alone", () => {
    const json = JSON.stringify({ output: "a\u0000b", literal: "\\u0000", both: "\\\u0000" });
    const cleaned = JSON.parse(withoutNulCharacters(json));
    expect(cleaned.output).toBe("a\ufffdb");
    expect(cleaned.literal).toBe("\\u0000");
    expect(cleaned.both).toBe("\\\ufffd");
  });
});

describe("the commit statement's parts", () => {
  const change = (edit: (change: RunStatementChange) => void = () => {}) => {
    const staged = emptyStatementChange("run_1", 1);
    edit(staged);
    return staged;
  };
  const NO_PARTS = { events: false, messages: false, toolCallInserts: false, toolCallUpdates: false, approvals: false };

  it("a batch needs every part that one of its changes needs", () => {
    const step = change((staged) => {
      staged.events.push({ type: "round.started", data: { round: 1, tools: [] } });
      staged.messages.push({ id: "msg_1", role: "assistant", content: "hi" });
    });
    const answer = change((staged) => {
      staged.fileReads.push({ workspaceId: "ws_1", path: "a.txt", revision: "r1" });
    });
    const withdrawal = change((staged) => {
      staged.withdrawPendingApprovals = true;
    });
    const finish = change((staged) => {
      staged.finish = { output: "done", errorCode: null, errorMessage: null };
    });
    expect(commitPartsOf([change()])).toEqual(NO_PARTS);
    expect(commitPartsOf([finish])).toEqual(NO_PARTS);
    expect(commitPartsOf([step])).toEqual({ ...NO_PARTS, events: true, messages: true });
    expect(commitPartsOf([answer])).toEqual({ ...NO_PARTS, toolCallUpdates: true });
    expect(commitPartsOf([step, withdrawal, answer, finish])).toEqual({ ...NO_PARTS, events: true, messages: true, toolCallUpdates: true, approvals: true });
  });

  it("each kind of approval write, and an audit entry, needs the approvals part", () => {
    const approvalParts = [
      change((staged) => staged.approvals.push({} as RunStatementChange["approvals"][number])),
      change((staged) => staged.approvalDecisions.push({ id: "apr_1", status: "denied", decision: "deny", decidedBy: "usr_1" })),
      change((staged) => staged.grants.push({} as RunStatementChange["grants"][number])),
      change((staged) => {
        staged.withdrawPendingApprovals = true;
      }),
      change((staged) => {
        staged.auditEntry = { id: "aud_1", actorId: null, action: "approval.decided", target: "approval:apr_1", details: {} };
      }),
    ].map((staged) => commitPartsOf([staged]));
    expect(approvalParts).toEqual(Array.from({ length: 5 }, () => ({ ...NO_PARTS, approvals: true })));
  });

  it("a statement holds exactly the CTEs of its parts, under a name made of their codes in a fixed order", () => {
    const optional = ["ev", "hook", "chat", "msg", "tc_new", "tc_upd", "file_read", "apr", "apr_decided", "apr_withdrawn", "grant_new", "audit"];
    const ctesOf = (text: string) => optional.filter((cte) => text.includes(`\n${cte} AS (`));
    const bare = commitStatement(NO_PARTS);
    expect(bare.name).toBe("agentq_run_commit");
    expect(ctesOf(bare.text)).toEqual([]);
    // The next run of the chat, named by a finish, is looked up by every statement (a finish needs no part of its own).
    expect(bare.text).toContain("next_run");

    const all = commitStatement({ events: true, messages: true, toolCallInserts: true, toolCallUpdates: true, approvals: true });
    expect(all.name).toBe("agentq_run_commit_ev_msg_tci_tcu_apr");
    expect(ctesOf(all.text)).toEqual(optional);

    const answer = commitStatement({ ...NO_PARTS, toolCallUpdates: true, events: true });
    expect(answer.name).toBe("agentq_run_commit_ev_tcu");
    expect(ctesOf(answer.text)).toEqual(["ev", "hook", "tc_upd", "file_read"]);
    expect(commitStatement({ ...NO_PARTS, events: true, toolCallUpdates: true })).toBe(answer);
  });
});
