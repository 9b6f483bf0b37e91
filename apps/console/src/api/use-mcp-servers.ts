import { useMutation, useQuery, useQueryClient } from "@tanstack/react-query";
import { api, unwrap } from "./client.ts";
import { queryKeys } from "./query-keys.ts";
import type { McpServer, McpServerRegistration } from "./types.ts";

/** How often the list is read again while a server is not yet connected (workers report within seconds). */
const PENDING_REFRESH_MS = 2000;

/** The registered MCP servers with their status (admins only). Refreshed while one is still connecting. */
export function useMcpServers(enabled = true) {
  return useQuery({
    queryKey: queryKeys.mcpServers.list(),
    queryFn: async ({ signal }) => (await unwrap(api.GET("/api/mcp/servers", { signal }))).servers,
    enabled,
    refetchInterval: (query) => ((query.state.data as McpServer[] | undefined)?.some((server) => server.status === "connecting") ? PENDING_REFRESH_MS : false),
  });
}

/** The tools a server listed (as a worker last saw them). */
export function useMcpServerTools(name: string, enabled = true) {
  return useQuery({
    queryKey: queryKeys.mcpServers.tools(name),
    queryFn: async ({ signal }) => (await unwrap(api.GET("/api/mcp/servers/{name}/tools", { params: { path: { name } }, signal }))).tools,
    enabled,
  });
}

export function useAddMcpServer() {
  const queryClient = useQueryClient();
  return useMutation({
    mutationFn: async (registration: McpServerRegistration) => unwrap(api.POST("/api/mcp/servers", { body: registration })),
    onSuccess: () => queryClient.invalidateQueries({ queryKey: queryKeys.mcpServers.all }),
  });
}

export function useRemoveMcpServer() {
  const queryClient = useQueryClient();
  return useMutation({
    mutationFn: async (name: string) => {
      await unwrap(api.DELETE("/api/mcp/servers/{name}", { params: { path: { name } } }));
    },
    onSuccess: () => queryClient.invalidateQueries({ queryKey: queryKeys.mcpServers.all }),
  });
}
