import { useInfiniteQuery, useMutation, useQuery } from "@tanstack/react-query";
import { api, unwrap } from "./client.ts";
import { queryKeys } from "./query-keys.ts";

/** How often the services view refreshes: workers record themselves every 10 s. */
const SERVICES_REFRESH_MS = 10_000;

/** GET /api/services (admins only), refreshed while the page is open. */
export function useServices(enabled = true) {
  return useQuery({
    queryKey: queryKeys.services,
    queryFn: async ({ signal }) => unwrap(api.GET("/api/services", { signal })),
    enabled,
    refetchInterval: SERVICES_REFRESH_MS,
  });
}

const AUDIT_PAGE_SIZE = 25;

/** The audit log, newest first, a page at a time (`next_before` names the next, older page). */
export function useAuditLog(enabled = true) {
  return useInfiniteQuery({
    queryKey: queryKeys.audit,
    queryFn: async ({ signal, pageParam }) =>
      unwrap(api.GET("/api/audit", { signal, params: { query: { limit: String(AUDIT_PAGE_SIZE), ...(pageParam ? { before: pageParam } : {}) } } })),
    initialPageParam: null as string | null,
    getNextPageParam: (page) => page.next_before,
    enabled,
  });
}

/** Sets the queue board's session cookie, then opens the board (Bull Board, /admin/queues) in a new tab. */
export function useOpenQueueBoard() {
  return useMutation({
    mutationFn: async () => {
      // Opened before the request so the browser counts it as the click's own window (no popup blocker).
      const board = window.open("about:blank", "_blank");
      try {
        await unwrap(api.POST("/api/queue-board/session"));
      } catch (error) {
        board?.close();
        throw error;
      }
      if (board) board.location.href = "/admin/queues/";
      else window.location.assign("/admin/queues/");
    },
  });
}
