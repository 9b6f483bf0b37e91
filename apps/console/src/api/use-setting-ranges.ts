import { useQuery } from "@tanstack/react-query";
import { api, unwrap } from "./client.ts";
import { queryKeys } from "./query-keys.ts";

export interface SettingRange {
  min?: number;
  max?: number;
  default?: unknown;
}

/** Reads `components.schemas.Settings.properties` of the OpenAPI document: each setting's range and default. */
export function settingRangesFrom(document: Record<string, unknown>): Record<string, SettingRange> {
  const components = document.components as { schemas?: Record<string, { properties?: Record<string, Record<string, unknown>> }> } | undefined;
  const properties = components?.schemas?.Settings?.properties ?? {};
  return Object.fromEntries(
    Object.entries(properties).map(([name, property]) => [
      name,
      {
        ...(typeof property.minimum === "number" ? { min: property.minimum } : {}),
        ...(typeof property.maximum === "number" ? { max: property.maximum } : {}),
        ...("default" in property ? { default: property.default } : {}),
      },
    ]),
  );
}

/**
 * The settings' ranges, from the API's own OpenAPI document (GET /api/openapi.json, no token needed):
 * the server clamps to these, so the form shows them instead of keeping a copy that could drift.
 */
export function useSettingRanges(enabled = true) {
  return useQuery({
    queryKey: queryKeys.openapi,
    queryFn: async ({ signal }) => unwrap(api.GET("/api/openapi.json", { signal })),
    select: settingRangesFrom,
    enabled,
    staleTime: Number.POSITIVE_INFINITY,
  });
}
