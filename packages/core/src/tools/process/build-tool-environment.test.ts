import { describe, expect, it } from "vitest";
import { buildToolEnvironment } from "./build-tool-environment.ts";

describe("buildToolEnvironment", () => {
  it("keeps only the allowed variables that are set", () => {
    const environment = buildToolEnvironment(
      { PATH: "/usr/bin", HOME: "/home/agent", DATABASE_URL: "postgres://secret", OPENAI_API_KEY: "sk-x", LANG: undefined },
      ["PATH", " HOME ", "LANG", "TERM", ""],
    );
    expect(environment).toEqual({ PATH: "/usr/bin", HOME: "/home/agent" });
  });

  it("gives an empty environment for an empty allow-list", () => {
    expect(buildToolEnvironment({ PATH: "/usr/bin" }, [])).toEqual({});
  });
});
