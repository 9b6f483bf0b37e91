import { useQuery } from "@tanstack/react-query";
import { api, unwrap } from "./client.ts";
import { queryKeys } from "./query-keys.ts";

export function useMe(enabled = true) {
  return useQuery({
    queryKey: queryKeys.me,
    queryFn: async ({ signal }) => unwrap(api.GET("/api/me", { signal })),
    enabled,
    staleTime: 5 * 60_000,
  });
}

/** The caller with their usage, kept fresh while the console is open (the header shows it). */
export function useMyUsage() {
  return useQuery({
    queryKey: queryKeys.me,
    queryFn: async ({ signal }) => unwrap(api.GET("/api/me", { signal })),
    refetchInterval: 30_000,
  });
}
