import type { RunEvent } from "../../api/types.ts";
import { callDetail } from "../../lib/format.ts";

export type EventTone = "neutral" | "accent" | "success" | "warning" | "danger";

export interface EventDescription {
  text: string;
  tone: EventTone;
}

const GUARD_TEXT: Record<string, (data: Record<string, unknown>) => string> = {
  repeated_call: (data) => `Guard: ${data.tool ?? "a tool"} was called with the same arguments ${data.count ?? "several"} times; tools were withdrawn`,
  call_budget: (data) => `Guard: the tool call budget (${data.limit}) was reached`,
  round_budget: (data) => `Guard: the round budget (${data.limit}) was reached`,
  promised_action: () => "Guard: the model promised an action without calling a tool; it was asked to act",
  token_budget: (data) =>
    data.truncated_results !== undefined
      ? `Guard: ${data.truncated_results} tool results were shortened to fit the input budget`
      : `Guard: the input did not fit the token budget (${data.budget})`,
  stream_timeout: (data) => `Guard: the model stream stalled for ${data.timeout_seconds ?? "too many"} seconds`,
};

const DECISION_TEXT: Record<string, string> = {
  allow_task: "allowed for this run",
  allow_chat: "allowed for this chat",
  deny: "denied",
};

function text(value: unknown, fallback = ""): string {
  return typeof value === "string" ? value : fallback;
}

function shorten(value: string, length = 160): string {
  return value.length > length ? `${value.slice(0, length)}…` : value;
}

/** One line per durable event, in words; the data is model and tool text, so this is only ever rendered as text. */
export function describeEvent(event: RunEvent): EventDescription {
  const data = event.data;
  switch (event.type) {
    case "run.queued":
      return { text: data.multitask === "enqueue" ? "Queued behind the chat's active run" : "Queued", tone: "neutral" };
    case "run.started":
      return { text: `Started · ${text(data.model, "default model")} · ${text(data.mode, "agent")} mode`, tone: "accent" };
    case "run.resumed":
      return { text: data.reason === "approval" ? "Resumed after the approvals" : "Resumed after a worker restart", tone: "accent" };
    case "round.started": {
      const tools = Array.isArray(data.tools) ? data.tools.length : 0;
      return { text: `Round ${data.round} · ${tools} ${tools === 1 ? "tool" : "tools"} offered`, tone: "neutral" };
    }
    case "message.completed": {
      const calls = Array.isArray(data.tool_calls) ? (data.tool_calls as { name?: unknown }[]) : [];
      const usage = (data.usage ?? {}) as { input_tokens?: number; output_tokens?: number };
      const tokens = usage.input_tokens !== undefined ? ` · ${usage.input_tokens} in, ${usage.output_tokens ?? 0} out tokens` : "";
      const what = calls.length > 0 ? `Model called ${calls.map((call) => text(call.name, "a tool")).join(", ")}` : "Model answered";
      return { text: `${what}${tokens}`, tone: "neutral" };
    }
    case "tool.started": {
      const detail = callDetail(data.arguments);
      return { text: `${text(data.tool, "tool")} started${detail ? ` · ${shorten(detail, 100)}` : ""}`, tone: "neutral" };
    }
    case "tool.completed":
      return data.ok === false
        ? { text: `${text(data.tool, "tool")} failed: ${shorten(text(data.error, "error"))}`, tone: "danger" }
        : { text: `${text(data.tool, "tool")} finished`, tone: "success" };
    case "approval.required": {
      const effects = Array.isArray(data.effects) && data.effects.length > 0 ? ` (${data.effects.join(", ")})` : "";
      return { text: `Paused: ${text(data.tool, "a call")}${effects} needs approval`, tone: "warning" };
    }
    case "approval.decided": {
      const decision = DECISION_TEXT[text(data.decision)] ?? text(data.decision);
      const how = data.covered_by ? " by an earlier decision" : data.edited ? " with edited arguments" : "";
      return { text: `${text(data.tool, "Call")} ${decision}${how}`, tone: data.decision === "deny" ? "danger" : "success" };
    }
    case "guard.triggered": {
      const describe = GUARD_TEXT[text(data.guard)];
      return { text: describe ? describe(data) : `Guard: ${text(data.guard, "triggered")}`, tone: "warning" };
    }
    case "run.completed":
      return { text: "Completed", tone: "success" };
    case "run.failed": {
      const error = data.error as { message?: unknown } | undefined;
      return { text: `Failed${error?.message ? `: ${shorten(text(error.message))}` : ""}`, tone: "danger" };
    }
    case "run.cancelled":
      return { text: `Cancelled${data.reason ? `: ${text(data.reason)}` : ""}`, tone: "neutral" };
    default:
      return { text: event.type, tone: "neutral" };
  }
}
