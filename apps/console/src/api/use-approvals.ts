import { useMutation, useQuery, useQueryClient } from "@tanstack/react-query";
import { api, unwrap } from "./client.ts";
import { queryKeys } from "./query-keys.ts";
import type { ApprovalDecision } from "./types.ts";

/** The inbox polls, so the count in the navigation follows approvals of runs nobody is watching. */
const INBOX_REFRESH_MS = 15_000;

export function usePendingApprovals() {
  return useQuery({
    queryKey: queryKeys.approvals.pending(),
    queryFn: async ({ signal }) => unwrap(api.GET("/api/approvals", { params: { query: { status: "pending" } }, signal })).then((body) => body.approvals),
    refetchInterval: INBOX_REFRESH_MS,
  });
}

export interface DecisionInput {
  approvalId: string;
  decision: ApprovalDecision;
  /** With an allow decision: the edited arguments that replace the proposed ones. */
  arguments?: Record<string, unknown>;
}

export function useDecideApproval() {
  const queryClient = useQueryClient();
  return useMutation({
    mutationFn: async (input: DecisionInput) =>
      unwrap(
        api.POST("/api/approvals", {
          body: {
            tool_approval_id: input.approvalId,
            tool_approval_decision: input.decision,
            ...(input.arguments === undefined ? {} : { arguments: input.arguments }),
          },
        }),
      ),
    // Decided or refused (stale, expired, already decided): what is pending has changed either way.
    onSettled: () =>
      Promise.all([
        queryClient.invalidateQueries({ queryKey: queryKeys.approvals.all }),
        queryClient.invalidateQueries({ queryKey: queryKeys.runs.all }),
        queryClient.invalidateQueries({ queryKey: queryKeys.chats.allRuns }),
        queryClient.invalidateQueries({ queryKey: queryKeys.chats.allApprovals }),
        queryClient.invalidateQueries({ queryKey: queryKeys.chats.allGrants }),
      ]),
  });
}
