import { diffLines } from "diff";
import { type FormEvent, useEffect, useMemo, useState } from "react";
import { Link, useNavigate, useParams } from "react-router";
import { errorMessage, isApiError } from "../../api/api-error.ts";
import {
  downloadDocumentExport,
  type ExportFormat,
  useCreateDocument,
  useDeleteDocument,
  useDocument,
  useDocumentRevision,
  useDocumentRevisions,
  useDocuments,
  useUpdateDocument,
} from "../../api/use-documents.ts";
import { Alert } from "../../components/Alert/Alert.tsx";
import { Button } from "../../components/Button/Button.tsx";
import { EmptyState } from "../../components/EmptyState/EmptyState.tsx";
import { SelectField } from "../../components/Form/SelectField.tsx";
import { TextAreaField } from "../../components/Form/TextAreaField.tsx";
import { TextField } from "../../components/Form/TextField.tsx";
import { Loading } from "../../components/Loading/Loading.tsx";
import { Markdown } from "../../components/Markdown/Markdown.tsx";
import { PageHeader } from "../../components/PageHeader/PageHeader.tsx";
import { Panel } from "../../components/Panel/Panel.tsx";
import { classNames } from "../../lib/class-names.ts";
import styles from "./DocumentsPage.module.css";

/** The documents page: the list on the left, the chosen document (read, edit, history, export) on the right. */
export function DocumentsPage() {
  const { documentId } = useParams();
  return (
    <div className={styles.page}>
      <PageHeader title="Documents" description="Reports, plans and notes written by you and your agents. Every change is kept." />
      <div className={styles.layout}>
        <DocumentList selectedId={documentId} />
        <div className={styles.detail}>
          {documentId ? (
            <DocumentDetail key={documentId} documentId={documentId} />
          ) : (
            <EmptyState title="No document open">Pick one from the list, or create one.</EmptyState>
          )}
        </div>
      </div>
    </div>
  );
}

function DocumentList({ selectedId }: { selectedId: string | undefined }) {
  const [query, setQuery] = useState("");
  const [title, setTitle] = useState("");
  const documents = useDocuments(query.trim());
  const create = useCreateDocument();
  const navigate = useNavigate();

  function submit(event: FormEvent<HTMLFormElement>) {
    event.preventDefault();
    if (!title.trim()) return;
    create.mutate(
      { title: title.trim(), content: "" },
      {
        onSuccess: (created) => {
          setTitle("");
          void navigate(`/documents/${encodeURIComponent(created.id)}`);
        },
      },
    );
  }

  return (
    <Panel title="Your documents" className={styles.listPanel}>
      <form className={styles.create} onSubmit={submit}>
        <TextField label="New document title" value={title} onChange={(event) => setTitle(event.target.value)} maxLength={500} />
        <Button type="submit" variant="primary" busy={create.isPending} disabled={!title.trim()}>
          Create
        </Button>
      </form>
      {create.isError && <Alert>{errorMessage(create.error)}</Alert>}
      <TextField label="Search documents" type="search" value={query} onChange={(event) => setQuery(event.target.value)} maxLength={500} />
      {documents.isPending && <Loading label="Loading documents…" />}
      {documents.isError && <Alert>{errorMessage(documents.error)}</Alert>}
      {documents.isSuccess && documents.data.length === 0 && <p className={styles.muted}>{query ? "No document matches." : "No documents yet."}</p>}
      {documents.isSuccess && documents.data.length > 0 && (
        <ul className={styles.list} aria-label="Documents">
          {documents.data.map((document) => (
            <li key={document.id}>
              <Link
                to={`/documents/${encodeURIComponent(document.id)}`}
                className={classNames(styles.item, document.id === selectedId && styles.itemActive)}
                aria-current={document.id === selectedId ? "page" : undefined}
              >
                <span className={styles.itemTitle}>{document.title}</span>
                <span className={styles.muted}>
                  revision {document.revision} · {new Date(document.updated_at).toLocaleString()}
                </span>
              </Link>
            </li>
          ))}
        </ul>
      )}
    </Panel>
  );
}

type Mode = "read" | "edit" | "history";

function DocumentDetail({ documentId }: { documentId: string }) {
  const document = useDocument(documentId);
  const remove = useDeleteDocument();
  const navigate = useNavigate();
  const [mode, setMode] = useState<Mode>("read");
  const [exportError, setExportError] = useState<string | null>(null);

  if (document.isPending) return <Loading label="Loading the document…" />;
  if (document.isError)
    return <Alert>{isApiError(document.error, "not_found") ? "This document does not exist (or is not yours)." : errorMessage(document.error)}</Alert>;
  const current = document.data;

  async function exportAs(format: ExportFormat) {
    setExportError(null);
    try {
      await downloadDocumentExport(documentId, format);
    } catch (error) {
      setExportError(errorMessage(error));
    }
  }

  return (
    <Panel
      title={current.title}
      actions={
        <div className={styles.actions} role="toolbar" aria-label="Document actions">
          <Button size="small" variant={mode === "read" ? "primary" : "secondary"} onClick={() => setMode("read")}>
            Read
          </Button>
          <Button size="small" variant={mode === "edit" ? "primary" : "secondary"} onClick={() => setMode("edit")}>
            Edit
          </Button>
          <Button size="small" variant={mode === "history" ? "primary" : "secondary"} onClick={() => setMode("history")}>
            History
          </Button>
          <Button size="small" onClick={() => void exportAs("markdown")}>
            Export Markdown
          </Button>
          <Button size="small" onClick={() => void exportAs("html")}>
            Export HTML
          </Button>
          <Button size="small" onClick={() => void exportAs("pdf")}>
            Export PDF
          </Button>
          <Button
            size="small"
            variant="danger"
            busy={remove.isPending}
            onClick={() => {
              if (!window.confirm(`Delete "${current.title}" and all its revisions?`)) return;
              remove.mutate(documentId, { onSuccess: () => void navigate("/documents") });
            }}
          >
            Delete
          </Button>
        </div>
      }
    >
      <p className={styles.muted}>
        Revision {current.revision} · {current.format} · last changed {new Date(current.updated_at).toLocaleString()}
      </p>
      {exportError && <Alert>{exportError}</Alert>}
      {remove.isError && <Alert>{errorMessage(remove.error)}</Alert>}
      {mode === "read" &&
        (current.content.trim() === "" ? (
          <p className={styles.muted}>This document is empty. Use Edit to write it.</p>
        ) : current.format === "markdown" ? (
          <Markdown text={current.content} className={styles.rendered} />
        ) : (
          <pre className={styles.plain}>{current.content}</pre>
        ))}
      {mode === "edit" && (
        <DocumentEditor documentId={documentId} title={current.title} content={current.content} revision={current.revision} onSaved={() => setMode("read")} />
      )}
      {mode === "history" && <DocumentHistory documentId={documentId} currentRevision={current.revision} />}
    </Panel>
  );
}

