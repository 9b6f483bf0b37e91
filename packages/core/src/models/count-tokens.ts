import { createRequire } from "node:module";
import type { TiktokenBPE } from "js-tiktoken/lite";
import type { ModelMessage, ModelToolSchema } from "./model-client.ts";
import { toolParametersJson } from "./tool-schema-json.ts";

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
 * Loads the tokenizer now (about 0.2 s of blocked event loop on this project's machine). Optional:
 * the first count loads it otherwise.
 */
export function warmUpTokenizer(): void {
  getRanks();
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

/**
 * cl100k_base's BPE ranks, keyed by each token's bytes as a one-byte-per-char string, loaded on
 * first use so that processes that never count tokens do not pay for them. Only counts are needed,
 * so this keeps one map of compact keys: js-tiktoken's own encoder also keeps every token's bytes
 * for decoding and keys its map by comma-joined decimals, which held ~59 MB per worker where this
 * holds ~10 MB, and built in ~1 s where this takes ~0.2 s. cl100k rather than o200k (twice the
 * ranks), and neither is the exact tokenizer of Llama or Claude anyway.
 */
let ranks: Map<string, number> | undefined;
let pattern: RegExp | undefined;

function getRanks(): Map<string, number> {
  if (ranks) return ranks;
  // The ranks file (1 MB, shipped inside js-tiktoken: no network): lines of "! <first rank> <base64 token>...".
  const bpe = createRequire(import.meta.url)("js-tiktoken/ranks/cl100k_base") as TiktokenBPE;
  const loaded = new Map<string, number>();
  for (const line of bpe.bpe_ranks.split("\n")) {
    if (!line) continue;
    const tokens = line.split(" ");
    const offset = Number.parseInt(tokens[1]!, 10);
    for (let index = 2; index < tokens.length; index += 1) loaded.set(Buffer.from(tokens[index]!, "base64").toString("latin1"), offset + index - 2);
  }
  pattern = new RegExp(bpe.pat_str, "gu");
  ranks = loaded;
  return loaded;
}

/**
 * Tokens of `text`: split by cl100k's pattern, each piece's UTF-8 bytes merged pairwise by rank
 * (tiktoken's algorithm; every single byte is a token, so every piece ends as whole tokens).
 * Special-token strings are plain text here.
 */
function encodeLength(text: string): number {
  const table = getRanks();
  let tokens = 0;
  for (const match of text.matchAll(pattern!)) {
    const piece = Buffer.from(match[0], "utf8").toString("latin1");
    tokens += table.has(piece) ? 1 : mergedPartCount(piece, table);
  }
  return tokens;
}

/** How many tokens byte-pair merging leaves of `piece` (a byte string with no rank of its own). */
function mergedPartCount(piece: string, table: Map<string, number>): number {
  // starts[i] is where part i begins; part i ends where part i + 1 begins (the last at piece.length).
  const starts = Array.from({ length: piece.length + 1 }, (_, index) => index);
  while (starts.length > 2) {
    let bestRank = Number.POSITIVE_INFINITY;
    let best = -1;
    for (let index = 0; index < starts.length - 2; index += 1) {
      const rank = table.get(piece.slice(starts[index], starts[index + 2]));
      if (rank !== undefined && rank < bestRank) {
        bestRank = rank;
        best = index;
      }
    }
    if (best < 0) break;
    starts.splice(best + 1, 1);
  }
  return starts.length - 1;
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
    tokens += TOKENS_PER_TOOL_SCHEMA + count(tool.name) + count(tool.description) + count(toolParametersJson(tool));
  }
  return tokens;
}

/** Input tokens of a whole request: every message, the tool schemas and the reply priming. */
export function countMessageTokens(messages: readonly ModelMessage[], tools: readonly ModelToolSchema[] = [], count: CountTokens = countTokens): number {
  let tokens = TOKENS_PER_REPLY + countToolTokens(tools, count);
  for (const message of messages) tokens += countOneMessageTokens(message, count);
  return tokens;
}
