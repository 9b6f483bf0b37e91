import { queryOptions, useInfiniteQuery, useMutation, useQueries, useQuery, useQueryClient } from "@tanstack/react-query";
import { api, unwrap } from "./client.ts";
import { queryKeys } from "./query-keys.ts";
import type { RunRequest } from "./types.ts";

const CHATS_PER_PAGE = 30;
/** Enough to find the chat's active run and its queued successors. */
const RUNS_PER_CHAT = 10;

export function useChatList() {
  return useInfiniteQuery({
    queryKey: queryKeys.chats.list(),
    queryFn: async ({ pageParam, signal }) =>
      unwrap(
        api.GET("/api/chats", {
          params: { query: { limit: String(CHATS_PER_PAGE), ...(pageParam ? { before: pageParam } : {}) } },
          signal,
        }),
      ),
    initialPageParam: "",
    getNextPageParam: (page) => page.next_before ?? undefined,
  });
}

function chatQuery(chatId: string) {
  return queryOptions({
    queryKey: queryKeys.chats.detail(chatId),
    queryFn: async ({ signal }) => unwrap(api.GET("/api/chats/{id}", { params: { path: { id: chatId } }, signal })),
  });
}

export function useChat(chatId: string) {
  return useQuery(chatQuery(chatId));
}

/** Several chats at once (the approvals inbox names each approval's chat); one result per id, in order. */
export function useChats(chatIds: readonly string[]) {
  return useQueries({ queries: chatIds.map((chatId) => chatQuery(chatId)) });
}

/** The chat's latest runs, newest first. */
export function useChatRuns(chatId: string) {
  return useQuery({
    queryKey: queryKeys.chats.runs(chatId),
    queryFn: async ({ signal }) =>
      unwrap(api.GET("/api/chats/{id}/runs", { params: { path: { id: chatId }, query: { limit: String(RUNS_PER_CHAT) } }, signal })).then((body) => body.runs),
  });
}

export function useCreateChat() {
  const queryClient = useQueryClient();
  return useMutation({
    mutationFn: async (input: { title?: string; workspace_id?: string }) => unwrap(api.POST("/api/chats", { body: input })),
    onSuccess: () => queryClient.invalidateQueries({ queryKey: queryKeys.chats.list() }),
  });
}

export function useStartRun(chatId: string) {
  const queryClient = useQueryClient();
  return useMutation({
    mutationFn: async (request: RunRequest) => unwrap(api.POST("/api/chats/{id}/runs", { params: { path: { id: chatId } }, body: request })),
    onSuccess: (run) => {
      queryClient.setQueryData(queryKeys.runs.detail(run.id), run);
      return Promise.all([
        queryClient.invalidateQueries({ queryKey: queryKeys.chats.runs(chatId) }),
        queryClient.invalidateQueries({ queryKey: queryKeys.chats.detail(chatId) }),
        queryClient.invalidateQueries({ queryKey: queryKeys.chats.list() }),
      ]);
    },
  });
}

export function useChatGrants(chatId: string) {
  return useQuery({
    queryKey: queryKeys.chats.grants(chatId),
    queryFn: async ({ signal }) => unwrap(api.GET("/api/chats/{id}/grants", { params: { path: { id: chatId } }, signal })).then((body) => body.grants),
  });
}

export function useRevokeGrant(chatId: string) {
  const queryClient = useQueryClient();
  return useMutation({
    mutationFn: async (grantId: string) => unwrap(api.DELETE("/api/chats/{id}/grants/{grantId}", { params: { path: { id: chatId, grantId } } })),
    onSuccess: () => queryClient.invalidateQueries({ queryKey: queryKeys.chats.grants(chatId) }),
  });
}

/** Every approval of the chat, decided or not, oldest first. */
export function useChatApprovals(chatId: string) {
  return useQuery({
    queryKey: queryKeys.chats.approvals(chatId),
    queryFn: async ({ signal }) => unwrap(api.GET("/api/chats/{id}/approvals", { params: { path: { id: chatId } }, signal })).then((body) => body.approvals),
  });
}
