/**
 * What `agentq run` prints of the model's text: live deltas at once, and each completed message's
 * text that the deltas did not show. Deltas are live-only and may arrive around the durable events
 * in either order (the API replays events while it passes deltas straight on): a message whose deltas
 * were missed (a reconnect) is printed from `message.completed`, and deltas of the next message that
 * came before this one's `message.completed` are kept as the start of the next. Tool lines and prompts
 * go through `line`, which starts on a fresh line.
 */
export function createTextPrinter(say: (text: string) => void) {
  // Printed from deltas and not yet matched to a completed message.
  let streamed = "";
  let atLineStart = true;
  const write = (text: string) => {
    if (text.length === 0) return;
    say(text);
    atLineStart = text.endsWith("\n");
  };
  return {
    write,
    line(text: string): void {
      if (!atLineStart) write("\n");
      write(`${text}\n`);
    },
    delta(text: string): void {
      streamed += text;
      write(text);
    },
    messageCompleted(content: string): void {
      if (streamed.startsWith(content)) {
        // All of it was streamed, and maybe the next message's start after it.
        streamed = streamed.slice(content.length);
      } else if (content.startsWith(streamed)) {
        write(content.slice(streamed.length));
        streamed = "";
      } else {
        // Deltas of two messages interleaved with a gap: print the message whole on its own line.
        this.line(content);
        streamed = "";
      }
      if (streamed === "" && !atLineStart) write("\n");
    },
  };
}
