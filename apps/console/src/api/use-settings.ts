import { useMutation, useQuery, useQueryClient } from "@tanstack/react-query";
import { api, unwrap } from "./client.ts";
import { queryKeys } from "./query-keys.ts";
import type { components } from "./schema.gen.ts";
import type { Settings } from "./types.ts";

/** The settings by name: the admin form walks them, so a setting added to the API shows up without a console change. */
function byName(settings: components["schemas"]["Settings"]): Settings {
  return settings;
}

export function useSettings(enabled = true) {
  return useQuery({
    queryKey: queryKeys.settings,
    queryFn: async ({ signal }) => byName(await unwrap(api.GET("/api/settings", { signal }))),
    enabled,
  });
}

/** PATCH answers the stored settings, each clamped to its range. */
export function useUpdateSettings() {
  const queryClient = useQueryClient();
  return useMutation({
    // The form sends only settings it read from GET /api/settings, with their own types.
    mutationFn: async (changes: Settings) => byName(await unwrap(api.PATCH("/api/settings", { body: changes as components["schemas"]["SettingsPatch"] }))),
    onSuccess: (stored) => {
      queryClient.setQueryData(queryKeys.settings, stored);
      // The change is the audit log's newest entry.
      void queryClient.invalidateQueries({ queryKey: queryKeys.audit });
    },
  });
}
