import { useMutation, useQuery, useQueryClient } from "@tanstack/react-query";
import { api, unwrap } from "./client.ts";
import { queryKeys } from "./query-keys.ts";
import type { WebhookDelivery, WebhookRegistration } from "./types.ts";

/** How often a webhook's deliveries are read again while one still waits for an attempt. */
const PENDING_REFRESH_MS = 3000;

export function useWebhooks() {
  return useQuery({
    queryKey: queryKeys.webhooks.list(),
    queryFn: async ({ signal }) => (await unwrap(api.GET("/api/webhooks", { signal }))).webhooks,
  });
}

/** A webhook's latest deliveries; refreshed while one is pending or being delivered. */
export function useWebhookDeliveries(webhookId: string, enabled = true) {
  return useQuery({
    queryKey: queryKeys.webhooks.deliveries(webhookId),
    queryFn: async ({ signal }) =>
      (await unwrap(api.GET("/api/webhooks/{id}/deliveries", { params: { path: { id: webhookId }, query: { limit: "50" } }, signal }))).deliveries,
    enabled,
    refetchInterval: (query) =>
      (query.state.data as WebhookDelivery[] | undefined)?.some((delivery) => delivery.status === "pending" || delivery.status === "delivering")
        ? PENDING_REFRESH_MS
        : false,
  });
}

export function useCreateWebhook() {
  const queryClient = useQueryClient();
  return useMutation({
    mutationFn: async (registration: WebhookRegistration) => unwrap(api.POST("/api/webhooks", { body: registration })),
    onSuccess: () => queryClient.invalidateQueries({ queryKey: queryKeys.webhooks.all }),
  });
}

export function useDeleteWebhook() {
  const queryClient = useQueryClient();
  return useMutation({
    mutationFn: async (webhookId: string) => {
      await unwrap(api.DELETE("/api/webhooks/{id}", { params: { path: { id: webhookId } } }));
    },
    onSuccess: () => queryClient.invalidateQueries({ queryKey: queryKeys.webhooks.all }),
  });
}
