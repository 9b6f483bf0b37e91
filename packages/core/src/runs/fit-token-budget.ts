import type { ModelMessage, ModelToolCall, ModelToolSchema } from "../models/model-client.ts";
import {
  countOneMessageTokens,
  countTokens as defaultCountTokens,
  countToolTokens,
  TOKENS_PER_MESSAGE,
  TOKENS_PER_REPLY,
  TOKENS_PER_TOOL_CALL,
  TOKENS_PER_TOOL_SCHEMA,
  type CountTokens,
} from "../models/count-tokens.ts";

/** `agent_input_token_budget` 6000 is the sentinel for "scale to the model's context window" (docs/design.md). */
export const INPUT_TOKEN_BUDGET_SENTINEL = 6000;
/**
 * Share of the context window the input may use when scaled. Default 0.75: the rest is room for
 * the answer and for the gap between our tokenizer (cl100k) and the model's own.
 */
export const CONTEXT_WINDOW_INPUT_SHARE = 0.75;

/**
 * The input token budget for one request. The sentinel value scales to 75% of the model's context
 * window; any other configured value is used as given (an operator who set it knows their server's
 * real limit better than our table). Never above `hardMax`, never below 1.
 */
export function resolveInputTokenBudget(input: { configured: number; hardMax: number; contextWindow: number }): number {
  const wanted = input.configured === INPUT_TOKEN_BUDGET_SENTINEL ? Math.floor(input.contextWindow * CONTEXT_WINDOW_INPUT_SHARE) : input.configured;
  return Math.max(1, Math.min(wanted, input.hardMax));
}

export interface FitTokenBudgetInput {
  messages: readonly ModelMessage[];
  tools: readonly ModelToolSchema[];
  /** Input tokens the request may use (see resolveInputTokenBudget). */
  budget: number;
  /** Token counter. Default: countTokens (cl100k_base). */
  countTokens?: CountTokens;
}

export interface FitTokenBudgetResult {
  /** The messages to send: the input with some contents shortened; same order, same ids, same pairing. */
  messages: ModelMessage[];
  /** How many messages were shortened. */
  truncated: number;
  /** Input tokens of the returned messages plus the tool schemas. */
  inputTokens: number;
  /** True when even the last resort did not bring the request under the budget. */
  overBudget: boolean;
}

/** Below this many kept tokens, a head and tail are noise: the marker alone replaces the content. */
const MIN_KEPT_TOKENS = 32;
/** Argument strings shorter than this are left alone: paths and commands must stay readable. */
const MIN_ARGUMENT_CHARS_TO_TRUNCATE = 256;

const toolMarker = (tokens: number) => `[... truncated ${tokens} tokens to fit the input budget; re-run the tool if you need it ...]`;
const textMarker = (tokens: number) => `[... truncated ${tokens} tokens to fit the input budget ...]`;

/**
 * Shortens a conversation until it fits the input budget. Messages are never dropped or reordered,
 * so every tool call keeps its result; only contents shrink, each with a marker the model can read.
 * What is shortened, in order, each phase oldest first and only as much as needed:
 * 1. tool results older than the latest assistant turn;
 * 2. older user messages and assistant turns (text, and long string values in call arguments);
 * 3. the newest tool results (those answering the latest assistant turn), then that turn itself;
 * 4. the latest user message.
 * The system message is never touched; if what is left still does not fit, `overBudget` is true.
 */
export function fitTokenBudget(input: FitTokenBudgetInput): FitTokenBudgetResult {
  const count = input.countTokens ?? defaultCountTokens;
  if (input.countTokens === undefined) {
    // Every cl100k token covers at least one byte, so the byte count bounds the token count: an
    // input that fits by bytes fits, and the tokenizer (the costliest step of a round) is skipped.
    const bound = byteBound(input.messages, input.tools);
    if (bound <= input.budget) return { messages: [...input.messages], truncated: 0, inputTokens: bound, overBudget: false };
  }
  const messages = [...input.messages];
  const costs = messages.map((message) => countOneMessageTokens(message, count));
  const fixed = TOKENS_PER_REPLY + countToolTokens(input.tools, count);
  let total = fixed + costs.reduce((sum, cost) => sum + cost, 0);
  if (total <= input.budget) return { messages, truncated: 0, inputTokens: total, overBudget: false };

  const lastAssistant = messages.findLastIndex((message) => message.role === "assistant");
  const lastUser = messages.findLastIndex((message) => message.role === "user");
  const phases: number[][] = [[], [], [], []];
  messages.forEach((message, index) => {
    if (message.role === "tool") phases[index < lastAssistant ? 0 : 2]!.push(index);
    else if (message.role === "user") phases[index === lastUser ? 3 : 1]!.push(index);
    else if (message.role === "assistant" && index !== lastAssistant) phases[1]!.push(index);
  });
  if (lastAssistant >= 0) phases[2]!.push(lastAssistant);

  const shortened = new Set<number>();
  for (const phase of phases) {
    for (const index of phase) {
      if (total <= input.budget) break;
      const excess = total - input.budget;
      const replacement = shorten(messages[index]!, excess, count);
      if (!replacement) continue;
      const cost = countOneMessageTokens(replacement, count);
      if (cost >= costs[index]!) continue;
      total -= costs[index]! - cost;
      costs[index] = cost;
      messages[index] = replacement;
      shortened.add(index);
    }
  }
  return { messages, truncated: shortened.size, inputTokens: total, overBudget: total > input.budget };
}

