import type { Message } from "../../api/types.ts";
import { Markdown } from "../Markdown/Markdown.tsx";
import { ToolCallView } from "../ToolCallView/ToolCallView.tsx";
import styles from "./Transcript.module.css";

/** The chat's messages: the person's, the assistant's (markdown, HTML escaped) with each tool call and its result. */
export function Transcript({ messages }: { messages: readonly Message[] }) {
  const results = new Map<string, string | null>();
  for (const message of messages) if (message.role === "tool" && message.tool_call_id) results.set(message.tool_call_id, message.content);
  const answered = new Set<string>();
  for (const message of messages) for (const call of message.tool_calls ?? []) answered.add(call.id);

  return (
    <ol className={styles.transcript} aria-label="Transcript">
      {messages.map((message, index) => {
        const key = `${index}-${message.role}`;
        if (message.role === "user") {
          return (
            <li key={key} className={styles.user} data-role="user">
              <span className="visually-hidden">You: </span>
              <div className={styles.userBubble}>{message.content}</div>
            </li>
          );
        }
        if (message.role === "assistant") {
          const calls = message.tool_calls ?? [];
          return (
            <li key={key} className={styles.assistant} data-role="assistant">
              <span className="visually-hidden">Assistant: </span>
              {message.content && <Markdown text={message.content} className={styles.assistantText} />}
              {calls.length > 0 && (
                <div className={styles.calls}>
                  {calls.map((call) => (
                    <ToolCallView key={call.id} call={call} result={results.has(call.id) ? results.get(call.id) : undefined} />
                  ))}
                </div>
              )}
            </li>
          );
        }
        // A tool message whose call is shown above is rendered with that call.
        if (message.tool_call_id && answered.has(message.tool_call_id)) return null;
        return (
          <li key={key} className={styles.assistant} data-role="tool">
            <ToolCallView call={{ id: message.tool_call_id ?? key, name: "tool result", arguments: {} }} result={message.content} />
          </li>
        );
      })}
    </ol>
  );
}
