import type { ModelClient } from "./model-client.ts";
import { ModelProviderError } from "./model-errors.ts";
import { InvalidRequestError } from "../errors/agentq-error.ts";
import { createAnthropicModelClient, type AnthropicModelClientOptions } from "./anthropic/anthropic-model-client.ts";
import { contextWindowFor } from "./context-window.ts";
import { createDemoModelClient, DEMO_MODEL_NAME } from "./demo/demo-model-client.ts";
import { createOpenAIModelClient, type OpenAIModelClientOptions } from "./openai/openai-model-client.ts";

export interface ModelRouterOptions {
  /** The OpenAI-compatible endpoint every name without a known prefix goes to. */
  openai: OpenAIModelClientOptions;
  /** Anthropic; without an `apiKey`, `anthropic/...` models fail to resolve with a clear error. */
  anthropic?: Omit<AnthropicModelClientOptions, "apiKey"> & { apiKey?: string };
  /** Pause between the demo model's streamed words (`agentq/demo`). Default 15 ms. */
  demoWordDelayMs?: number;
  /** Context window lookup. Default: contextWindowFor. */
  contextWindowFor?: (modelName: string) => number;
}

export interface ResolvedModel {
  client: ModelClient;
  /** The provider-local model name (prefix removed). */
  model: string;
  /** Tokens, for scaling the input budget (resolveInputTokenBudget). */
  contextWindow: number;
}

export interface ModelRouter {
  resolve(modelName: string): ResolvedModel;
}

const ANTHROPIC_PREFIX = "anthropic/";

/**
 * Routes a run's model name to a provider (API.md, "Model names"): `agentq/demo` is the built-in demo
 * model (no server); `anthropic/<model>` goes to Anthropic with the prefix removed; anything else goes, unchanged, to the OpenAI-compatible
 * endpoint (whose model names may themselves contain slashes: `meta-llama/Llama-3.1-8B`).
 * One client per provider, created on first use and shared by all runs.
 */
export function createModelRouter(options: ModelRouterOptions): ModelRouter {
  const lookupContextWindow = options.contextWindowFor ?? contextWindowFor;
  let openaiClient: ModelClient | undefined;
  let anthropicClient: ModelClient | undefined;
  let demoClient: ModelClient | undefined;

  return {
    resolve(modelName) {
      const name = modelName.trim();
      if (name.toLowerCase() === DEMO_MODEL_NAME) {
        demoClient ??= createDemoModelClient({ wordDelayMs: options.demoWordDelayMs });
        return { client: demoClient, model: DEMO_MODEL_NAME, contextWindow: 128_000 };
      }
      if (name.toLowerCase().startsWith(ANTHROPIC_PREFIX)) {
        const model = name.slice(ANTHROPIC_PREFIX.length);
        if (model === "") throw new InvalidRequestError(`the model name "${modelName}" names no Anthropic model; use anthropic/<model>`, { field: "model" });
        const apiKey = options.anthropic?.apiKey;
        if (!apiKey) {
          throw new ModelProviderError(
            `the model "${name}" needs an Anthropic API key, and none is configured: set ANTHROPIC_API_KEY for the API and the workers`,
            {
              retryable: false,
              code: "model_provider_not_configured",
              details: { provider: "anthropic", model },
            },
          );
        }
        anthropicClient ??= createAnthropicModelClient({ ...options.anthropic, apiKey });
        return { client: anthropicClient, model, contextWindow: lookupContextWindow(name) };
      }
      if (name === "") throw new InvalidRequestError("the model name is empty", { field: "model" });
      openaiClient ??= createOpenAIModelClient(options.openai);
      return { client: openaiClient, model: name, contextWindow: lookupContextWindow(name) };
    },
  };
}
