import { type ReactNode, useId, useState } from "react";
import { describeDecisionError } from "../../api/decision-error.ts";
import type { ApprovalDecision, PendingApproval, TaintSource } from "../../api/types.ts";
import { useDecideApproval } from "../../api/use-approvals.ts";
import { useTools } from "../../api/use-tools.ts";
import { prettyJson } from "../../lib/format.ts";
import { validateJsonSchema } from "../../lib/validate-json-schema.ts";
import { Alert } from "../Alert/Alert.tsx";
import { EffectBadges } from "../Badge/Badge.tsx";
import { Button } from "../Button/Button.tsx";
import { Countdown } from "../Countdown/Countdown.tsx";
import { TextAreaField } from "../Form/TextAreaField.tsx";
import { JsonView } from "../JsonView/JsonView.tsx";
import styles from "./ApprovalCard.module.css";

export interface ApprovalCardProps {
  approval: PendingApproval;
  /** The chat's workspace: the tool list that holds the call's schema depends on it. */
  workspaceId: string | null | undefined;
  /** Told when a decision is refused, so the message outlives the card if the approval goes away. */
  onDecisionError?: (approval: PendingApproval, message: string) => void;
  /** Extra context shown under the title (the inbox names the chat). */
  context?: ReactNode;
}

function describeTaint(sources: readonly TaintSource[]): string {
  return sources.map((source) => (source.detail ? `${source.tool} ${source.detail}` : source.tool)).join(", ");
}

type EditCheck = { ok: true; value: Record<string, unknown> } | { ok: false; errors: string[] };

/** Parses the edited JSON and checks it against the tool's JSON Schema (from GET /api/tools). */
function checkEdited(text: string, schema: unknown): EditCheck {
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch (error) {
    return { ok: false, errors: [`This is not valid JSON: ${error instanceof Error ? error.message : String(error)}`] };
  }
  if (typeof value !== "object" || value === null || Array.isArray(value)) return { ok: false, errors: ["The arguments must be a JSON object: { … }"] };
  const errors = validateJsonSchema(schema, value);
  if (errors.length > 0) return { ok: false, errors: errors.map((error) => error.message) };
  return { ok: true, value: value as Record<string, unknown> };
}

/**
 * A paused tool call waiting for a person: what it would do, why it paused, how long it can wait,
 * and the decisions. A named region ("Approval: write_file") so it can be found and announced.
 */
export function ApprovalCard({ approval, workspaceId, onDecisionError, context }: ApprovalCardProps) {
  const headingId = useId();
  const decide = useDecideApproval();
  const [editing, setEditing] = useState(false);
  const [draft, setDraft] = useState(() => prettyJson(approval.arguments));
  const [editErrors, setEditErrors] = useState<string[]>([]);
  const [decisionError, setDecisionError] = useState<string | null>(null);
  // Every tool the user could have been offered, so the paused tool is in the list whatever the run's switches.
  const tools = useTools({ ...(workspaceId ? { workspace_id: workspaceId } : {}), allow_bash: true, use_web: true }, editing);
  const tool = tools.data?.find((candidate) => candidate.name === approval.tool);

  async function submit(decision: ApprovalDecision) {
    setDecisionError(null);
    let edited: Record<string, unknown> | undefined;
    if (editing && decision !== "deny") {
      if (!tool && tools.isPending) {
        setEditErrors(["The tool's schema is still loading; try again in a moment."]);
        return;
      }
      const checked = checkEdited(draft, tool?.parameters);
      if (!checked.ok) {
        setEditErrors(checked.errors);
        return;
      }
      setEditErrors([]);
      edited = checked.value;
    }
    try {
      await decide.mutateAsync({ approvalId: approval.id, decision, ...(edited ? { arguments: edited } : {}) });
    } catch (error) {
      const message = describeDecisionError(error);
      setDecisionError(message);
      onDecisionError?.(approval, message);
    }
  }

  function toggleEditing() {
    if (editing) {
      setDraft(prettyJson(approval.arguments));
      setEditErrors([]);
    }
    setEditing(!editing);
  }

  const taint = approval.tainted_by ?? [];
  const busy = decide.isPending;
  return (
    <section className={styles.card} aria-labelledby={headingId}>
      <header className={styles.header}>
        <div className={styles.titleRow}>
          <h3 id={headingId} className={styles.title}>
            Approval: <span className={styles.tool}>{approval.tool}</span>
          </h3>
          <div className={styles.effects}>
            <EffectBadges effects={approval.effects} />
          </div>
        </div>
        <Countdown until={approval.expires_at} />
      </header>
      {context}
      <p className={styles.reason}>
        {approval.reason === "approval_always"
          ? `An admin asks for approval of every call of ${approval.tool}, whatever the run has read.`
          : taint.length > 0
            ? `Paused because this run read untrusted material: ${describeTaint(taint)}. Check that this call is what you want.`
            : "This call needs your approval before it runs."}
      </p>
      {approval.email && (
        <section className={styles.arguments} aria-label="The email it would send">
          <p className={styles.label}>The email it would send</p>
          <dl className={styles.email}>
            <dt>To</dt>
            <dd>{approval.email.to.join(", ") || "(nobody)"}</dd>
            {approval.email.cc.length > 0 && (
              <>
                <dt>Cc</dt>
                <dd>{approval.email.cc.join(", ")}</dd>
              </>
            )}
            <dt>Subject</dt>
            <dd>{approval.email.subject}</dd>
          </dl>
          <pre className={styles.emailBody}>{approval.email.body_preview}</pre>
        </section>
      )}
      {editing ? (
        <div className={styles.editor}>
          <TextAreaField
            label="Arguments"
            monospace
            rows={Math.min(18, Math.max(5, draft.split("\n").length + 1))}
            value={draft}
            spellCheck={false}
            onChange={(event) => {
              setDraft(event.target.value);
              setEditErrors([]);
            }}
            hint={
              tool
                ? `Checked against ${tool.name}'s parameters before it is sent.`
                : tools.isPending
                  ? "Loading the tool's schema…"
                  : "The tool's schema is not available here; the server checks the arguments when you allow the call."
            }
            error={editErrors.length > 0 ? editErrors.join("\n") : null}
          />
        </div>
      ) : (
        <div className={styles.arguments}>
          <p className={styles.label}>Proposed arguments</p>
          <JsonView value={approval.arguments} />
        </div>
      )}
      {decisionError && <Alert>{decisionError}</Alert>}
      <div className={styles.actions}>
        <Button variant="primary" busy={busy && decide.variables?.decision === "allow_task"} disabled={busy} onClick={() => void submit("allow_task")}>
          Allow for this run
        </Button>
        <Button busy={busy && decide.variables?.decision === "allow_chat"} disabled={busy} onClick={() => void submit("allow_chat")}>
          Allow for this chat
        </Button>
        <Button variant="danger" busy={busy && decide.variables?.decision === "deny"} disabled={busy} onClick={() => void submit("deny")}>
          Deny
        </Button>
        <Button variant="ghost" disabled={busy} onClick={toggleEditing} aria-pressed={editing}>
          {editing ? "Discard edits" : "Edit arguments"}
        </Button>
      </div>
    </section>
  );
}
