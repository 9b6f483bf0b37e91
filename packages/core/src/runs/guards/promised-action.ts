/**
 * A model that says it will act ("I will now read the file", "Let me run the tests") and then
 * calls no tool has usually stalled: the loop nudges it once. Kept deliberately narrow: a first-
 * person promise about the near future followed by an action verb, in the last lines of the text.
 */
const PROMISE =
  /\b(?:I(?:'ll| will| am going to|'m going to| shall)|let me|next,? I(?:'ll| will))\s+(?:now\s+|first\s+|then\s+|go ahead and\s+|quickly\s+)*(?:read|open|write|create|edit|update|modify|run|execute|check|list|search|look|fetch|inspect|examine|call|use|save|fix|apply|test)\b/i;

export function detectPromisedAction(text: string): boolean {
  const tail = text.trim().split(/\n+/).slice(-3).join("\n");
  if (tail.length === 0) return false;
  return PROMISE.test(tail);
}

export const PROMISED_ACTION_NUDGE =
  "You said you would take an action but did not call a tool. If the action is needed, call the tool now; otherwise give your final answer.";
