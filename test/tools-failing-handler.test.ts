// Tool failures are data (STYLE.md, tool-definition.ts): a handler that throws or rejects becomes an
// error result naming the failure, the run goes on, and the model reads the error in its next round.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { z } from "zod";
import { scenarioInput } from "@agentq/core/testing/scenario-responder";
import type { ToolDefinition } from "@agentq/core/tools/tool-definition";
import { expectContiguous, startTestStack, type TestStack } from "./support/test-stack.ts";

function failingTool(name: string, fail: () => Promise<never>): ToolDefinition {
  return {
    name,
    family: "files",
    description: "fails on purpose (test)",
    parameters: z.object({}),
    effects: ["read"],
    taints: false,
    requiresWorkspace: false,
    execute: fail,
  };
}

describe("a tool handler that fails", () => {
  let stack: TestStack;
  beforeAll(async () => {
    stack = await startTestStack({ workers: 0 });
    await stack.startWorker(
      {},
      {
        extraTools: [
          // Throws before returning a promise, and rejects: the two ways a handler can fail.
          failingTool("throw_at_once", () => {
            throw new Error("disk on fire");
          }),
          failingTool("reject_later", async () => {
            await new Promise((resolve) => setTimeout(resolve, 5));
            throw new TypeError("cannot read properties of undefined");
          }),
        ],
      },
    );
  });
  afterAll(async () => {
    await stack?.close();
  });

  it("becomes an error result naming the failure, and the run goes on with the model seeing it", async () => {
    const chatId = await stack.createChat();
    const runId = await stack.run(chatId, {
      input: scenarioInput([{ tool: "throw_at_once", args: {} }, { tool: "reject_later", args: {} }, { text: "both tools failed" }]),
    });
    const run = await stack.waitForRun(runId);
    expect(run).toMatchObject({ status: "completed", output: "both tools failed", tool_calls: 2 });
    const events = await stack.events(runId);
    expectContiguous(events);
    const results = events.filter((event) => event.type === "tool.completed");
    expect(results.map((event) => [event.data.tool, event.data.ok])).toEqual([
      ["throw_at_once", false],
      ["reject_later", false],
    ]);
    expect(results[0]!.data.error).toContain("disk on fire");
    expect(results[1]!.data.error).toContain("cannot read properties of undefined");
    // The last model request carried both errors as tool results.
    const toolMessages = stack.provider.requests
      .at(-1)!
      .messages.filter((message) => message.role === "tool")
      .map((message) => String(message.content));
    expect(toolMessages).toEqual([expect.stringContaining("disk on fire"), expect.stringContaining("cannot read properties of undefined")]);
  });
});
