import { errorMessage } from "../../api/api-error.ts";
import type { ApprovalRecord } from "../../api/types.ts";
import { useChatApprovals } from "../../api/use-chats.ts";
import { formatDateTime } from "../../lib/format.ts";
import { Alert } from "../Alert/Alert.tsx";
import { Badge, type BadgeTone, EffectBadges } from "../Badge/Badge.tsx";
import { EmptyState } from "../EmptyState/EmptyState.tsx";
import { JsonView } from "../JsonView/JsonView.tsx";
import { Loading } from "../Loading/Loading.tsx";
import styles from "./ApprovalHistory.module.css";

const DECISION_LABELS: Record<string, { label: string; tone: BadgeTone }> = {
  allow_task: { label: "allowed for the run", tone: "success" },
  allow_chat: { label: "allowed for the chat", tone: "success" },
  deny: { label: "denied", tone: "danger" },
};

function outcome(approval: ApprovalRecord): { label: string; tone: BadgeTone } {
  if (approval.decision && DECISION_LABELS[approval.decision]) return DECISION_LABELS[approval.decision]!;
  if (approval.status === "pending") return { label: "pending", tone: "warning" };
  return { label: approval.status, tone: "neutral" };
}

/** Every approval the chat's runs asked for, newest first, with the decision and who made it. */
export function ApprovalHistory({ chatId }: { chatId: string }) {
  const approvals = useChatApprovals(chatId);
  if (approvals.isPending) return <Loading label="Loading the approval history…" />;
  if (approvals.isError) return <Alert>{errorMessage(approvals.error)}</Alert>;
  if (approvals.data.length === 0) return <EmptyState title="No approvals yet">Calls that needed your approval in this chat will be listed here.</EmptyState>;
  return (
    <ol className={styles.list} aria-label="Approval history">
      {[...approvals.data].reverse().map((approval) => {
        const { label, tone } = outcome(approval);
        return (
          <li key={approval.id} className={styles.item}>
            <div className={styles.row}>
              <span className={styles.tool}>{approval.tool}</span>
              <EffectBadges effects={approval.effects} />
              <Badge tone={tone}>{label}</Badge>
              {approval.edited && <Badge tone="accent">edited</Badge>}
              <span className={styles.time}>{formatDateTime(approval.decided_at ?? approval.created_at)}</span>
            </div>
            <JsonView value={approval.arguments} summary="Proposed arguments" />
            {approval.edited && <JsonView value={approval.edited_arguments} summary="Edited arguments (what ran)" />}
          </li>
        );
      })}
    </ol>
  );
}