/** A shorter copy of `message` that saves about `excess` tokens (or as many as it can), or undefined. */
function shorten(message: ModelMessage, excess: number, count: CountTokens): ModelMessage | undefined {
  switch (message.role) {
    case "system":
      return undefined;
    case "tool": {
      const content = truncateText(message.content, count(message.content) - excess, count, toolMarker);
      return content === undefined ? undefined : { ...message, content };
    }
    case "user": {
      const content = truncateText(message.content, count(message.content) - excess, count, textMarker);
      return content === undefined ? undefined : { ...message, content };
    }
    case "assistant": {
      let remaining = excess;
      let content = message.content;
      if (content) {
        const before = count(content);
        const shorter = truncateText(content, before - remaining, count, textMarker);
        if (shorter !== undefined) {
          remaining -= before - count(shorter);
          content = shorter;
        }
      }
      let toolCalls: ModelToolCall[] | undefined = message.toolCalls;
      if (remaining > 0 && toolCalls) {
        toolCalls = toolCalls.map((call) => {
          if (remaining <= 0) return call;
          const argumentsText = shortenArguments(call.argumentsText, remaining, count);
          if (argumentsText === call.argumentsText) return call;
          remaining -= count(call.argumentsText) - count(argumentsText);
          return { ...call, argumentsText };
        });
      }
      if (content === message.content && toolCalls === message.toolCalls) return undefined;
      return toolCalls ? { role: "assistant", content, toolCalls } : { role: "assistant", content };
    }
    default: {
      const unexpected: never = message;
      throw new Error(`unknown message ${JSON.stringify(unexpected)}`);
    }
  }
}

/**
 * Keeps the head (two thirds) and tail (one third) of `text` within `targetTokens`, with a marker
 * in the middle saying how much went. Returns undefined when no saving is possible.
 */
function truncateText(text: string, targetTokens: number, count: CountTokens, marker: (tokens: number) => string): string | undefined {
  const total = count(text);
  const markerCost = count(marker(total));
  if (total <= markerCost) return undefined;
  let keep = targetTokens - markerCost;
  if (keep < MIN_KEPT_TOKENS) return marker(total);
  // Characters per token vary with content, so cut proportionally and check; a few passes converge.
  for (let pass = 0; pass < 6 && keep >= MIN_KEPT_TOKENS; pass += 1) {
    const keepChars = Math.floor((text.length * keep) / total);
    const headChars = Math.ceil((keepChars * 2) / 3);
    const head = text.slice(0, headChars);
    const tail = text.slice(text.length - (keepChars - headChars));
    const removed = Math.max(1, total - count(head) - count(tail));
    const candidate = `${head}\n${marker(removed)}\n${tail}`;
    if (count(candidate) <= targetTokens) return candidate;
    keep = Math.floor(keep * 0.8);
  }
  return marker(total);
}

/**
 * Shortens long string values inside JSON arguments (a write_file's content), keeping the JSON
 * valid and short values (paths) intact. Arguments that are not a JSON object are left alone.
 */
function shortenArguments(argumentsText: string, excess: number, count: CountTokens): string {
  let parsed: unknown;
  try {
    parsed = JSON.parse(argumentsText);
  } catch {
    return argumentsText;
  }
  if (!parsed || typeof parsed !== "object" || Array.isArray(parsed)) return argumentsText;
  let remaining = excess;
  const shortened: Record<string, unknown> = {};
  for (const [key, value] of Object.entries(parsed as Record<string, unknown>)) {
    if (remaining > 0 && typeof value === "string" && value.length >= MIN_ARGUMENT_CHARS_TO_TRUNCATE) {
      const before = count(value);
      const shorter = truncateText(value, before - remaining, count, textMarker);
      if (shorter !== undefined) {
        remaining -= before - count(shorter);
        shortened[key] = shorter;
        continue;
      }
    }
    shortened[key] = value;
  }
  return remaining === excess ? argumentsText : JSON.stringify(shortened);
}

/** An upper bound of the tokens of a request: bytes of every text plus the per-item overheads. */
function byteBound(messages: readonly ModelMessage[], tools: readonly ModelToolSchema[]): number {
  let total = TOKENS_PER_REPLY;
  for (const message of messages) {
    total += TOKENS_PER_MESSAGE + Buffer.byteLength(message.role) + Buffer.byteLength(message.content ?? "");
    if (message.role === "assistant") {
      for (const call of message.toolCalls ?? [])
        total += TOKENS_PER_TOOL_CALL + Buffer.byteLength(call.name) + Buffer.byteLength(call.argumentsText) + Buffer.byteLength(call.id);
    }
    if (message.role === "tool") total += Buffer.byteLength(message.toolCallId);
  }
  for (const tool of tools) total += TOKENS_PER_TOOL_SCHEMA + schemaBytes(tool);
  return total;
}

/** Bytes of each tool schema's JSON, per schema object: the registry hands out the same objects every round. */
const SCHEMA_BYTES = new WeakMap<ModelToolSchema, number>();

function schemaBytes(tool: ModelToolSchema): number {
  let bytes = SCHEMA_BYTES.get(tool);
  if (bytes === undefined) {
    bytes = Buffer.byteLength(JSON.stringify(tool));
    SCHEMA_BYTES.set(tool, bytes);
  }
  return bytes;
}