function DocumentEditor(props: { documentId: string; title: string; content: string; revision: number; onSaved: () => void }) {
  const [title, setTitle] = useState(props.title);
  const [content, setContent] = useState(props.content);
  // The revision the text in the editor is based on: kept when the document changes underneath.
  const [baseRevision] = useState(props.revision);
  const update = useUpdateDocument(props.documentId);
  const conflict = isApiError(update.error, "revision_conflict") ? update.error : null;

  function submit(event: FormEvent<HTMLFormElement>) {
    event.preventDefault();
    update.mutate({ title: title.trim() || props.title, content, baseRevision }, { onSuccess: props.onSaved });
  }

  return (
    <form className={styles.editor} onSubmit={submit}>
      <TextField label="Title" value={title} onChange={(event) => setTitle(event.target.value)} maxLength={500} />
      <TextAreaField label="Content (Markdown)" value={content} onChange={(event) => setContent(event.target.value)} rows={18} monospace />
      {conflict && (
        <Alert title="Someone else changed this document">
          You were editing revision {baseRevision}, but the document is now at revision {String(conflict.details?.current_revision ?? "newer")}. Nothing was
          saved. Copy your text, open the History to see what changed, then edit the latest revision.
        </Alert>
      )}
      {update.isError && !conflict && <Alert>{errorMessage(update.error)}</Alert>}
      <div className={styles.editorActions}>
        <Button type="submit" variant="primary" busy={update.isPending}>
          Save
        </Button>
        <span className={styles.muted}>Saving makes revision {baseRevision + 1}, if nobody saved since you opened it.</span>
      </div>
    </form>
  );
}

function DocumentHistory({ documentId, currentRevision }: { documentId: string; currentRevision: number }) {
  const revisions = useDocumentRevisions(documentId);
  const [from, setFrom] = useState<number>(Math.max(1, currentRevision - 1));
  const [to, setTo] = useState<number>(currentRevision);
  useEffect(() => {
    setTo(currentRevision);
  }, [currentRevision]);
  const older = useDocumentRevision(documentId, from);
  const newer = useDocumentRevision(documentId, to);
  const parts = useMemo(() => (older.data && newer.data ? diffLines(older.data.content, newer.data.content) : null), [older.data, newer.data]);

  if (revisions.isPending) return <Loading label="Loading revisions…" />;
  if (revisions.isError) return <Alert>{errorMessage(revisions.error)}</Alert>;
  const options = revisions.data.map((revision) => ({ value: String(revision.revision), label: `Revision ${revision.revision}` }));

  return (
    <div className={styles.history}>
      <table className={styles.revisions}>
        <caption className={styles.muted}>Every revision, oldest first</caption>
        <thead>
          <tr>
            <th scope="col">Revision</th>
            <th scope="col">Written by</th>
            <th scope="col">When</th>
          </tr>
        </thead>
        <tbody>
          {revisions.data.map((revision) => (
            <tr key={revision.revision}>
              <td>{revision.revision}</td>
              <td>{revision.author === "agent" ? `an agent (run ${revision.run_id ?? "?"})` : "a person"}</td>
              <td>{new Date(revision.created_at).toLocaleString()}</td>
            </tr>
          ))}
        </tbody>
      </table>
      <div className={styles.compare}>
        <SelectField label="Compare revision" value={String(from)} onChange={(event) => setFrom(Number(event.target.value))} options={options} />
        <SelectField label="with revision" value={String(to)} onChange={(event) => setTo(Number(event.target.value))} options={options} />
      </div>
      {(older.isError || newer.isError) && <Alert>{errorMessage(older.error ?? newer.error)}</Alert>}
      {parts && (
        <section aria-label={`Changes from revision ${from} to revision ${to}`}>
          <pre className={styles.diff}>
            {parts.length === 1 && !parts[0]!.added && !parts[0]!.removed ? (
              <span className={styles.muted}>No difference in content.</span>
            ) : (
              parts.map((part, index) => (
                <span
                  // biome-ignore lint/suspicious/noArrayIndexKey: the diff's parts have no identity but their order
                  key={index}
                  className={classNames(part.added && styles.added, part.removed && styles.removed)}
                >
                  {part.value
                    .replace(/\n$/, "")
                    .split("\n")
                    .map((line) => `${part.added ? "+ " : part.removed ? "- " : "  "}${line}`)
                    .join("\n")}
                  {"\n"}
                </span>
              ))
            )}
          </pre>
        </section>
      )}
    </div>
  );
}
