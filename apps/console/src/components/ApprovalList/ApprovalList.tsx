import { type ReactNode, useState } from "react";
import type { PendingApproval } from "../../api/types.ts";
import { Alert } from "../Alert/Alert.tsx";
import { ApprovalCard } from "../ApprovalCard/ApprovalCard.tsx";
import { Button } from "../Button/Button.tsx";
import styles from "./ApprovalList.module.css";

interface RefusedDecision {
  approvalId: string;
  tool: string;
  message: string;
}

export interface ApprovalListProps<T extends PendingApproval> {
  approvals: readonly T[];
  workspaceIdOf: (approval: T) => string | null | undefined;
  contextOf?: (approval: T) => ReactNode;
}

/**
 * The approval cards, plus the refusals of decisions whose approval is gone (already decided, run
 * finished): the card leaves with the approval, the explanation stays until dismissed.
 */
export function ApprovalList<T extends PendingApproval>({ approvals, workspaceIdOf, contextOf }: ApprovalListProps<T>) {
  const [refused, setRefused] = useState<RefusedDecision[]>([]);
  const pendingIds = new Set(approvals.map((approval) => approval.id));
  const orphaned = refused.filter((item) => !pendingIds.has(item.approvalId));
  if (approvals.length === 0 && orphaned.length === 0) return null;
  return (
    <div className={styles.list}>
      {orphaned.map((item) => (
        <Alert
          key={item.approvalId}
          title={`Approval: ${item.tool}`}
          actions={
            <Button size="small" variant="ghost" onClick={() => setRefused((current) => current.filter((other) => other.approvalId !== item.approvalId))}>
              Dismiss
            </Button>
          }
        >
          {item.message}
        </Alert>
      ))}
      {approvals.map((approval) => (
        <ApprovalCard
          key={approval.id}
          approval={approval}
          workspaceId={workspaceIdOf(approval)}
          context={contextOf?.(approval)}
          onDecisionError={(failed, message) =>
            setRefused((current) => [...current.filter((item) => item.approvalId !== failed.id), { approvalId: failed.id, tool: failed.tool, message }])
          }
        />
      ))}
    </div>
  );
}
