import { contextWindowFor, createModelRouter, type ModelClient, ModelProviderError, type ModelResolver } from "@agentq/core";
import type { WorkerConfig } from "./config.ts";

/**
 * The providers of API.md ("Model names"), configured from the environment. A provider that cannot
 * be reached fails the run with a message that names the URL tried and the variable that sets it.
 */
export function createModelResolver(config: WorkerConfig): ModelResolver {
  const router = createModelRouter({
    openai: { baseURL: config.openaiBaseUrl, apiKey: config.openaiApiKey },
    anthropic: { apiKey: config.anthropicApiKey, baseURL: config.anthropicBaseUrl },
    contextWindowFor: (modelName) => contextWindowFor(modelName, config.defaultContextWindow),
  });
  return {
    resolve(modelName) {
      const resolved = router.resolve(modelName);
      const variable = modelName.trim().toLowerCase().startsWith("anthropic/") ? "ANTHROPIC_BASE_URL" : "OPENAI_BASE_URL";
      return { ...resolved, client: namingVariableOnFailure(resolved.client, variable) };
    },
  };
}

function namingVariableOnFailure(client: ModelClient, variable: string): ModelClient {
  return {
    async complete(request) {
      try {
        return await client.complete(request);
      } catch (error) {
        if (error instanceof ModelProviderError && error.code === "model_provider_unreachable") {
          throw new ModelProviderError(`${error.message} (the endpoint is set by ${variable})`, {
            retryable: true,
            code: error.code,
            details: { ...error.details, variable },
            cause: error,
          });
        }
        throw error;
      }
    },
  };
}
