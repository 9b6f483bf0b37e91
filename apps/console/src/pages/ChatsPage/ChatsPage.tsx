import { Suspense } from "react";
import { Outlet, useParams } from "react-router";
import { ChatList } from "../../components/ChatList/ChatList.tsx";
import { EmptyState } from "../../components/EmptyState/EmptyState.tsx";
import { Loading } from "../../components/Loading/Loading.tsx";
import { classNames } from "../../lib/class-names.ts";
import styles from "./ChatsPage.module.css";

/** The chat list beside the open chat; on a narrow screen, one or the other. */
export function ChatsPage() {
  const { chatId } = useParams();
  return (
    <div className={classNames(styles.page, chatId !== undefined && styles.chatOpen)}>
      <ChatList className={styles.list} />
      <div className={styles.content}>
        {/* The open chat's page loads on its own, beside the list that is already there. */}
        <Suspense fallback={<Loading label="Loading the chat…" />}>
          <Outlet />
        </Suspense>
      </div>
    </div>
  );
}

export function ChatsIndex() {
  return (
    <div className={styles.index}>
      <h1 className="visually-hidden">Chats</h1>
      <EmptyState title="Open a chat, or start one">
        Pick a chat on the left, or use New chat. Each message you send starts a run: you watch it stream here and approve what it wants to change.
      </EmptyState>
    </div>
  );
}
