import { useMemo, useState } from "react";
import { errorMessage } from "../../api/api-error.ts";
import type { Email } from "../../api/types.ts";
import { type EmailFields, useCreateEmail, useDeleteEmail, useEmails, useSendEmail, useUpdateEmail } from "../../api/use-emails.ts";
import { Alert } from "../../components/Alert/Alert.tsx";
import { Badge, type BadgeTone } from "../../components/Badge/Badge.tsx";
import { Button } from "../../components/Button/Button.tsx";
import { EmailForm } from "../../components/EmailForm/EmailForm.tsx";
import { EmptyState } from "../../components/EmptyState/EmptyState.tsx";
import { Loading } from "../../components/Loading/Loading.tsx";
import { PageHeader } from "../../components/PageHeader/PageHeader.tsx";
import { formatDateTime } from "../../lib/format.ts";
import styles from "./MailPage.module.css";

/** What a person reads for an email's state: `sending` with an `outcome unknown` error is in doubt. */
function statusOf(email: Email): { label: string; tone: BadgeTone } {
  switch (email.status) {
    case "draft":
      return { label: "draft", tone: "neutral" };
    case "failed":
      return { label: "not sent", tone: "danger" };
    case "sent":
      return { label: "sent", tone: "success" };
    case "sending":
      return email.error === null ? { label: "sending", tone: "accent" } : { label: "outcome unknown", tone: "warning" };
  }
}

function Recipients({ email }: { email: Email }) {
  return (
    <span className={styles.recipients}>
      To {email.to.join(", ")}
      {email.cc.length > 0 ? ` · Cc ${email.cc.join(", ")}` : ""}
    </span>
  );
}

/** Email drafts (create, edit, delete, send) and sent mail with its status. */
export function MailPage() {
  const emails = useEmails();
  const create = useCreateEmail();
  const update = useUpdateEmail();
  const remove = useDeleteEmail();
  const send = useSendEmail();
  const [editing, setEditing] = useState<Email | null>(null);
  // Bumped when a new draft is saved: the form starts empty again.
  const [newDraftGeneration, setNewDraftGeneration] = useState(0);

  const drafts = emails.data?.filter((email) => email.status === "draft" || email.status === "failed") ?? [];
  const sent = emails.data?.filter((email) => email.status === "sent" || email.status === "sending") ?? [];
  const editingFields = useMemo<EmailFields | undefined>(
    () => (editing ? { to: editing.to, cc: editing.cc, subject: editing.subject, body: editing.body } : undefined),
    [editing],
  );
  const failure = [create, update, remove, send].find((mutation) => mutation.isError)?.error;

  const save = (fields: EmailFields) => {
    if (editing) update.mutate({ id: editing.id, fields }, { onSuccess: () => setEditing(null) });
    else create.mutate(fields, { onSuccess: () => setNewDraftGeneration((generation) => generation + 1) });
  };

  return (
    <div className={styles.page}>
      <PageHeader title="Mail" description="Drafts you or your runs wrote, and what was sent. An email is sent at most once." />
      {failure && <Alert>{errorMessage(failure)}</Alert>}
      <section className={styles.section} aria-labelledby="mail-compose">
        <h2 id="mail-compose" className={styles.heading}>
          {editing ? "Edit draft" : "New draft"}
        </h2>
        <EmailForm
          key={editing?.id ?? `new-${newDraftGeneration}`}
          initial={editingFields}
          busy={create.isPending || update.isPending}
          onSave={save}
          {...(editing ? { onCancel: () => setEditing(null) } : {})}
        />
      </section>

      {emails.isPending && <Loading label="Loading mail…" />}
      {emails.isError && <Alert>{errorMessage(emails.error)}</Alert>}
      {emails.isSuccess && (
        <>
          <section className={styles.section} aria-labelledby="mail-drafts">
            <h2 id="mail-drafts" className={styles.heading}>
              Drafts
            </h2>
            {drafts.length === 0 ? (
              <EmptyState title="No drafts">Write one above, or let a run draft one (draft_email).</EmptyState>
            ) : (
              <ul className={styles.list} aria-label="Drafts">
                {drafts.map((email) => (
                  <li key={email.id} className={styles.email} aria-label={email.subject || "(no subject)"}>
                    <div className={styles.row}>
                      <div className={styles.titles}>
                        <span className={styles.subject}>{email.subject || "(no subject)"}</span>
                        <Recipients email={email} />
                      </div>
                      <Badge tone={statusOf(email).tone}>{statusOf(email).label}</Badge>
                    </div>
                    {email.error && <p className={styles.error}>{email.error}</p>}
                    <p className={styles.body}>{email.body}</p>
                    <div className={styles.actions}>
                      <Button size="small" onClick={() => setEditing(email)}>
                        Edit
                      </Button>
                      <Button size="small" variant="primary" busy={send.isPending && send.variables === email.id} onClick={() => send.mutate(email.id)}>
                        Send
                      </Button>
                      <Button
                        size="small"
                        variant="danger"
                        busy={remove.isPending && remove.variables === email.id}
                        onClick={() => {
                          if (editing?.id === email.id) setEditing(null);
                          remove.mutate(email.id);
                        }}
                      >
                        Delete
                      </Button>
                    </div>
                  </li>
                ))}
              </ul>
            )}
          </section>
          <section className={styles.section} aria-labelledby="mail-sent">
            <h2 id="mail-sent" className={styles.heading}>
              Sent
            </h2>
            {sent.length === 0 ? (
              <EmptyState title="Nothing sent yet">Sent mail appears here with its status.</EmptyState>
            ) : (
              <ul className={styles.list} aria-label="Sent mail">
                {sent.map((email) => (
                  <li key={email.id} className={styles.email} aria-label={email.subject || "(no subject)"}>
                    <div className={styles.row}>
                      <div className={styles.titles}>
                        <span className={styles.subject}>{email.subject || "(no subject)"}</span>
                        <Recipients email={email} />
                      </div>
                      <Badge tone={statusOf(email).tone}>{statusOf(email).label}</Badge>
                    </div>
                    {email.error && <p className={styles.error}>{email.error}</p>}
                    <p className={styles.meta}>
                      {email.sent_at ? `Sent ${formatDateTime(email.sent_at)}` : "Not confirmed sent"}
                      {email.message_id ? ` · Message-ID ${email.message_id}` : ""}
                    </p>
                  </li>
                ))}
              </ul>
            )}
          </section>
        </>
      )}
    </div>
  );
}
