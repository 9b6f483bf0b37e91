import { describe, expect, it } from "vitest";
import { z } from "zod";
import type { ToolOfferContext } from "../../policy/offered-tools.ts";
import { defaultSettings } from "../../settings/agent-settings.ts";
import type { Effect, ToolDefinition } from "../../tools/tool-definition.ts";
import { parseLoopState } from "../loop-state.ts";
import { type HandleToolCallInput, handleToolCall } from "./handle-tool-call.ts";

function tool(name: string, effects: readonly Effect[]): ToolDefinition {
  return {
    name,
    family: "files",
    description: name,
    parameters: z.object({ path: z.string() }),
    effects,
    taints: false,
    requiresWorkspace: false,
    execute: async () => ({ ok: true, output: "" }),
  };
}

const tools = new Map([tool("read_file", ["read"]), tool("write_file", ["write"])].map((entry) => [entry.name, entry]));
const offer: ToolOfferContext = {
  mode: "agent",
  allowBash: false,
  allowWebSearch: false,
  useWeb: false,
  hasWorkspace: true,
  role: "user",
  settings: defaultSettings(),
};

function handle(name: string, argumentsText: string, overrides: Partial<HandleToolCallInput> = {}) {
  return handleToolCall({
    call: { rowId: "tc_1", callId: "call_1", name, argumentsText, round: 1, position: 0 },
    tools: { get: (toolName) => tools.get(toolName) },
    offer,
    tainted: false,
    grants: [],
    sentTools: ["read_file", "write_file"],
    loopState: parseLoopState({}),
    settings: { agent_repeated_call_limit: 3, agent_max_tool_calls: 0, approval_always: [] },
    toolCallsSoFar: 0,
    ...overrides,
  });
}

describe("handleToolCall", () => {
  it("runs an allowed call with its parsed arguments and counts it in the loop state", () => {
    const { action, loopState } = handle("read_file", '{"path":"a.txt"}');
    expect(action).toMatchObject({ kind: "execute", tool: { name: "read_file" }, args: { path: "a.txt" } });
    expect(Object.values(loopState.callCounts)).toEqual([1]);
  });

  it("pauses a side-effecting call once the run is tainted, and runs it when a grant covers it", () => {
    expect(handle("write_file", '{"path":"a.txt"}', { tainted: true }).action).toMatchObject({ kind: "needs_approval", effects: ["write"] });
    const granted = handle("write_file", '{"path":"a.txt"}', { tainted: true, grants: [{ tool: "write_file", effects: ["write"] }] });
    expect(granted.action.kind).toBe("execute");
  });

  it("refuses a call of a tool not sent in its round before counting or parsing it", () => {
    const { action, loopState } = handle("write_file", "not json", { sentTools: [] });
    expect(action).toMatchObject({ kind: "refuse", error: expect.stringContaining("no tools were offered") });
    expect(loopState.callCounts).toEqual({});
  });

  it("refuses unknown tools and arguments that do not parse, as errors for the model", () => {
    expect(handle("delete_everything", "{}").action).toMatchObject({ kind: "refuse", error: expect.stringContaining('no tool named "delete_everything"') });
    expect(handle("read_file", '{"path":').action).toMatchObject({ kind: "refuse", error: expect.stringMatching(/JSON/) });
  });

  it("the third identical call trips the repeated-call guard and asks for a final answer", () => {
    let loopState = parseLoopState({});
    const actions = [];
    for (let attempt = 0; attempt < 3; attempt += 1) {
      const handled = handle("read_file", '{"path":"a.txt"}', { loopState });
      loopState = handled.loopState;
      actions.push(handled.action);
    }
    expect(actions.map((action) => action.kind)).toEqual(["execute", "execute", "refuse"]);
    expect(actions[2]).toMatchObject({ events: [{ type: "guard.triggered", data: { guard: "repeated_call", count: 3 } }] });
    expect(loopState.finalAnswerRound).toBe(true);
  });

  it("the call budget refuses calls once the run has made agent_max_tool_calls", () => {
    const { action, loopState } = handle("read_file", '{"path":"a.txt"}', {
      settings: { agent_repeated_call_limit: 3, agent_max_tool_calls: 2, approval_always: [] },
      toolCallsSoFar: 2,
    });
    expect(action).toMatchObject({ kind: "refuse", events: [{ type: "guard.triggered", data: { guard: "call_budget", limit: 2 } }] });
    expect(loopState.finalAnswerRound).toBe(true);
  });
});
