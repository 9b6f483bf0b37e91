import { describe, expect, it } from "vitest";
import { ModelProviderError } from "./model-errors.ts";
import { contextWindowFor, DEFAULT_CONTEXT_WINDOW } from "./context-window.ts";
import { createModelRouter } from "./model-router.ts";

describe("createModelRouter", () => {
  const router = createModelRouter({ openai: { baseURL: "http://127.0.0.1:9/v1" }, anthropic: { apiKey: "k", baseURL: "http://127.0.0.1:9" } });

  it("sends anthropic/<model> to Anthropic without the prefix, anything else unchanged to the OpenAI endpoint", () => {
    const claude = router.resolve("anthropic/claude-sonnet-4-5");
    const llama = router.resolve("meta-llama/Llama-3.1-8B-Instruct");
    expect(claude.model).toBe("claude-sonnet-4-5");
    expect(claude.contextWindow).toBe(200_000);
    expect(llama.model).toBe("meta-llama/Llama-3.1-8B-Instruct");
    expect(llama.contextWindow).toBe(131_072);
    expect(claude.client).not.toBe(llama.client);
    expect(router.resolve("anthropic/claude-haiku-4-5").client).toBe(claude.client);
    expect(router.resolve("gpt-4o").client).toBe(llama.client);
  });

  it("refuses an Anthropic model when no Anthropic key is configured, saying so", () => {
    const withoutKey = createModelRouter({ openai: { baseURL: "http://127.0.0.1:9/v1" } });
    const error = (() => {
      try {
        withoutKey.resolve("anthropic/claude-opus-4");
      } catch (caught) {
        return caught;
      }
    })();
    expect(error).toBeInstanceOf(ModelProviderError);
    expect((error as ModelProviderError).code).toBe("model_provider_not_configured");
    expect((error as ModelProviderError).message).toContain("set ANTHROPIC_API_KEY");
    expect((error as ModelProviderError).retryable).toBe(false);
    expect(withoutKey.resolve("llama3.1").model).toBe("llama3.1");
  });
});

describe("contextWindowFor", () => {
  it("knows well-known models and falls back to 8192", () => {
    expect(contextWindowFor("gpt-4o")).toBe(128_000);
    expect(contextWindowFor("gpt-4o-mini-2024-07-18")).toBe(128_000);
    expect(contextWindowFor("gpt-4")).toBe(8_192);
    expect(contextWindowFor("anthropic/claude-3-5-haiku-latest")).toBe(200_000);
    expect(contextWindowFor("llama3.1:8b")).toBe(131_072);
    expect(contextWindowFor("llama3:70b")).toBe(8_192);
    expect(contextWindowFor("my-finetune")).toBe(DEFAULT_CONTEXT_WINDOW);
    expect(DEFAULT_CONTEXT_WINDOW).toBe(8192);
  });
});
