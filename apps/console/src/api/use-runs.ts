import { useMutation, useQuery, useQueryClient } from "@tanstack/react-query";
import { api, unwrap } from "./client.ts";
import { queryKeys } from "./query-keys.ts";

export function useRun(runId: string | undefined) {
  return useQuery({
    queryKey: queryKeys.runs.detail(runId ?? ""),
    queryFn: async ({ signal }) => unwrap(api.GET("/api/runs/{id}", { params: { path: { id: runId! } }, signal })),
    enabled: runId !== undefined,
  });
}

export function useCancelRun() {
  const queryClient = useQueryClient();
  return useMutation({
    mutationFn: async (runId: string) => unwrap(api.POST("/api/runs/{id}/cancel", { params: { path: { id: runId } } })),
    onSettled: (run) =>
      Promise.all([
        queryClient.invalidateQueries({ queryKey: queryKeys.runs.all }),
        run ? queryClient.invalidateQueries({ queryKey: queryKeys.chats.runs(run.chat_id) }) : undefined,
        queryClient.invalidateQueries({ queryKey: queryKeys.approvals.all }),
      ]),
  });
}
