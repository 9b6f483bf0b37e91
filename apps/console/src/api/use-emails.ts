import { useMutation, useQuery, useQueryClient } from "@tanstack/react-query";
import { api, unwrap } from "./client.ts";
import { queryKeys } from "./query-keys.ts";
import type { Email } from "./types.ts";

/** While a send is under way the list refreshes, so its outcome appears without a reload. */
const SENDING_REFRESH_MS = 2_000;

export interface EmailFields {
  to: string[];
  cc: string[];
  subject: string;
  body: string;
}

export function useEmails() {
  return useQuery({
    queryKey: queryKeys.emails.list(),
    queryFn: async ({ signal }) => unwrap(api.GET("/api/emails", { signal })).then((body) => body.emails),
    refetchInterval: (query) => (query.state.data?.some((email: Email) => email.status === "sending" && email.error === null) ? SENDING_REFRESH_MS : false),
  });
}

function useEmailMutation<Variables>(mutationFn: (variables: Variables) => Promise<unknown>) {
  const queryClient = useQueryClient();
  return useMutation({ mutationFn, onSettled: () => queryClient.invalidateQueries({ queryKey: queryKeys.emails.all }) });
}

export function useCreateEmail() {
  return useEmailMutation((fields: EmailFields) => unwrap(api.POST("/api/emails", { body: fields })));
}

export function useUpdateEmail() {
  return useEmailMutation(({ id, fields }: { id: string; fields: EmailFields }) =>
    unwrap(api.PATCH("/api/emails/{id}", { params: { path: { id } }, body: fields })),
  );
}

export function useDeleteEmail() {
  return useEmailMutation((id: string) => unwrap(api.DELETE("/api/emails/{id}", { params: { path: { id } } })));
}

export function useSendEmail() {
  return useEmailMutation((id: string) => unwrap(api.POST("/api/emails/{id}/send", { params: { path: { id } } })));
}
