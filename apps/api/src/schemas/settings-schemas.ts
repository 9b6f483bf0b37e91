import { z } from "zod";
import { NUMERIC_SETTINGS, settingsPatchSchema, TOOL_FAMILY_FLAGS } from "@agentq/core";

type NumericSettingName = keyof typeof NUMERIC_SETTINGS;
type ToolFamilyFlag = keyof typeof TOOL_FAMILY_FLAGS;

// Each numeric setting carries its range (minimum, maximum) and default, read from core's one table,
// so a form can show and check them.
const numericSettings = Object.fromEntries(
  Object.entries(NUMERIC_SETTINGS).map(([name, setting]) => [
    name,
    z
      .number()
      .int()
      .min(setting.min)
      .max(setting.max)
      .meta({ default: setting.default, description: `${setting.min}-${setting.max}, default ${setting.default}` }),
  ]),
) as { [Name in NumericSettingName]: z.ZodNumber };

const familyFlags = Object.fromEntries(
  Object.entries(TOOL_FAMILY_FLAGS).map(([name, family]) => [name, z.boolean().meta({ default: true, description: `tools of the family \`${family}\`` })]),
) as { [Name in ToolFamilyFlag]: z.ZodBoolean };

/** GET /api/settings and the answer to PATCH: every setting, stored or default. */
export const settingsSchema = z
  .object({
    ...numericSettings,
    ...familyFlags,
    web_fetch_allow: z.array(z.string()).meta({ default: [], description: "hosts or CIDR ranges, optional port, that fetch_page may reach although private" }),
    process_network: z.boolean().meta({ default: false, description: "commands and jobs share the host's network" }),
    queue_board_actions: z.boolean().meta({ default: false, description: "the queue board (/admin/queues) may retry, promote and remove jobs" }),
    approval_always: z.array(z.string()).meta({
      default: [],
      description:
        "tool names, or prefixes ending in `*` (`mcp__github__*`), whose every call pauses for approval, tainted or not (a grant still covers later calls)",
    }),
  })
  .meta({ id: "Settings" });

/** PATCH /api/settings: any subset; numbers are clamped to their range, unknown fields refused. */
export const settingsPatchBodySchema = settingsPatchSchema.meta({
  id: "SettingsPatch",
  description: "any subset of the settings; a number outside its range is clamped to it (see `Settings` for the ranges)",
});
