import { describe, expect, it } from "vitest";
import { settingRangesFrom } from "./use-setting-ranges.ts";

describe("settingRangesFrom", () => {
  it("reads each setting's range and default from the OpenAPI document", () => {
    const document = {
      components: {
        schemas: {
          Settings: {
            properties: {
              agent_max_rounds: { type: "integer", minimum: 1, maximum: 200, default: 20 },
              web_fetch_allow: { type: "array", default: [] },
            },
          },
        },
      },
    };
    expect(settingRangesFrom(document)).toEqual({ agent_max_rounds: { min: 1, max: 200, default: 20 }, web_fetch_allow: { default: [] } });
  });

  it("is empty for a document without settings", () => {
    expect(settingRangesFrom({})).toEqual({});
  });
});
