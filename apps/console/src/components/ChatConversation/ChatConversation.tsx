import { useRef, useState } from "react";
import { errorMessage } from "../../api/api-error.ts";
import { deriveRunStatus, isTerminalStatus } from "../../api/derive-run-status.ts";
import type { Chat } from "../../api/types.ts";
import { useChatRuns } from "../../api/use-chats.ts";
import { useRunEvents, useRunSocketConnection } from "../../api/use-run-events.ts";
import { useRun } from "../../api/use-runs.ts";
import { Alert } from "../Alert/Alert.tsx";
import { ApprovalList } from "../ApprovalList/ApprovalList.tsx";
import { Composer } from "../Composer/Composer.tsx";
import { EmptyState } from "../EmptyState/EmptyState.tsx";
import { Markdown } from "../Markdown/Markdown.tsx";
import { RunPanel } from "../RunPanel/RunPanel.tsx";
import { Transcript } from "../Transcript/Transcript.tsx";
import styles from "./ChatConversation.module.css";
import { pickFollowedRun } from "./pick-followed-run.ts";
import { useStickToBottom } from "./use-stick-to-bottom.ts";

/** At this width and wider the run panel sits beside the conversation, timeline open. */
const WIDE_LAYOUT = "(min-width: 1280px)";

/** The transcript, the followed run streaming live with its approvals, the run panel and the composer. */
export function ChatConversation({ chat }: { chat: Chat }) {
  useRunSocketConnection();
  const runs = useChatRuns(chat.id);
  // A run just started is followed at once, before the runs list is fetched again: its first
  // streamed text is sent only to subscribers already there.
  const [startedRunId, setStartedRunId] = useState<string | undefined>(undefined);
  const picked = pickFollowedRun(runs.data);
  const startedUnlisted = startedRunId !== undefined && !runs.data?.some((item) => item.id === startedRunId);
  const followedId = startedUnlisted && (picked === undefined || isTerminalStatus(picked.status)) ? startedRunId : picked?.id;
  const run = useRun(followedId);
  const live = useRunEvents(followedId);
  const current = run.data?.id === followedId ? run.data : picked?.id === followedId ? picked : undefined;
  const status = deriveRunStatus(live.events) ?? current?.status;
  const active = status !== undefined && !isTerminalStatus(status);
  const pending = active ? (current?.pending_approvals ?? []) : [];
  const scroller = useRef<HTMLDivElement>(null);
  useStickToBottom(scroller, `${chat.messages.length}:${live.streamingText.length}:${pending.length}:${live.events.length}`);
  const wide = typeof window !== "undefined" && window.matchMedia(WIDE_LAYOUT).matches;

  return (
    <div className={styles.conversation}>
      <div className={styles.main} ref={scroller}>
        <div className={styles.flow}>
          {chat.messages.length === 0 && !followedId && (
            <EmptyState title="No messages yet">
              Write a message below to start a run. You will see it stream here, and approve what it wants to change.
            </EmptyState>
          )}
          <Transcript messages={chat.messages} />
          <div className={styles.streaming} role="log" aria-live="polite" aria-label="Streaming answer" data-role="streaming">
            {active && live.streamingText && <Markdown text={live.streamingText} />}
            {active && !live.streamingText && status === "running" && <p className={styles.thinking}>Working…</p>}
          </div>
          {pending.length > 0 && (
            <div className={styles.approvals}>
              <ApprovalList approvals={pending} workspaceIdOf={() => chat.workspace_id} />
            </div>
          )}
        </div>
      </div>
      <aside className={styles.aside} aria-label="Run details">
        {runs.isError && <Alert>{errorMessage(runs.error)}</Alert>}
        {current && status ? (
          <RunPanel
            key={current.id}
            run={current}
            status={status}
            events={live.events}
            connection={live.connection}
            streamError={live.error}
            timelineInitiallyOpen={wide}
          />
        ) : (
          runs.isSuccess && <p className={styles.noRun}>No runs yet. Each message you send starts one.</p>
        )}
      </aside>
      <div className={styles.composer}>
        <Composer chatId={chat.id} runActive={active} onStarted={setStartedRunId} />
      </div>
    </div>
  );
}
