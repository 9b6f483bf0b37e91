import { Link } from "react-router";
import { errorMessage } from "../../api/api-error.ts";
import { usePendingApprovals } from "../../api/use-approvals.ts";
import { useChats } from "../../api/use-chats.ts";
import { Alert } from "../../components/Alert/Alert.tsx";
import { ApprovalList } from "../../components/ApprovalList/ApprovalList.tsx";
import { EmptyState } from "../../components/EmptyState/EmptyState.tsx";
import { Loading } from "../../components/Loading/Loading.tsx";
import { PageHeader } from "../../components/PageHeader/PageHeader.tsx";
import styles from "./ApprovalsPage.module.css";

/** Every pending approval of the person's runs, across chats: the inbox. */
export function ApprovalsPage() {
  const approvals = usePendingApprovals();
  const chatIds = [...new Set((approvals.data ?? []).map((approval) => approval.chat_id))];
  // The chats give each card its title and workspace (the tool's schema for Edit arguments depends on it).
  const chats = useChats(chatIds);
  const chatById = new Map(chats.flatMap((query) => (query.data ? [[query.data.id, query.data] as const] : [])));

  return (
    <div className={styles.page}>
      <PageHeader title="Approvals" description="Calls your runs paused on. Each waits for your decision until it expires." />
      {approvals.isPending && <Loading label="Loading approvals…" />}
      {approvals.isError && <Alert>{errorMessage(approvals.error)}</Alert>}
      {approvals.isSuccess && approvals.data.length === 0 && (
        <EmptyState title="Nothing waits for you">When a run wants to do something that needs your approval, it shows up here and in its chat.</EmptyState>
      )}
      {approvals.isSuccess && (
        <ApprovalList
          approvals={approvals.data}
          workspaceIdOf={(approval) => chatById.get(approval.chat_id)?.workspace_id}
          contextOf={(approval) => (
            <p className={styles.context}>
              In <Link to={`/chats/${encodeURIComponent(approval.chat_id)}`}>{chatById.get(approval.chat_id)?.title || "a chat"}</Link>
              <span className={styles.runId}> · run {approval.run_id}</span>
            </p>
          )}
        />
      )}
    </div>
  );
}
