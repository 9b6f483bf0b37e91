import { errorMessage } from "../../api/api-error.ts";
import { useAuditLog } from "../../api/use-administration.ts";
import { formatDateTime } from "../../lib/format.ts";
import { Alert } from "../Alert/Alert.tsx";
import { Button } from "../Button/Button.tsx";
import { Loading } from "../Loading/Loading.tsx";
import { DataTable } from "../DataTable/DataTable.tsx";
import styles from "./AuditLog.module.css";

/** Who changed what (approval decisions, settings, users, MCP servers), newest first, older pages on demand. */
export function AuditLog({ userNames }: { userNames: ReadonlyMap<string, string> }) {
  const audit = useAuditLog();
  if (audit.isPending) return <Loading label="Loading the audit log…" />;
  if (audit.isError) return <Alert>{errorMessage(audit.error)}</Alert>;
  const entries = audit.data.pages.flatMap((page) => page.entries);
  return (
    <div className={styles.wrapper}>
      <DataTable caption="Audit log" columns={["When", "Who", "Action", "Target", "Details"]}>
        {entries.length === 0 && (
          <tr>
            <td colSpan={5}>Nothing recorded yet.</td>
          </tr>
        )}
        {entries.map((entry) => (
          <tr key={entry.id}>
            <td>{formatDateTime(entry.at)}</td>
            <td>{entry.actor_id === null ? "system" : (userNames.get(entry.actor_id) ?? entry.actor_id)}</td>
            <td>{entry.action}</td>
            <td className={styles.mono}>{entry.target}</td>
            <td className={styles.details}>{JSON.stringify(entry.details)}</td>
          </tr>
        ))}
      </DataTable>
      {audit.hasNextPage && (
        <Button variant="secondary" onClick={() => void audit.fetchNextPage()} disabled={audit.isFetchingNextPage}>
          {audit.isFetchingNextPage ? "Loading…" : "Older entries"}
        </Button>
      )}
    </div>
  );
}
