import { Link, NavLink, useParams } from "react-router";
import { errorMessage, isApiError } from "../../api/api-error.ts";
import { useChat } from "../../api/use-chats.ts";
import { useWorkspaces } from "../../api/use-workspaces.ts";
import { Alert } from "../../components/Alert/Alert.tsx";
import { ApprovalHistory } from "../../components/ApprovalHistory/ApprovalHistory.tsx";
import { Badge } from "../../components/Badge/Badge.tsx";
import { ChatConversation } from "../../components/ChatConversation/ChatConversation.tsx";
import { EmptyState } from "../../components/EmptyState/EmptyState.tsx";
import { GrantList } from "../../components/GrantList/GrantList.tsx";
import { Icon } from "../../components/Icon/Icon.tsx";
import { Loading } from "../../components/Loading/Loading.tsx";
import { classNames } from "../../lib/class-names.ts";
import styles from "./ChatPage.module.css";

export type ChatSection = "conversation" | "grants" | "history";

const SECTIONS: { section: ChatSection; label: string; suffix: string }[] = [
  { section: "conversation", label: "Conversation", suffix: "" },
  { section: "grants", label: "Grants", suffix: "/grants" },
  { section: "history", label: "Approval history", suffix: "/history" },
];

export function ChatPage({ section }: { section: ChatSection }) {
  const chatId = useParams().chatId ?? "";
  const chat = useChat(chatId);
  const workspaces = useWorkspaces();
  const base = `/chats/${encodeURIComponent(chatId)}`;

  if (chat.isPending) return <Loading label="Loading the chat…" />;
  if (chat.isError) {
    return (
      <div className={styles.message}>
        {isApiError(chat.error, "not_found") ? (
          <EmptyState title="This chat does not exist" action={<Link to="/chats">Back to your chats</Link>}>
            It may have been deleted, or it belongs to someone else.
          </EmptyState>
        ) : (
          <Alert>{errorMessage(chat.error)}</Alert>
        )}
      </div>
    );
  }

  const workspace = workspaces.data?.find((candidate) => candidate.id === chat.data.workspace_id);
  return (
    <div className={styles.page}>
      <header className={styles.header}>
        <div className={styles.titleRow}>
          <Link to="/chats" className={styles.back}>
            <Icon name="back" size={16} />
            <span className="visually-hidden">All chats</span>
          </Link>
          <h1 className={styles.title}>{chat.data.title || "Untitled chat"}</h1>
          {chat.data.workspace_id && (
            <Link to={`/workspaces/${encodeURIComponent(chat.data.workspace_id)}`} className={styles.workspace}>
              <Badge>
                <Icon name="folder" size={12} />
                {workspace?.name ?? "workspace"}
              </Badge>
            </Link>
          )}
        </div>
        <nav aria-label="Chat sections" className={styles.tabs}>
          {SECTIONS.map((item) => (
            <NavLink key={item.section} to={`${base}${item.suffix}`} end className={({ isActive }) => classNames(styles.tab, isActive && styles.tabActive)}>
              {item.label}
            </NavLink>
          ))}
        </nav>
      </header>
      {section === "conversation" ? (
        <div className={styles.body}>
          <ChatConversation chat={chat.data} />
        </div>
      ) : (
        <div className={classNames(styles.body, styles.sectionBody)}>
          <div className={styles.sectionInner}>{section === "grants" ? <GrantList chatId={chatId} /> : <ApprovalHistory chatId={chatId} />}</div>
        </div>
      )}
    </div>
  );
}
