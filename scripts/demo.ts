// `npm run demo`: agentq end to end with no model configured. It starts the scripted
// OpenAI-compatible model server that the tests use, runs the API and a worker against it (a
// throwaway database and queue prefix on the local Postgres and Redis), submits a run that lists,
// reads and writes files, approves the write when asked, and prints the events as they stream.
import WebSocket from "ws";
import { scenarioInput } from "@agentq/core/testing";
import { startLocalStack, type LocalStack } from "./local-stack.ts";

const dim = (text: string) => (process.stdout.isTTY ? `\x1b[2m${text}\x1b[0m` : text);
const bold = (text: string) => (process.stdout.isTTY ? `\x1b[1m${text}\x1b[0m` : text);

async function call(stack: LocalStack, method: string, path: string, body?: unknown): Promise<any> {
  const response = await fetch(`${stack.url}${path}`, {
    method,
    headers: { authorization: `Bearer ${stack.token}`, ...(body === undefined ? {} : { "content-type": "application/json" }) },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  const json = await response.json();
  if (!response.ok) throw new Error(`${method} ${path} answered ${response.status}: ${JSON.stringify(json)}`);
  return json;
}

function describe(event: { seq: number; type: string; data: Record<string, any> }): string {
  const data = event.data;
  switch (event.type) {
    case "round.started":
      return `round ${data.round} (tools offered: ${(data.tools ?? []).join(", ") || "none"})`;
    case "message.completed":
      return data.tool_calls?.length
        ? `model calls ${data.tool_calls.map((call: any) => `${call.name}(${JSON.stringify(call.arguments)})`).join(", ")}`
        : `model answers: ${data.content}`;
    case "tool.started":
      return `${data.tool} started`;
    case "tool.completed":
      return `${data.tool} ${data.ok ? "ok" : "error"}: ${String(data.ok ? data.result : data.error)
        .split("\n")
        .slice(0, 3)
        .join(" | ")
        .slice(0, 120)}`;
    case "approval.required":
      return `${data.tool} needs approval (effects: ${data.effects.join(", ")}): the run is parked, no worker holds it`;
    case "approval.decided":
      return `approval ${data.decision}`;
    case "run.completed":
      return `output: ${data.output}`;
    case "run.failed":
      return `failed: ${data.error?.code}: ${data.error?.message}`;
    default:
      return "";
  }
}

async function main(): Promise<void> {
  console.log(bold("agentq demo") + dim(" — starting a scripted model server, the API and a worker on the local Postgres and Redis..."));
  const stack = await startLocalStack({ name: "demo", workerConcurrency: 4 });
  try {
    console.log(dim(`API on ${stack.url}, database ${stack.databaseName}, model server ${stack.provider.openaiBaseURL}`));
    const workspace = await call(stack, "POST", "/api/workspaces", { name: "demo" });
    await call(stack, "PUT", `/api/workspaces/${workspace.id}/files/notes.txt`, {
      content: "agentq runs agent loops as durable jobs.\nEvery step is committed to Postgres.\nRisky calls after untrusted input wait for a human.\n",
    });
    const chat = await call(stack, "POST", "/api/chats", { title: "demo", workspace_id: workspace.id });
    const input = scenarioInput(
      [
        { text: "Let me look at the workspace.", tool: "list_files", args: {} },
        { tool: "read_file", args: { path: "notes.txt" } },
        {
          tool: "write_file",
          args: { path: "summary.txt", content: "agentq: durable agent runs, committed step by step, with human approval of risky calls.\n" },
        },
        { text: "I listed the workspace, read notes.txt and wrote summary.txt." },
      ],
      "List the workspace, read notes.txt and write a one-line summary to summary.txt.",
    );

    const socket = new WebSocket(`${stack.url.replace("http", "ws")}/api/ws?token=${stack.token}`);
    await new Promise<void>((resolve, reject) => {
      socket.once("open", () => resolve());
      socket.once("error", reject);
    });
    const run = await call(stack, "POST", `/api/chats/${chat.id}/runs`, { input, model: "fake-model" });
    console.log(`${bold("run")} ${run.id} submitted (POST /api/chats/${chat.id}/runs → 202, status ${run.status})\n`);
    const finished = new Promise<void>((resolve) => {
      socket.on("message", (raw) => {
        const message = JSON.parse(raw.toString());
        if (message.type === "delta") return;
        if (message.type !== "event") return;
        const event = message.event;
        console.log(`  ${dim(String(event.seq).padStart(3))} ${bold(event.type.padEnd(18))} ${describe(event)}`);
        if (event.type === "approval.required") {
          console.log(dim(`      → deciding allow_task with POST /api/approvals (as a human would from the browser)`));
          void call(stack, "POST", "/api/approvals", { tool_approval_id: event.data.approval_id, tool_approval_decision: "allow_task" });
        }
        if (["run.completed", "run.failed", "run.cancelled"].includes(event.type)) resolve();
      });
    });
    socket.send(JSON.stringify({ type: "subscribe", run_id: run.id, after: 0 }));
    await finished;
    socket.close();
    const summary = await call(stack, "GET", `/api/workspaces/${workspace.id}/files/summary.txt`);
    console.log(`\n${bold("summary.txt")} (revision ${summary.revision}): ${summary.content.trim()}`);
    console.log(dim("\nThe path was real: HTTP → BullMQ on Redis → worker → the openai SDK (streaming) → Postgres → Redis pub/sub → WebSocket."));
  } finally {
    await stack.close();
  }
}

await main();
