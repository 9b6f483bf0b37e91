import { createHmac, timingSafeEqual } from "node:crypto";
import { canonicalDigest, canonicalJson } from "../runs/guards/call-signature.ts";

/** Bumped whenever the meaning of effects, taint or grants changes: older approvals are then refused. */
export const POLICY_VERSION = "1";

/** The fields an approval binds: a decision applies to exactly this call, nothing else. */
export interface SealedApprovalFields {
  id: string;
  runId: string;
  chatId: string;
  userId: string;
  toolCallId: string;
  tool: string;
  argumentsHash: string;
  workspaceId: string | null;
  effects: readonly string[];
  targetPath: string | null;
  targetRevision: string | null;
  /**
   * The document a call changes (documents family); targetRevision is then its revision. Absent or
   * null for every other call, and then left out of the sealed payload, so records sealed before
   * documents existed still verify.
   */
  targetDocumentId?: string | null;
  /** The email a send_email call sends; targetRevision is then its content's hash. Left out of the payload when absent, like targetDocumentId. */
  targetEmailId?: string | null;
  policyVersion: string;
  expiresAt: Date;
}

export function hashArguments(args: unknown): string {
  return canonicalDigest(args);
}

function sealPayload(fields: SealedApprovalFields): string {
  const { targetDocumentId, targetEmailId, ...rest } = fields;
  return canonicalJson({
    ...rest,
    ...(targetDocumentId ? { targetDocumentId } : {}),
    ...(targetEmailId ? { targetEmailId } : {}),
    effects: [...fields.effects].sort(),
    expiresAt: fields.expiresAt.toISOString(),
  });
}

/** HMAC-SHA256 with APPROVAL_SECRET: a record edited in the database no longer verifies. */
export function sealApproval(secret: string, fields: SealedApprovalFields): string {
  return createHmac("sha256", secret).update(sealPayload(fields)).digest("base64url");
}

export function verifyApprovalSeal(secret: string, fields: SealedApprovalFields, seal: string): boolean {
  const expected = Buffer.from(sealApproval(secret, fields));
  const given = Buffer.from(seal);
  return expected.length === given.length && timingSafeEqual(expected, given);
}

/** A stored approval row carries the sealed fields plus its arguments and seal. */
export type StoredApproval = SealedApprovalFields & { arguments: unknown; seal: string };

/** The fields of a stored approval that its seal covers. */
export function sealedFieldsOf(approval: SealedApprovalFields): SealedApprovalFields {
  return {
    id: approval.id,
    runId: approval.runId,
    chatId: approval.chatId,
    userId: approval.userId,
    toolCallId: approval.toolCallId,
    tool: approval.tool,
    argumentsHash: approval.argumentsHash,
    workspaceId: approval.workspaceId,
    effects: approval.effects,
    targetPath: approval.targetPath,
    targetRevision: approval.targetRevision,
    targetDocumentId: approval.targetDocumentId ?? null,
    targetEmailId: approval.targetEmailId ?? null,
    policyVersion: approval.policyVersion,
    expiresAt: approval.expiresAt,
  };
}

/**
 * The stored record is intact: its seal verifies and its arguments still hash to what was sealed.
 * A record altered in the database fails, and is treated like a forged id.
 */
export function isApprovalIntact(secret: string, approval: StoredApproval): boolean {
  return verifyApprovalSeal(secret, sealedFieldsOf(approval), approval.seal) && hashArguments(approval.arguments) === approval.argumentsHash;
}
