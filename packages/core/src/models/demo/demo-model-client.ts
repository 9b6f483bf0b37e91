import { throwAbortReason } from "../is-abort-error.ts";
import type { ModelClient, ModelMessage, ModelRequest, ModelResponse, ModelToolCall } from "../model-client.ts";

/** The model name that selects the built-in demo model (docs/api.md, "Model names"). */
export const DEMO_MODEL_NAME = "agentq/demo";

/** The file the demo proposes to write: its write pauses for approval, since the run has read a file. */
export const DEMO_NOTES_FILE = "agentq-demo-notes.md";

export interface DemoModelClientOptions {
  /** Pause between streamed words, so a person sees the text arrive. Default 15 ms; tests use 0. */
  wordDelayMs?: number;
}

/**
 * A scripted model that needs no server, for trying agentq in two minutes: with a workspace it lists
 * the files, reads one, proposes to write a short note about it (which pauses for approval: the read
 * tainted the run) and answers in streamed text; without file tools it explains what it would do.
 * Deterministic: each answer is a function of the conversation since the user's last message, so a run
 * resumed after an approval continues where it stopped. Not a model: it understands nothing.
 */
export function createDemoModelClient(options: DemoModelClientOptions = {}): ModelClient {
  const wordDelayMs = options.wordDelayMs ?? 15;
  return {
    async complete(request) {
      if (request.signal.aborted) throwAbortReason(request.signal);
      const step = nextDemoStep(request);
      if (step.kind === "call") return answer(request, "", [step.call]);
      for (const word of step.text.match(/\S+\s*/g) ?? []) {
        if (request.signal.aborted) throwAbortReason(request.signal);
        request.onTextDelta?.(word);
        if (wordDelayMs > 0) await new Promise((resolve) => setTimeout(resolve, wordDelayMs));
      }
      return answer(request, step.text, []);
    },
  };
}

type DemoStep = { kind: "call"; call: ModelToolCall } | { kind: "text"; text: string };

/** What the demo does next, from what this turn holds so far. */
export function nextDemoStep(request: Pick<ModelRequest, "messages" | "tools">): DemoStep {
  const offered = new Set(request.tools.map((tool) => tool.name));
  const lastUser = request.messages.findLastIndex((message) => message.role === "user");
  const task = lastUser >= 0 ? String(request.messages[lastUser]!.content) : "";
  const turn = request.messages.slice(lastUser + 1);
  const results = toolResults(turn);
  const step = turn.filter((message) => message.role === "assistant").length;
  const call = (name: string, args: Record<string, unknown>): DemoStep => ({
    kind: "call",
    call: { id: `call_demo_${step + 1}`, name, argumentsText: JSON.stringify(args) },
  });

  const listing = results.get("list_files");
  if (!listing) {
    if (offered.has("list_files")) return call("list_files", {});
    return {
      kind: "text",
      text:
        `This is agentq's demo model: it needs no model server and understands nothing, but it shows how a run works. ` +
        `You asked: "${shorten(task, 120)}". Give the run a workspace and I will list its files, read one, and propose a note about it, ` +
        `which waits for your approval before anything is written. Set a real model (Ollama, an OpenAI-compatible server or anthropic/...) for real work.`,
    };
  }
  const read = results.get("read_file");
  const file = read ? undefined : firstFile(listing.content);
  if (!read && file && offered.has("read_file")) return call("read_file", { path: file });
  const write = results.get("write_file");
  if (!write && offered.has("write_file")) {
    const about = read && !read.isError ? summarize(read.content) : "the workspace had no file to read";
    return call("write_file", {
      path: DEMO_NOTES_FILE,
      content: `# Notes from agentq's demo model\n\nTask: ${shorten(task, 200)}\n\n${about}\n`,
    });
  }
  const outcome = !write
    ? "I could not propose a note: this run may not write files."
    : write.isError
      ? `The note was not written: ${shorten(write.content.replace(/^Error:\s*/, ""), 160)}`
      : `I wrote ${DEMO_NOTES_FILE} after you approved it.`;
  const readPart = read && !read.isError ? `, read ${readFileName(read.content) ?? "a file"}` : "";
  return { kind: "text", text: `Done. I listed the workspace${readPart} and proposed a note. ${outcome}` };
}

interface ToolResultView {
  content: string;
  isError: boolean;
}

/** The last result of each tool in this turn, by tool name. */
function toolResults(turn: readonly ModelMessage[]): Map<string, ToolResultView> {
  const names = new Map<string, string>();
  const results = new Map<string, ToolResultView>();
  for (const message of turn) {
    if (message.role === "assistant") for (const call of message.toolCalls ?? []) names.set(call.id, call.name);
    if (message.role === "tool") {
      const name = names.get(message.toolCallId);
      if (name) results.set(name, { content: message.content, isError: message.isError === true || message.content.startsWith("Error:") });
    }
  }
  return results;
}

/** The first plain file of a list_files answer, preferring a README. */
function firstFile(listing: string): string | undefined {
  const files = listing
    .split("\n")
    .slice(1)
    .filter((line) => line.length > 0 && !line.endsWith("/") && !line.includes(" (") && !line.startsWith("["));
  return files.find((file) => /(^|\/)readme/i.test(file)) ?? files[0];
}

/** What the note says about the file read: its name, its size and its first line. */
function summarize(readOutput: string): string {
  const [header = "", ...lines] = readOutput.split("\n");
  const firstLine = lines.map((line) => line.replace(/^\s*\d+\s*[|\t:]?\s?/, "")).find((line) => line.trim().length > 0) ?? "";
  const total = /of (\d+)\)/.exec(header)?.[1] ?? String(lines.length);
  return `${readFileName(readOutput) ?? "The file"} has ${total} lines; its first line is: ${shorten(firstLine.trim(), 160)}`;
}

function readFileName(readOutput: string): string | undefined {
  return /^(.+?) \(revision /.exec(readOutput)?.[1];
}

function answer(request: ModelRequest, text: string, toolCalls: ModelToolCall[]): ModelResponse {
  const inputCharacters = request.messages.reduce((sum, message) => sum + (message.content?.length ?? 0), 0);
  return {
    text,
    toolCalls,
    usage: { inputTokens: Math.ceil(inputCharacters / 4), outputTokens: Math.ceil((text.length + JSON.stringify(toolCalls).length) / 4) },
    finishReason: toolCalls.length > 0 ? "tool_calls" : "stop",
  };
}

function shorten(text: string, limit: number): string {
  const single = text.replace(/\s+/g, " ").trim();
  return single.length <= limit ? single : `${single.slice(0, limit - 1)}…`;
}
