import { errorMessage } from "../../api/api-error.ts";
import { useChatGrants, useRevokeGrant } from "../../api/use-chats.ts";
import { formatDateTime } from "../../lib/format.ts";
import { Alert } from "../Alert/Alert.tsx";
import { Badge, EffectBadges } from "../Badge/Badge.tsx";
import { Button } from "../Button/Button.tsx";
import { EmptyState } from "../EmptyState/EmptyState.tsx";
import { Loading } from "../Loading/Loading.tsx";
import { DataTable } from "../DataTable/DataTable.tsx";
import styles from "./GrantList.module.css";

/** The chat's standing permissions (from "Allow for this run/chat"), each revocable. */
export function GrantList({ chatId }: { chatId: string }) {
  const grants = useChatGrants(chatId);
  const revoke = useRevokeGrant(chatId);
  if (grants.isPending) return <Loading label="Loading grants…" />;
  if (grants.isError) return <Alert>{errorMessage(grants.error)}</Alert>;
  if (grants.data.length === 0) {
    return (
      <EmptyState title="No grants in force">
        When you allow a call for this run or for this chat, later calls of the same tool and effects go ahead without asking; they are listed here.
      </EmptyState>
    );
  }
  return (
    <div className={styles.wrapper}>
      {revoke.isError && <Alert>{errorMessage(revoke.error)}</Alert>}
      <DataTable caption="Grants of this chat" columns={["Tool", "Effects", "Scope", "Granted", { visuallyHidden: "Actions" }]}>
        {grants.data.map((grant) => (
          <tr key={grant.id}>
            <td className={styles.tool}>{grant.tool}</td>
            <td>
              <span className={styles.badges}>
                <EffectBadges effects={grant.effects} />
              </span>
            </td>
            <td>{grant.scope === "allow_chat" ? <Badge tone="accent">this chat</Badge> : <Badge>run {grant.run_id}</Badge>}</td>
            <td className="muted">{formatDateTime(grant.created_at)}</td>
            <td className={styles.actions}>
              <Button
                size="small"
                variant="danger"
                busy={revoke.isPending && revoke.variables === grant.id}
                onClick={() => revoke.mutate(grant.id)}
                aria-label={`Revoke ${grant.tool} grant`}
              >
                Revoke
              </Button>
            </td>
          </tr>
        ))}
      </DataTable>
    </div>
  );
}
