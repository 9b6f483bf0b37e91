import { createInterface } from "node:readline/promises";
import type { Readable, Writable } from "node:stream";
import { AgentqApiError, type ApprovalDecision, createAgentqClient, decideApproval, FollowRunError, followRun, type RunEvent, unwrap } from "@agentq/client";
import { describeToolCall } from "./describe-tool-call.ts";
import { createTextPrinter } from "./text-printer.ts";

export const EXIT_COMPLETED = 0;
export const EXIT_FAILED = 1;
export const EXIT_USAGE = 2;

export interface RunCommandOptions {
  url: string;
  token: string;
  input: string;
  chatId?: string | undefined;
  workspaceId?: string | undefined;
  model?: string | undefined;
  /** Answer every approval with this; undefined: ask at the prompt (or fail when there is none). */
  approve?: ApprovalDecision | undefined;
  allowBash?: boolean;
  useWeb?: boolean;
}

export interface CommandIo {
  stdin: Readable;
  stdout: Writable;
  stderr: Writable;
  /** Whether a person can answer at a prompt (stdin is a terminal, or AGENTQ_PROMPT=1). */
  interactive: boolean;
}

const CHOICES: Record<string, ApprovalDecision> = { "1": "allow_task", "2": "allow_chat", "3": "deny" };

/** `agentq run`: starts the run, streams it, answers its approvals; resolves with the exit code. */
export async function runCommand(options: RunCommandOptions, io: CommandIo): Promise<number> {
  const client = createAgentqClient({ baseUrl: options.url, token: options.token });
  const say = (text: string) => io.stdout.write(text);
  const complain = (text: string) => io.stderr.write(`agentq: ${text}\n`);
  const prompt = io.interactive && options.approve === undefined ? createInterface({ input: io.stdin, output: io.stderr, terminal: false }) : undefined;
  try {
    const chatId = options.chatId ?? (await unwrap(client.POST("/api/chats", { body: options.workspaceId ? { workspace_id: options.workspaceId } : {} }))).id;
    const run = await unwrap(
      client.POST("/api/chats/{id}/runs", {
        params: { path: { id: chatId } },
        body: {
          input: options.input,
          ...(options.model ? { model: options.model } : {}),
          ...(options.allowBash ? { allow_bash: true } : {}),
          ...(options.useWeb ? { use_web: true } : {}),
        },
      }),
    );
    io.stderr.write(`run ${run.id} in chat ${chatId}\n`);

    const printer = createTextPrinter(say);
    const line = printer.line;
    const last = await followRun({
      baseUrl: options.url,
      token: options.token,
      runId: run.id,
      onDelta: (text) => printer.delta(text),
      onReconnect: (attempt) => complain(`connection lost; reconnecting (attempt ${attempt})`),
      onEvent: async (event) => {
        switch (event.type) {
          case "message.completed":
            printer.messageCompleted(typeof event.data.content === "string" ? event.data.content : "");
            break;
          case "tool.started":
            line(`→ ${describeToolCall(String(event.data.tool), event.data.arguments)}`);
            break;
          case "tool.completed":
            if (event.data.ok === false) line(`  ✗ ${String(event.data.error)}`);
            break;
          case "approval.required":
            await answerApproval(event);
            break;
          case "approval.decided":
            if (event.data.covered_by) line(`  (${String(event.data.tool)} allowed by the grant of an earlier decision)`);
            break;
          default:
            break;
        }
      },
    });

    async function answerApproval(event: RunEvent): Promise<void> {
      const {
        approval_id: approvalId,
        tool,
        effects,
        arguments: args,
        email,
      } = event.data as {
        approval_id: string;
        tool: string;
        effects: string[];
        arguments: unknown;
        email?: { to: string[]; cc: string[]; subject: string; body_preview: string };
      };
      line(`? ${tool} needs your approval (effects: ${effects.join(", ")})`);
      printer.write(`${JSON.stringify(args, null, 2)}\n`);
      // A send shows the mail itself: what the person approves is its recipients, subject and body.
      if (email) {
        printer.write(`  To: ${email.to.join(", ")}\n${email.cc.length > 0 ? `  Cc: ${email.cc.join(", ")}\n` : ""}  Subject: ${email.subject}\n`);
        printer.write(`${email.body_preview.replace(/^/gm, "  | ")}\n`);
      }
      let decision = options.approve;
      if (decision === undefined && prompt) {
        while (decision === undefined) {
          const answer = (await prompt.question("Allow? [1] for this run  [2] for this chat  [3] deny: ")).trim();
          decision = CHOICES[answer] ?? ((Object.values(CHOICES) as string[]).find((choice) => choice === answer) as ApprovalDecision | undefined);
          if (decision === undefined) io.stderr.write("answer 1, 2 or 3\n");
        }
      }
      if (decision === undefined) {
        // No one to ask and no --approve: the run stays parked; say how to go on.
        throw new UnansweredApprovalError(approvalId, tool);
      }
      try {
        await decideApproval(client, approvalId, decision);
        line(`  ${decision === "deny" ? "denied" : `allowed (${decision})`}`);
      } catch (error) {
        // Decided meanwhile (the console, another terminal): the run goes on either way.
        if (error instanceof AgentqApiError && error.status === 409) line(`  already decided: ${error.message}`);
        else throw error;
      }
    }

    if (last.type === "run.completed") return EXIT_COMPLETED;
    const failure = last.data.error as { code?: string; message?: string } | undefined;
    complain(last.type === "run.failed" ? `the run failed: ${failure?.message ?? "no reason given"} (${failure?.code ?? "error"})` : "the run was cancelled");
    return EXIT_FAILED;
  } catch (error) {
    if (error instanceof UnansweredApprovalError) {
      complain(`${error.message}; answer it in the console, or run again with --approve`);
      return EXIT_FAILED;
    }
    if (error instanceof AgentqApiError || error instanceof FollowRunError) complain(`${error.message} (${error.code})`);
    else complain(error instanceof Error ? error.message : String(error));
    return EXIT_USAGE;
  } finally {
    prompt?.close();
  }
}

class UnansweredApprovalError extends Error {
  constructor(approvalId: string, tool: string) {
    super(`the run waits for approval of ${tool} (approval ${approvalId}), and there is no prompt to ask at`);
    this.name = "UnansweredApprovalError";
  }
}
