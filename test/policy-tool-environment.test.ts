import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { scenarioInput } from "@agentq/core/testing";
import { startTestStack, type TestStack } from "./support/test-stack.ts";

// Values only this test puts into the environment, so finding them in the output can mean only a leak.
const PLANTED = {
  DATABASE_URL: "postgresql://postgres@127.0.0.1:5432/planted_env_database",
  APPROVAL_SECRET: "planted-approval-secret-0123456789",
  OPENAI_API_KEY: "sk-planted-openai-key",
};

describe("run_command's environment", () => {
  let stack: TestStack;
  const saved: Record<string, string | undefined> = {};

  beforeAll(async () => {
    for (const [name, value] of Object.entries(PLANTED)) {
      saved[name] = process.env[name];
      process.env[name] = value;
    }
    stack = await startTestStack({ workers: 0 });
  });
  afterAll(async () => {
    await stack?.close();
    for (const [name, value] of Object.entries(saved)) {
      if (value === undefined) delete process.env[name];
      else process.env[name] = value;
    }
  });

  /** Runs `env` through whichever worker is up; a child worker may take long to boot on a loaded machine. */
  async function envOutput(timeoutMs: number): Promise<string> {
    const workspaceId = await stack.createWorkspace();
    const chatId = await stack.createChat({ workspaceId });
    const runId = await stack.run(chatId, {
      allow_bash: true,
      input: scenarioInput([{ tool: "run_command", args: { command: "env; echo END-OF-ENV" } }, { text: "ok" }]),
    });
    expect(await stack.waitForRun(runId, undefined, timeoutMs)).toMatchObject({ status: "completed" });
    const completed = (await stack.events(runId)).find((event) => event.type === "tool.completed");
    expect(completed?.data).toMatchObject({ tool: "run_command", ok: true });
    const output = completed!.data.result as string;
    expect(output).toContain("END-OF-ENV");
    expect(output).toMatch(/^PATH=/m);
    return output;
  }

  async function secrets(): Promise<string[]> {
    const stored = await stack.prisma.systemSecret.findUniqueOrThrow({ where: { name: "approval_secret" } });
    return [...Object.values(PLANTED), stack.workerConfig.databaseUrl, stored.value];
  }

  it("an in-process worker gives commands neither DATABASE_URL nor the approval secret", async () => {
    const worker = await stack.startWorker();
    try {
      const output = await envOutput(30_000);
      for (const secret of await secrets()) expect(output).not.toContain(secret);
      expect(output).not.toMatch(/^(DATABASE_URL|APPROVAL_SECRET|OPENAI_API_KEY|REDIS_URL)=/m);
    } finally {
      await worker.close();
      stack.workers.splice(stack.workers.indexOf(worker), 1);
    }
  });

  it("a worker process started with the secrets in its environment does not pass them on", { timeout: 120_000 }, async () => {
    const child = stack.spawnWorker({ APPROVAL_SECRET: PLANTED.APPROVAL_SECRET, OPENAI_API_KEY: PLANTED.OPENAI_API_KEY });
    try {
      const output = await envOutput(100_000);
      for (const secret of await secrets()) expect(output).not.toContain(secret);
      expect(output).not.toMatch(/^(DATABASE_URL|APPROVAL_SECRET|OPENAI_API_KEY|REDIS_URL|QUEUE_PREFIX)=/m);
    } finally {
      child.kill("SIGKILL");
    }
  });
});
