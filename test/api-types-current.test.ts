import { readFile } from "node:fs/promises";
import { describe, expect, it } from "vitest";
import { API_TYPES_PATH, renderApiTypes } from "../scripts/generate-api-types.ts";

describe("the generated API types (packages/client/src/schema.gen.ts)", () => {
  it("are what the OpenAPI document gives now", async () => {
    const committed = await readFile(API_TYPES_PATH, "utf8").catch(() => "(missing)");
    const current = await renderApiTypes();
    // Not toBe: a diff of a whole generated file would drown the instruction.
    if (committed !== current) {
      expect.fail("packages/client/src/schema.gen.ts is out of date with the API's schemas: run `npm run generate:api-types` and commit the result");
    }
  });
});
