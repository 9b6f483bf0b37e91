import { errorMessage } from "../../api/api-error.ts";
import type { WebhookDelivery } from "../../api/types.ts";
import { useWebhookDeliveries } from "../../api/use-webhooks.ts";
import { formatDateTime } from "../../lib/format.ts";
import { Alert } from "../Alert/Alert.tsx";
import { Badge, type BadgeTone } from "../Badge/Badge.tsx";
import { Loading } from "../Loading/Loading.tsx";
import { DataTable } from "../DataTable/DataTable.tsx";
import styles from "./WebhookDeliveries.module.css";

const STATUS_TONE: Record<WebhookDelivery["status"], BadgeTone> = {
  pending: "warning",
  delivering: "accent",
  succeeded: "success",
  failed: "danger",
};

/** What the endpoint answered last, or why there was no answer. */
function lastAnswer(delivery: WebhookDelivery): string {
  if (delivery.attempts === 0) return "not tried yet";
  if (delivery.last_status_code !== null) return `HTTP ${delivery.last_status_code}`;
  return delivery.last_error ?? "no answer";
}

/** A webhook's latest deliveries: the event, where it stands, every attempt's answer. */
export function WebhookDeliveries({ webhookId }: { webhookId: string }) {
  const deliveries = useWebhookDeliveries(webhookId);
  if (deliveries.isPending) return <Loading label="Loading deliveries…" />;
  if (deliveries.isError) return <Alert>{errorMessage(deliveries.error)}</Alert>;
  if (deliveries.data.length === 0) return <p className={styles.empty}>No deliveries yet: events of your runs of the chosen types will appear here.</p>;
  return (
    <DataTable caption="Latest deliveries" columns={["Event", "Status", "Attempts", "Last answer", "Created", "Next attempt"]} className={styles.scroll}>
      {deliveries.data.map((delivery) => (
        <tr key={delivery.id}>
          <td>
            <span className={styles.event}>{delivery.event}</span>
            <span className={styles.detail} title={delivery.id}>
              {delivery.run_id} · #{delivery.event_seq}
            </span>
          </td>
          <td>
            <Badge tone={STATUS_TONE[delivery.status]}>{delivery.status}</Badge>
          </td>
          <td title={delivery.attempt_log.map((attempt) => `${attempt.attempt}: ${attempt.status_code ?? attempt.error ?? "?"}`).join("\n")}>
            {delivery.attempts}
          </td>
          <td>{lastAnswer(delivery)}</td>
          <td>{formatDateTime(delivery.created_at)}</td>
          <td>{delivery.next_attempt_at ? formatDateTime(delivery.next_attempt_at) : "—"}</td>
        </tr>
      ))}
    </DataTable>
  );
}
