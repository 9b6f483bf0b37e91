import { describe, expect, it } from "vitest";
import { hashArguments, POLICY_VERSION, sealApproval, verifyApprovalSeal, type SealedApprovalFields } from "./approval-seal.ts";

const SECRET = "test-approval-secret-0123456789";

const fields: SealedApprovalFields = {
  id: "apr_1",
  runId: "run_1",
  chatId: "chat_1",
  userId: "user_1",
  toolCallId: "call_1",
  tool: "write_file",
  argumentsHash: hashArguments({ path: "a.txt", content: "x" }),
  workspaceId: "ws_1",
  effects: ["write", "process"],
  targetPath: "a.txt",
  targetRevision: "rev-1",
  policyVersion: POLICY_VERSION,
  expiresAt: new Date("2030-01-01T00:00:00.000Z"),
};

describe("approval seal", () => {
  it("verifies the fields it was made from, whatever the order of effects", () => {
    const seal = sealApproval(SECRET, fields);
    expect(verifyApprovalSeal(SECRET, fields, seal)).toBe(true);
    expect(verifyApprovalSeal(SECRET, { ...fields, effects: ["process", "write"] }, seal)).toBe(true);
  });

  it("fails when any sealed field changes", () => {
    const seal = sealApproval(SECRET, fields);
    const changes: Partial<SealedApprovalFields>[] = [
      { id: "apr_2" },
      { runId: "run_2" },
      { chatId: "chat_2" },
      { userId: "user_2" },
      { toolCallId: "call_2" },
      { tool: "run_command" },
      { argumentsHash: hashArguments({ path: "b.txt", content: "x" }) },
      { workspaceId: null },
      { effects: ["write"] },
      { targetPath: "b.txt" },
      { targetRevision: "rev-2" },
      { policyVersion: `${POLICY_VERSION}-next` },
      { expiresAt: new Date("2030-01-01T00:00:00.001Z") },
    ];
    for (const change of changes) expect({ change, valid: verifyApprovalSeal(SECRET, { ...fields, ...change }, seal) }).toEqual({ change, valid: false });
  });

  it("fails with another secret, a truncated seal, or a flipped bit", () => {
    const seal = sealApproval(SECRET, fields);
    expect(verifyApprovalSeal(`${SECRET}-other`, fields, seal)).toBe(false);
    expect(verifyApprovalSeal(SECRET, fields, seal.slice(1))).toBe(false);
    const bytes = Buffer.from(seal, "base64url");
    bytes[bytes.length - 1] = bytes[bytes.length - 1]! ^ 0x80;
    expect(verifyApprovalSeal(SECRET, fields, bytes.toString("base64url"))).toBe(false);
  });

  it("hashes arguments independently of key order", () => {
    expect(hashArguments({ a: 1, b: { c: 2, d: 3 } })).toBe(hashArguments({ b: { d: 3, c: 2 }, a: 1 }));
    expect(hashArguments({ a: 1 })).not.toBe(hashArguments({ a: 2 }));
  });
});

describe("approval seal of a call bound to a document", () => {
  const documentFields: SealedApprovalFields = { ...fields, tool: "update_document", targetPath: null, targetRevision: "3", targetDocumentId: "doc_1" };

  it("binds the document and its revision", () => {
    const seal = sealApproval(SECRET, documentFields);
    expect(verifyApprovalSeal(SECRET, documentFields, seal)).toBe(true);
    expect(verifyApprovalSeal(SECRET, { ...documentFields, targetDocumentId: "doc_2" }, seal)).toBe(false);
    expect(verifyApprovalSeal(SECRET, { ...documentFields, targetDocumentId: null }, seal)).toBe(false);
    expect(verifyApprovalSeal(SECRET, { ...documentFields, targetRevision: "4" }, seal)).toBe(false);
  });

  it("leaves a record without a document sealed as before documents existed", () => {
    const seal = sealApproval(SECRET, fields);
    expect(verifyApprovalSeal(SECRET, { ...fields, targetDocumentId: null }, seal)).toBe(true);
  });
});
