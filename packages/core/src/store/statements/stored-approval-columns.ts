import { z } from "zod";
import { ApprovalStatus } from "../generated/enums.ts";

// A module of its own: the run's context (run-context-statements.ts) and an approval decision's read
// (approval-statements.ts, which reads that context too) both parse stored approvals.

/** The columns of a stored approval record (what its seal binds, its status and the user's edit), less its expiry. */
export const storedApprovalColumns = {
  id: z.string(),
  runId: z.string(),
  chatId: z.string(),
  userId: z.string(),
  toolCallId: z.string(),
  tool: z.string(),
  arguments: z.unknown(),
  argumentsHash: z.string(),
  workspaceId: z.string().nullable(),
  effects: z.array(z.string()),
  targetPath: z.string().nullable(),
  targetRevision: z.string().nullable(),
  targetDocumentId: z.string().nullable().optional(),
  targetEmailId: z.string().nullable().optional(),
  policyVersion: z.string(),
  seal: z.string(),
  status: z.enum(ApprovalStatus),
  editedArguments: z.unknown(),
};
