import { useQuery } from "@tanstack/react-query";
import { api, unwrap } from "./client.ts";
import { queryKeys } from "./query-keys.ts";
import type { ToolQuery } from "./types.ts";

/** The query string wants "true"/"false" for switches. */
function toolQueryParameters(query: ToolQuery): Record<string, string> {
  const parameters: Record<string, string> = {};
  if (query.workspace_id) parameters.workspace_id = query.workspace_id;
  if (query.mode) parameters.mode = query.mode;
  for (const name of ["allow_bash", "allow_web_search", "use_web"] as const) {
    const value = query[name];
    if (value !== undefined) parameters[name] = String(value);
  }
  return parameters;
}

/** What a run with these switches would be offered (GET /api/tools). */
export function useTools(query: ToolQuery, enabled = true) {
  return useQuery({
    queryKey: queryKeys.tools(query),
    queryFn: async ({ signal }) => unwrap(api.GET("/api/tools", { params: { query: toolQueryParameters(query) }, signal })).then((body) => body.tools),
    enabled,
    staleTime: 60_000,
  });
}
