// `agentq` (API.md "Webhooks, tracing, the client and the CLI"): configured by AGENTQ_URL and
// AGENTQ_TOKEN. Exit codes: 0 the run completed, 1 it failed or was cancelled, 2 the command could
// not do its work (bad usage, no token, the API refused or could not be reached).
import { Command, InvalidArgumentError, Option } from "commander";
import { EXIT_USAGE, runCommand } from "./run-command.ts";

const DECISIONS = ["allow_task", "allow_chat", "deny"] as const;

const program = new Command()
  .name("agentq")
  .description("Start agentq runs, watch them stream, and answer their approvals.")
  .showHelpAfterError()
  .exitOverride((error) => process.exit(error.exitCode === 0 ? 0 : EXIT_USAGE));

program
  .command("run")
  .description("start a run, print its text as it streams and a line per tool call, and ask when a call needs approval")
  .argument("<input>", "what to ask the agent")
  .addOption(new Option("--chat <id>", "continue this chat (default: a new chat)").conflicts("workspace"))
  .option("--workspace <id>", "a new chat on this workspace")
  .option("--model <name>", "the model (default: the deployment's DEFAULT_MODEL)")
  .addOption(new Option("--approve <decision>", "answer every approval with this instead of asking").choices(DECISIONS))
  .option("--allow-bash", "offer the command tools (needs a workspace)")
  .option("--use-web", "offer the web tools")
  .action(async (input: string, options: Record<string, unknown>) => {
    const url = process.env.AGENTQ_URL ?? "http://127.0.0.1:3000";
    const token = process.env.AGENTQ_TOKEN;
    if (!token) {
      process.stderr.write("agentq: set AGENTQ_TOKEN to an API token (and AGENTQ_URL, default http://127.0.0.1:3000)\n");
      process.exit(EXIT_USAGE);
    }
    const code = await runCommand(
      {
        url,
        token,
        input,
        chatId: options.chat as string | undefined,
        workspaceId: options.workspace as string | undefined,
        model: options.model as string | undefined,
        approve: options.approve as (typeof DECISIONS)[number] | undefined,
        allowBash: options.allowBash === true,
        useWeb: options.useWeb === true,
      },
      { stdin: process.stdin, stdout: process.stdout, stderr: process.stderr, interactive: process.stdin.isTTY === true || process.env.AGENTQ_PROMPT === "1" },
    );
    process.exit(code);
  });

// commander's own parse errors end in exitOverride above; a token it cannot place is a usage error too.
program.on("command:*", (operands: string[]) => {
  throw new InvalidArgumentError(`unknown command ${operands[0]}`);
});

await program.parseAsync(process.argv);
