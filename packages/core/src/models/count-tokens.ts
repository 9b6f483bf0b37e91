import { createRequire } from "node:module";
import { Tiktoken, type TiktokenBPE } from "js-tiktoken/lite";
import type { ModelMessage, ModelToolSchema } from "./model-client.ts";

/** Counts the tokens of a text. Injectable where exactness matters less than speed (tests, fakes). */
export type CountTokens = (text: string) => number;

/**
 * Overheads from OpenAI's published counting recipe for chat models: each message costs its
 * role and separators (~3 tokens) on top of its content, and the reply is primed with 3 more.
 * Other providers and local models tokenize differently; cl100k_base is a close-enough common
 * measure for budgeting (within ~10-20% of GPT-4o, Llama and Claude), which is why budgets keep headroom.
 */
export const TOKENS_PER_MESSAGE = 3;
export const TOKENS_PER_REPLY = 3;
/** A tool call adds its id, type and the function wrapper around name and arguments. */
export const TOKENS_PER_TOOL_CALL = 8;
/** Each tool schema is rendered into the prompt with some framing around its JSON. */
export const TOKENS_PER_TOOL_SCHEMA = 8;

let encoder: Tiktoken | undefined;
/** Histories are recounted every round; caching long strings makes that a lookup. */
const cache = new Map<string, number>();
let cachedChars = 0;
/** The cache holds at most this many characters (~16 MB), so it never pins large tool outputs for long. */
const CACHE_CHAR_LIMIT = 8_000_000;
const CACHE_MIN_LENGTH = 64;
/**
 * js-tiktoken encodes ~1-2 MB/s and blocks the event loop meanwhile (and every run this worker
 * drives with it). Texts longer than this are counted from their head and tail and extrapolated:
 * close enough for a budget, and bounded in time.
 */
const EXACT_COUNT_CHAR_LIMIT = 262_144;
const SAMPLE_CHARS = 65_536;

/**
 * The cl100k_base BPE ranks (1 MB, shipped inside js-tiktoken: no network) are loaded on first
 * use, not at import, so processes that never count tokens do not pay for them. cl100k rather than
 * o200k: js-tiktoken builds its rank maps in the constructor, which takes ~1 s for cl100k and twice
 * that for o200k, and neither is the exact tokenizer of Llama or Claude anyway.
 */
function getEncoder(): Tiktoken {
  if (!encoder) {
    const require = createRequire(import.meta.url);
    const ranks = require("js-tiktoken/ranks/cl100k_base") as TiktokenBPE;
    encoder = new Tiktoken(ranks);
  }
  return encoder;
}

/**
 * Loads the tokenizer now. It blocks for about a second, so a worker calls this at boot rather
 * than paying it inside its first run's round.
 */
export function warmUpTokenizer(): void {
  getEncoder();
}

/**
 * Tokens of `text` under cl100k_base (estimated from a head and tail sample above 256 KiB).
 * Special-token strings in the text are counted as plain text.
 */
export const countTokens: CountTokens = (text) => {
  if (text.length === 0) return 0;
  if (text.length < CACHE_MIN_LENGTH) return encodeLength(text);
  const cached = cache.get(text);
  if (cached !== undefined) {
    // Refresh recency: Map iteration order is insertion order, so the first key is the least recently used.
    cache.delete(text);
    cache.set(text, cached);
    return cached;
  }
  const count =
    text.length <= EXACT_COUNT_CHAR_LIMIT
      ? encodeLength(text)
      : Math.ceil(((encodeLength(text.slice(0, SAMPLE_CHARS)) + encodeLength(text.slice(-SAMPLE_CHARS))) * text.length) / (2 * SAMPLE_CHARS));
  if (text.length <= CACHE_CHAR_LIMIT / 8) {
    cache.set(text, count);
    cachedChars += text.length;
    for (const oldest of cache.keys()) {
      if (cachedChars <= CACHE_CHAR_LIMIT) break;
      cache.delete(oldest);
      cachedChars -= oldest.length;
    }
  }
  return count;
};

function encodeLength(text: string): number {
  return getEncoder().encode(text, [], []).length;
}

/** Tokens one message costs in a request, overhead included. */
export function countOneMessageTokens(message: ModelMessage, count: CountTokens = countTokens): number {
  let tokens = TOKENS_PER_MESSAGE + count(message.role);
  if (message.content) tokens += count(message.content);
  if (message.role === "assistant" && message.toolCalls) {
    for (const call of message.toolCalls) tokens += TOKENS_PER_TOOL_CALL + count(call.name) + count(call.argumentsText);
  }
  if (message.role === "tool") tokens += count(message.toolCallId);
  return tokens;
}

/** Tokens the tool schemas cost in a request. */
export function countToolTokens(tools: readonly ModelToolSchema[], count: CountTokens = countTokens): number {
  let tokens = 0;
  for (const tool of tools) {
    tokens += TOKENS_PER_TOOL_SCHEMA + count(tool.name) + count(tool.description) + count(JSON.stringify(tool.parameters));
  }
  return tokens;
}

/** Input tokens of a whole request: every message, the tool schemas and the reply priming. */
export function countMessageTokens(messages: readonly ModelMessage[], tools: readonly ModelToolSchema[] = [], count: CountTokens = countTokens): number {
  let tokens = TOKENS_PER_REPLY + countToolTokens(tools, count);
  for (const message of messages) tokens += countOneMessageTokens(message, count);
  return tokens;
}
