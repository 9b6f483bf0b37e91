import { useMutation, useQuery, useQueryClient } from "@tanstack/react-query";
import { api, unwrap } from "./client.ts";
import { queryKeys } from "./query-keys.ts";
import type { WorkspaceFile } from "./types.ts";

export function useWorkspaces() {
  return useQuery({
    queryKey: queryKeys.workspaces.list(),
    queryFn: async ({ signal }) => unwrap(api.GET("/api/workspaces", { signal })).then((body) => body.workspaces),
  });
}

export function useCreateWorkspace() {
  const queryClient = useQueryClient();
  return useMutation({
    mutationFn: async (name: string) => unwrap(api.POST("/api/workspaces", { body: { name } })),
    onSuccess: () => queryClient.invalidateQueries({ queryKey: queryKeys.workspaces.list() }),
  });
}

/** One directory's entries; `path` "" is the workspace's root. Fetched when the directory is opened. */
export function useWorkspaceTree(workspaceId: string, path: string, enabled = true) {
  return useQuery({
    queryKey: queryKeys.workspaces.tree(workspaceId, path),
    queryFn: async ({ signal }) => unwrap(api.GET("/api/workspaces/{id}/tree", { params: { path: { id: workspaceId }, query: path ? { path } : {} }, signal })),
    enabled,
  });
}

export function readWorkspaceFile(workspaceId: string, path: string, signal?: AbortSignal): Promise<WorkspaceFile> {
  return unwrap(api.GET("/api/workspaces/{id}/files/{path}", { params: { path: { id: workspaceId, path } }, signal }));
}

export function useWorkspaceFile(workspaceId: string, path: string | undefined) {
  return useQuery({
    queryKey: queryKeys.workspaces.file(workspaceId, path ?? ""),
    queryFn: async ({ signal }) => readWorkspaceFile(workspaceId, path!, signal),
    enabled: path !== undefined,
    // The editor holds what was opened; a background refetch must not swap content under the cursor.
    staleTime: Number.POSITIVE_INFINITY,
    refetchOnWindowFocus: false,
    retry: false,
  });
}

export function useSaveWorkspaceFile(workspaceId: string) {
  const queryClient = useQueryClient();
  return useMutation({
    /** `baseRevision`: write only over that revision (null: only a new file); undefined: replace whatever is there. */
    mutationFn: async (input: { path: string; content: string; baseRevision?: string | null }) =>
      unwrap(
        api.PUT("/api/workspaces/{id}/files/{path}", {
          params: { path: { id: workspaceId, path: input.path } },
          body: { content: input.content, ...(input.baseRevision === undefined ? {} : { base_revision: input.baseRevision }) },
        }),
      ),
    onSuccess: (saved, input) => {
      queryClient.setQueryData(queryKeys.workspaces.file(workspaceId, saved.path), { path: saved.path, content: input.content, revision: saved.revision });
      return queryClient.invalidateQueries({ queryKey: ["workspaces", "tree", workspaceId] });
    },
  });
}
