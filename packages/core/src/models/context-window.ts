/**
 * Context windows (input + output tokens) of well-known models, matched by longest prefix of the
 * normalized name (lowercase, provider prefix such as `anthropic/` or `meta-llama/` removed,
 * Ollama tag such as `:8b` removed). Used to scale the input token budget to the model.
 *
 * For local servers the real limit is the server's setting, not the model's: Ollama runs models
 * with a small `num_ctx` (2048–4096 by default) unless configured, and silently drops the oldest
 * input beyond it. Operators who raise it set `agent_input_token_budget` explicitly.
 */
const CONTEXT_WINDOWS: readonly (readonly [prefix: string, tokens: number])[] = [
  ["gpt-4o", 128_000],
  ["gpt-4.1", 1_047_576],
  ["gpt-4-turbo", 128_000],
  ["gpt-4-32k", 32_768],
  ["gpt-4", 8_192],
  ["gpt-3.5-turbo", 16_385],
  ["gpt-5", 400_000],
  ["o1-mini", 128_000],
  ["o1", 200_000],
  ["o3", 200_000],
  ["o4-mini", 200_000],
  ["claude-", 200_000],
  ["llama3.1", 131_072],
  ["llama3.2", 131_072],
  ["llama3.3", 131_072],
  ["llama-3.1", 131_072],
  ["llama-3.2", 131_072],
  ["llama-3.3", 131_072],
  ["llama3", 8_192],
  ["llama-3", 8_192],
  ["qwen2.5", 32_768],
  ["qwen3", 40_960],
  ["mistral-large", 131_072],
  ["mistral-nemo", 131_072],
  ["mistral", 32_768],
  ["mixtral", 32_768],
  ["gemma3", 131_072],
  ["gemma2", 8_192],
  ["deepseek-r1", 131_072],
  ["deepseek-v3", 131_072],
  ["phi4", 16_384],
];

/** Unknown models get 8192: small enough to be safe on any current model, large enough to run an agent. */
export const DEFAULT_CONTEXT_WINDOW = 8192;

/** The context window of a model by its name; `fallback` (MODEL_CONTEXT_WINDOW) for names the table does not know. */
export function contextWindowFor(modelName: string, fallback = DEFAULT_CONTEXT_WINDOW): number {
  const normalized = normalizeModelName(modelName);
  let best: readonly [string, number] | undefined;
  for (const entry of CONTEXT_WINDOWS) {
    if (normalized.startsWith(entry[0]) && (!best || entry[0].length > best[0].length)) best = entry;
  }
  return best ? best[1] : fallback;
}

function normalizeModelName(modelName: string): string {
  const lower = modelName.trim().toLowerCase();
  const withoutProvider = lower.slice(lower.lastIndexOf("/") + 1);
  const colon = withoutProvider.indexOf(":");
  return colon >= 0 ? withoutProvider.slice(0, colon) : withoutProvider;
}
