import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { scenarioInput } from "@agentq/core/testing";
import { expectContiguous, startTestStack, type TestStack } from "./support/test-stack.ts";
import { decide, fileExists, INJECTION, workspaceRoot } from "./support/approval-test-helpers.ts";
import { crash, holderOf, spawnReadyWorkers } from "./faults-helpers.ts";

describe("taint survives a worker crash", () => {
  let stack: TestStack;
  beforeAll(async () => {
    stack = await startTestStack({ workers: 0 });
  });
  afterAll(async () => {
    await stack?.close();
  });

  it("a worker killed between the read and the call: the next worker still pauses the call for approval", { timeout: 120_000 }, async () => {
    const workspaceId = await stack.createWorkspace();
    await stack.putFile(workspaceId, "notes.md", INJECTION);
    const root = await workspaceRoot(stack, workspaceId);
    const chatId = await stack.createChat({ workspaceId });
    // Both started (and ready) at once: one runs the run and is killed, the other takes it over.
    const workers = await spawnReadyWorkers(stack, 2);
    const runId = await stack.run(chatId, {
      allow_bash: true,
      input: scenarioInput([
        { tool: "read_file", args: { path: "notes.md" } },
        // The model answers round 2 only once the test lets it: the worker is killed while it waits.
        { tool: "run_command", args: { command: "touch pwned" }, holdUntil: "after-the-crash" },
        { text: "done after approval" },
      ]),
    });
    await stack.waitForEvent(runId, (event) => event.type === "tool.completed" && event.data.tool === "read_file", 60_000);
    await crash(await holderOf(stack, runId, workers));
    // The kill landed between the read and the call: the call had not been emitted yet.
    expect(
      (await stack.events(runId)).some((event) => event.type === "approval.required" || (event.type === "message.completed" && event.data.round === 2)),
    ).toBe(false);
    expect((await stack.prisma.run.findUniqueOrThrow({ where: { id: runId } })).tainted).toBe(true);

    stack.provider.release("after-the-crash");
    const parked = await stack.waitForRun(runId, (run) => run.status !== "running" && run.status !== "queued", 60_000);
    expect(parked.status).toBe("awaiting_approval");
    expect(parked.pending_approvals).toHaveLength(1);
    expect(parked.pending_approvals[0]).toMatchObject({ tool: "run_command", arguments: { command: "touch pwned" }, effects: ["process"] });
    expect(await fileExists(root, "pwned")).toBe(false);
    const events = await stack.events(runId);
    expectContiguous(events);
    expect(events.some((event) => event.type === "tool.started" && event.data.tool === "run_command")).toBe(false);
    expect(events.filter((event) => event.type === "approval.required")).toHaveLength(1);

    // The surviving worker carries out the decision.
    expect((await decide(stack, parked.pending_approvals[0].id, "allow_task")).status).toBe(202);
    expect(await stack.waitForRun(runId, undefined, 60_000)).toMatchObject({ status: "completed", output: "done after approval" });
    expect(await fileExists(root, "pwned")).toBe(true);
  });
});
