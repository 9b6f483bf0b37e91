/**
 * The deepest nesting of arrays and objects that agentq accepts in JSON it did not write itself
 * (request bodies, WebSocket messages, a model's tool arguments). Generous for any real payload;
 * it keeps every later walk over the parsed value (validation, NUL checks, canonical JSON) far
 * from the call stack's limit.
 */
export const MAX_JSON_NESTING = 64;

const OPEN_BRACKET = 0x5b; // [
const OPEN_BRACE = 0x7b; // {
const CLOSE_BRACKET = 0x5d; // ]
const CLOSE_BRACE = 0x7d; // }
const QUOTE = 0x22; // "
const BACKSLASH = 0x5c; // \

/**
 * Whether JSON text (valid or not, complete or cut off) opens more than `maxDepth` arrays or
 * objects inside one another. One pass over the text with no recursion, before it is parsed, so
 * that no parser or walk ever sees such a value. Brackets inside strings do not count.
 */
export function exceedsJsonNesting(text: string | Uint8Array, maxDepth: number = MAX_JSON_NESTING): boolean {
  const length = text.length;
  const codeAt = typeof text === "string" ? (index: number) => text.charCodeAt(index) : (index: number) => text[index]!;
  let depth = 0;
  let inString = false;
  for (let index = 0; index < length; index += 1) {
    const code = codeAt(index);
    if (inString) {
      if (code === BACKSLASH) index += 1;
      else if (code === QUOTE) inString = false;
    } else if (code === QUOTE) {
      inString = true;
    } else if (code === OPEN_BRACKET || code === OPEN_BRACE) {
      depth += 1;
      if (depth > maxDepth) return true;
    } else if ((code === CLOSE_BRACKET || code === CLOSE_BRACE) && depth > 0) {
      depth -= 1;
    }
  }
  return false;
}
