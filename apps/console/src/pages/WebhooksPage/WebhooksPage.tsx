import { type FormEvent, useId, useState } from "react";
import { errorMessage } from "../../api/api-error.ts";
import type { CreatedWebhook, Webhook, WebhookEventType } from "../../api/types.ts";
import { useCreateWebhook, useDeleteWebhook, useWebhooks } from "../../api/use-webhooks.ts";
import { Alert } from "../../components/Alert/Alert.tsx";
import { Badge } from "../../components/Badge/Badge.tsx";
import { Button } from "../../components/Button/Button.tsx";
import { EmptyState } from "../../components/EmptyState/EmptyState.tsx";
import { CheckboxField } from "../../components/Form/CheckboxField.tsx";
import { TextField } from "../../components/Form/TextField.tsx";
import { Loading } from "../../components/Loading/Loading.tsx";
import { NewTokenNotice } from "../../components/NewTokenNotice/NewTokenNotice.tsx";
import { PageHeader } from "../../components/PageHeader/PageHeader.tsx";
import { Panel } from "../../components/Panel/Panel.tsx";
import { RecordCard, RecordList, RecordText } from "../../components/RecordCard/RecordCard.tsx";
import { WebhookDeliveries } from "../../components/WebhookDeliveries/WebhookDeliveries.tsx";
import { formatDateTime } from "../../lib/format.ts";
import recordStyles from "../record-page.module.css";
import styles from "./WebhooksPage.module.css";

/** Every durable event type a webhook can receive, with what it means (the compiler keeps the list whole). */
const EVENT_TYPES: Record<WebhookEventType, string> = {
  "run.queued": "a run was accepted",
  "run.started": "a worker started it",
  "round.started": "a model round began",
  "message.completed": "the model answered a round",
  "tool.started": "a tool call began",
  "tool.completed": "a tool call ended",
  "approval.required": "a call waits for a person",
  "approval.decided": "someone decided it",
  "run.resumed": "a run went on after a decision",
  "guard.triggered": "a loop guard stepped in",
  "run.completed": "a run finished",
  "run.failed": "a run failed",
  "run.cancelled": "a run was cancelled",
};
const DEFAULT_EVENTS: WebhookEventType[] = ["approval.required", "run.completed", "run.failed"];

function WebhookForm({ onCreated }: { onCreated: (webhook: CreatedWebhook) => void }) {
  const create = useCreateWebhook();
  const eventsLabel = useId();
  const [url, setUrl] = useState("");
  const [description, setDescription] = useState("");
  const [events, setEvents] = useState<Set<WebhookEventType>>(new Set(DEFAULT_EVENTS));

  function toggle(type: WebhookEventType, checked: boolean) {
    const next = new Set(events);
    if (checked) next.add(type);
    else next.delete(type);
    setEvents(next);
  }

  function submit(event: FormEvent<HTMLFormElement>) {
    event.preventDefault();
    if (!url.trim() || events.size === 0) return;
    const chosen = (Object.keys(EVENT_TYPES) as WebhookEventType[]).filter((type) => events.has(type));
    create.mutate(
      { url: url.trim(), events: chosen, ...(description.trim() ? { description: description.trim() } : {}) },
      {
        onSuccess: (created) => {
          setUrl("");
          setDescription("");
          setEvents(new Set(DEFAULT_EVENTS));
          onCreated(created);
        },
      },
    );
  }

  return (
    <form className={recordStyles.form} onSubmit={submit} aria-label="New webhook">
      <TextField
        label="URL"
        type="url"
        hint="http or https; a private address needs an admin to add it to web_fetch_allow"
        placeholder="https://example.com/agentq-events"
        value={url}
        onChange={(event) => setUrl(event.target.value)}
        maxLength={2000}
        required
      />
      <TextField label="Description" value={description} onChange={(event) => setDescription(event.target.value)} maxLength={500} />
      <fieldset className={styles.events} aria-labelledby={eventsLabel}>
        <legend id={eventsLabel} className={styles.legend}>
          Events
        </legend>
        {(Object.entries(EVENT_TYPES) as [WebhookEventType, string][]).map(([type, meaning]) => (
          <CheckboxField
            key={type}
            label={<span className={styles.eventType}>{type}</span>}
            hint={meaning}
            checked={events.has(type)}
            onChange={(event) => toggle(type, event.target.checked)}
          />
        ))}
      </fieldset>
      <div className={recordStyles.formActions}>
        <Button type="submit" variant="primary" busy={create.isPending} disabled={!url.trim() || events.size === 0}>
          Add webhook
        </Button>
      </div>
      {create.isError && <Alert className={recordStyles.alert}>{errorMessage(create.error)}</Alert>}
    </form>
  );
}

function WebhookItem({ webhook }: { webhook: Webhook }) {
  const remove = useDeleteWebhook();
  const [showDeliveries, setShowDeliveries] = useState(false);
  return (
    <RecordCard
      title={<span className={styles.url}>{webhook.url}</span>}
      meta={`Added ${formatDateTime(webhook.created_at)}`}
      actions={
        <>
          <Button size="small" aria-expanded={showDeliveries} onClick={() => setShowDeliveries(!showDeliveries)} aria-label={`Deliveries to ${webhook.url}`}>
            {showDeliveries ? "Hide deliveries" : "Deliveries"}
          </Button>
          <Button
            size="small"
            variant="danger"
            busy={remove.isPending}
            onClick={() => remove.mutate(webhook.id)}
            aria-label={`Delete the webhook to ${webhook.url}`}
          >
            Delete
          </Button>
        </>
      }
    >
      {webhook.description && <RecordText>{webhook.description}</RecordText>}
      <ul className={styles.badges} aria-label="Events">
        {webhook.events.map((type) => (
          <li key={type}>
            <Badge>{type}</Badge>
          </li>
        ))}
      </ul>
      {showDeliveries && <WebhookDeliveries webhookId={webhook.id} />}
      {remove.isError && <Alert>{errorMessage(remove.error)}</Alert>}
    </RecordCard>
  );
}

export function WebhooksPage() {
  const webhooks = useWebhooks();
  const [created, setCreated] = useState<CreatedWebhook | null>(null);
  return (
    <div className={recordStyles.page}>
      <PageHeader
        title="Webhooks"
        description="Endpoints that receive your runs' events as signed POSTs (Standard Webhooks), retried with backoff until they answer 2xx."
      />
      <Panel title="New webhook" className={recordStyles.panel}>
        {created ? (
          <NewTokenNotice
            title={`Webhook to ${created.url} added`}
            warning="Copy its signing secret now: it is shown only once. Your endpoint verifies each request's webhook-signature with it."
            token={created.secret}
            secretName="signing secret"
            onDone={() => setCreated(null)}
          />
        ) : (
          <WebhookForm onCreated={setCreated} />
        )}
      </Panel>
      {webhooks.isPending && <Loading label="Loading webhooks…" />}
      {webhooks.isError && <Alert>{errorMessage(webhooks.error)}</Alert>}
      {webhooks.isSuccess && webhooks.data.length === 0 && <EmptyState title="No webhooks yet" />}
      {webhooks.isSuccess && webhooks.data.length > 0 && (
        <RecordList label="Your webhooks">
          {webhooks.data.map((webhook) => (
            <WebhookItem key={webhook.id} webhook={webhook} />
          ))}
        </RecordList>
      )}
    </div>
  );
}
