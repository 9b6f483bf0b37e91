import { z } from "zod";
import { ApprovalStatus } from "../generated/enums.ts";

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
