import { isApprovalIntact } from "../../policy/approval-seal.ts";
import { decideToolOffer, type ToolOfferContext } from "../../policy/offered-tools.ts";
import { validateToolArguments } from "../../tools/parse-tool-arguments.ts";
import type { ToolDefinition, WorkspaceRef } from "../../tools/tool-definition.ts";
import { workspaceFileRevision } from "../../workspaces/workspace-files.ts";
import type { OpenCallApproval } from "../load-run-context.ts";

export interface CheckApprovedCallInput {
  toolName: string;
  /** Undefined when the tool no longer exists on this worker. */
  tool: ToolDefinition | undefined;
  approval: OpenCallApproval;
  approvalSecret: string;
  offer: ToolOfferContext;
  workspace: WorkspaceRef | null;
  /** The current revision of a document of the run's user (null: none), for calls bound to one. */
  documentRevision: (documentId: string) => Promise<string | null>;
  /** The current content revision of an email of the run's user (null: none), for sends bound to one. */
  emailRevision: (emailId: string) => Promise<string | null>;
}

export type ApprovedCallCheck = { kind: "execute"; tool: ToolDefinition; args: unknown } | { kind: "refuse"; error: string };

/**
 * An allowed call is checked again where it runs: the seal, the policy of now (the run's switches
 * or the user's role may have changed), the arguments (as edited by the user), and the revision of
 * the file it targets, which must be the one the person saw when deciding.
 */
export async function checkApprovedCall(input: CheckApprovedCallInput): Promise<ApprovedCallCheck> {
  const { tool, approval } = input;
  if (!isApprovalIntact(input.approvalSecret, approval)) return { kind: "refuse", error: "not executed: its approval record failed verification" };
  if (!tool) return { kind: "refuse", error: `there is no tool named "${input.toolName}"` };
  const offer = decideToolOffer(tool, input.offer);
  if (!offer.offered) return { kind: "refuse", error: `not executed: ${offer.reason}` };
  const validated = validateToolArguments(tool, approval.editedArguments ?? approval.arguments);
  if (!validated.ok) return { kind: "refuse", error: validated.error };
  const targetPath = tool.targetPath?.(validated.args) ?? null;
  if (input.workspace && targetPath && targetPath === approval.targetPath) {
    const revision = await workspaceFileRevision(input.workspace.rootPath, targetPath).catch(() => null);
    if (revision !== approval.targetRevision) {
      return { kind: "refuse", error: `not executed: ${targetPath} changed after the call was approved; read it again` };
    }
  }
  const targetDocumentId = tool.targetDocument?.(validated.args) ?? null;
  if (targetDocumentId && targetDocumentId === approval.targetDocumentId) {
    if ((await input.documentRevision(targetDocumentId)) !== approval.targetRevision) {
      return { kind: "refuse", error: `not executed: document ${targetDocumentId} changed after the call was approved; read it again` };
    }
  }
  const targetEmailId = tool.targetEmail?.(validated.args) ?? null;
  if (targetEmailId && targetEmailId === approval.targetEmailId) {
    if ((await input.emailRevision(targetEmailId)) !== approval.targetRevision) {
      return { kind: "refuse", error: `not executed: email ${targetEmailId} changed after the call was approved (recipients, subject or body); read it again` };
    }
  }
  return { kind: "execute", tool, args: validated.args };
}
