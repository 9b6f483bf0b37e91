import { useState } from "react";
import { NavLink } from "react-router";
import { errorMessage } from "../../api/api-error.ts";
import { useChatList } from "../../api/use-chats.ts";
import { classNames } from "../../lib/class-names.ts";
import { formatRelative } from "../../lib/format.ts";
import { Alert } from "../Alert/Alert.tsx";
import { Button } from "../Button/Button.tsx";
import { Icon } from "../Icon/Icon.tsx";
import { Loading } from "../Loading/Loading.tsx";
import { NewChatDialog } from "../NewChatDialog/NewChatDialog.tsx";
import { StatusBadge } from "../StatusBadge/StatusBadge.tsx";
import styles from "./ChatList.module.css";

/** The person's chats, newest activity first, with the last run's status; and the New chat button. */
export function ChatList({ className }: { className?: string }) {
  const chats = useChatList();
  const [creating, setCreating] = useState(false);
  const items = chats.data?.pages.flatMap((page) => page.chats) ?? [];

  return (
    <section className={classNames(styles.list, className)} aria-labelledby="chat-list-title">
      <div className={styles.header}>
        <h2 id="chat-list-title" className={styles.title}>
          Chats
        </h2>
        <Button size="small" variant="primary" onClick={() => setCreating(true)}>
          <Icon name="plus" size={14} />
          New chat
        </Button>
      </div>
      <NewChatDialog open={creating} onClose={() => setCreating(false)} />
      {chats.isPending && <Loading label="Loading chats…" />}
      {chats.isError && (
        <div className={styles.message}>
          <Alert>{errorMessage(chats.error)}</Alert>
        </div>
      )}
      {chats.isSuccess && items.length === 0 && <p className={styles.empty}>No chats yet — start one with New chat.</p>}
      {items.length > 0 && (
        <ul className={styles.items}>
          {items.map((chat) => (
            <li key={chat.id}>
              <NavLink to={`/chats/${encodeURIComponent(chat.id)}`} className={({ isActive }) => classNames(styles.item, isActive && styles.itemActive)}>
                <span className={styles.itemTitle}>{chat.title || "Untitled chat"}</span>
                <span className={styles.itemMeta}>
                  <span>{formatRelative(chat.last_run?.created_at ?? chat.updated_at)}</span>
                  {chat.last_run && <StatusBadge status={chat.last_run.status} />}
                </span>
              </NavLink>
            </li>
          ))}
        </ul>
      )}
      {chats.hasNextPage && (
        <div className={styles.more}>
          <Button size="small" variant="ghost" busy={chats.isFetchingNextPage} onClick={() => void chats.fetchNextPage()}>
            Load older chats
          </Button>
        </div>
      )}
    </section>
  );
}
