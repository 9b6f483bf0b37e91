import { useMutation, useQuery, useQueryClient } from "@tanstack/react-query";
import { api, unwrap } from "./client.ts";
import { queryKeys } from "./query-keys.ts";
import { readToken, saveToken } from "./token-store.ts";
import type { Me, Role, UserChanges, UserWithUsage } from "./types.ts";

/** Every user of the deployment with their usage and limits (admins only: the API answers 403 to anyone else). */
export function useUsers(enabled = true) {
  return useQuery({
    queryKey: queryKeys.users.list(),
    queryFn: async ({ signal }) => (await unwrap(api.GET("/api/users", { signal }))).users,
    enabled,
    // Usage moves while runs run.
    refetchInterval: 30_000,
  });
}

/** The answer holds the new user's token: it is shown once and never again. */
export function useCreateUser() {
  const queryClient = useQueryClient();
  return useMutation({
    mutationFn: async (input: { name: string; role: Role }) => unwrap(api.POST("/api/users", { body: input })),
    onSuccess: () =>
      Promise.all([queryClient.invalidateQueries({ queryKey: queryKeys.users.all }), queryClient.invalidateQueries({ queryKey: queryKeys.audit })]),
  });
}

/** Changes a user's role, disabled flag or limits; the list shows the stored user at once, then the limits that now apply. */
export function useUpdateUser() {
  const queryClient = useQueryClient();
  return useMutation({
    mutationFn: async ({ userId, changes }: { userId: string; changes: UserChanges }) =>
      unwrap(api.PATCH("/api/users/{id}", { params: { path: { id: userId } }, body: changes })),
    onSuccess: (updated) => {
      queryClient.setQueryData<UserWithUsage[]>(queryKeys.users.list(), (users) =>
        users?.map((user) => (user.id === updated.id ? { ...user, ...updated } : user)),
      );
      void queryClient.invalidateQueries({ queryKey: queryKeys.users.list() });
      // An admin who stepped down sees the console as a user from now on.
      if (queryClient.getQueryData<Me>(queryKeys.me)?.id === updated.id) void queryClient.invalidateQueries({ queryKey: queryKeys.me });
    },
  });
}

/**
 * Replaces a user's token: the answer is the new token, shown once; the old one stops working at
 * once. Rotating one's own token keeps this session going with the new token.
 */
export function useRotateUserToken() {
  const queryClient = useQueryClient();
  return useMutation({
    mutationFn: async ({ userId }: { userId: string; name: string }) =>
      (await unwrap(api.POST("/api/users/{id}/token", { params: { path: { id: userId } } }))).token,
    onSuccess: (token, { userId }) => {
      if (queryClient.getQueryData<Me>(queryKeys.me)?.id === userId && readToken() !== null) saveToken(token);
    },
  });
}
