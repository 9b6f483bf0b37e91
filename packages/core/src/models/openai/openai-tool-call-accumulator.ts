import type { ModelToolCall } from "../model-client.ts";

/** The part of a Chat Completions chunk's `delta.tool_calls[]` entry we read; every field optional (servers differ). */
export interface OpenAIToolCallDelta {
  index?: number | null;
  id?: string | null;
  type?: string | null;
  function?: { name?: string | null; arguments?: string | null } | null;
}

/**
 * Rebuilds tool calls from streamed deltas. OpenAI sends id, type and name in a call's first delta
 * and the arguments in fragments keyed by `index`; other servers are looser, so:
 * - a delta without `index` continues the call with the same id; without an id either, it continues
 *   the last call, unless it carries a name and the last call already has one (then it is a new call);
 * - a delta whose id differs from the id already at its index starts a new call (servers that send
 *   every call with index 0);
 * - a whole call in one delta works like any other;
 * - a call that never got an id is given one (`call_<n>_<random>`): the loop pairs results by id.
 */
export class OpenAIToolCallAccumulator {
  private readonly calls: { id: string; name: string; argumentsText: string }[] = [];
  private readonly byIndex = new Map<number, number>();

  constructor(private readonly generateCallId: () => string) {}

  add(delta: OpenAIToolCallDelta): void {
    const id = delta.id ?? "";
    const name = delta.function?.name ?? "";
    const argumentsFragment = delta.function?.arguments ?? "";
    let position: number | undefined;

    if (typeof delta.index === "number") {
      position = this.byIndex.get(delta.index);
      const existing = position === undefined ? undefined : this.calls[position];
      if (existing && id !== "" && existing.id !== "" && existing.id !== id) position = undefined;
      if (position === undefined) {
        position = this.calls.push({ id: "", name: "", argumentsText: "" }) - 1;
        this.byIndex.set(delta.index, position);
      }
    } else if (id !== "") {
      position = this.calls.findIndex((call) => call.id === id);
      if (position < 0) position = this.calls.push({ id: "", name: "", argumentsText: "" }) - 1;
    } else {
      position = this.calls.length - 1;
      // A delta with a name but no index or id is a new call when the last one already has its name.
      const startsNewCall = position < 0 || (name !== "" && this.calls[position]!.name !== "");
      if (startsNewCall) position = this.calls.push({ id: "", name: "", argumentsText: "" }) - 1;
    }

    const call = this.calls[position]!;
    if (id !== "" && call.id === "") call.id = id;
    // Names arrive whole in the first delta; a server that repeats the name in later deltas must not double it.
    if (name !== "" && call.name === "") call.name = name;
    call.argumentsText += argumentsFragment;
  }

  /** The calls in the order they started; calls with neither name nor arguments are dropped. */
  finish(): ModelToolCall[] {
    return this.calls
      .filter((call) => call.name !== "" || call.argumentsText !== "")
      .map((call) => ({ id: call.id !== "" ? call.id : this.generateCallId(), name: call.name, argumentsText: call.argumentsText }));
  }
}
