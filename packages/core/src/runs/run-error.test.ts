import { describe, expect, it } from "vitest";
import { InvalidRequestError } from "../errors/agentq-error.ts";
import { ModelProviderError, StreamTimeoutError } from "../models/model-errors.ts";
import { runErrorOf } from "./run-error.ts";

describe("runErrorOf", () => {
  it("keeps a provider's own code and message", () => {
    expect(runErrorOf(new ModelProviderError("no route to the model server", { retryable: true, code: "model_provider_unreachable" }), "model_error")).toEqual({
      code: "model_provider_unreachable",
      message: "no route to the model server",
    });
    expect(runErrorOf(new ModelProviderError("bad key", { retryable: false }), "model_error").code).toBe("model_provider_error");
    expect(runErrorOf(new StreamTimeoutError(5000), "model_error").code).toBe("stream_timeout");
  });

  it("answers anything else with the fallback, keeping its message", () => {
    expect(runErrorOf(new InvalidRequestError("odd"), "model_unavailable")).toEqual({ code: "model_unavailable", message: "odd" });
    expect(runErrorOf(Object.assign(new Error("library error"), { code: "some_library_code" }), "model_error")).toEqual({
      code: "model_error",
      message: "library error",
    });
    expect(runErrorOf("a string", "model_error")).toEqual({ code: "model_error", message: "a string" });
  });
});
