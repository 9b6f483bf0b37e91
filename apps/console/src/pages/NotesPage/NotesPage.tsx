import { type FormEvent, useState } from "react";
import { errorMessage } from "../../api/api-error.ts";
import type { Note } from "../../api/types.ts";
import { parseTags, useDeleteNote, useNotes, useSaveNote } from "../../api/use-personal.ts";
import { Alert } from "../../components/Alert/Alert.tsx";
import { Button } from "../../components/Button/Button.tsx";
import { EmptyState } from "../../components/EmptyState/EmptyState.tsx";
import { TextAreaField } from "../../components/Form/TextAreaField.tsx";
import { TextField } from "../../components/Form/TextField.tsx";
import { Loading } from "../../components/Loading/Loading.tsx";
import { PageHeader } from "../../components/PageHeader/PageHeader.tsx";
import { Panel } from "../../components/Panel/Panel.tsx";
import { RecordCard, RecordList, RecordText, TagList } from "../../components/RecordCard/RecordCard.tsx";
import { formatDateTime } from "../../lib/format.ts";
import styles from "../record-page.module.css";

/** The note form: empty for a new note, filled for an edit. */
function NoteForm({ note, onDone }: { note?: Note; onDone?: () => void }) {
  const save = useSaveNote();
  const [title, setTitle] = useState(note?.title ?? "");
  const [content, setContent] = useState(note?.content ?? "");
  const [tags, setTags] = useState(note?.tags.join(", ") ?? "");

  function submit(event: FormEvent<HTMLFormElement>) {
    event.preventDefault();
    if (!title.trim()) return;
    save.mutate(
      { ...(note ? { id: note.id } : {}), title: title.trim(), content, tags: parseTags(tags) },
      {
        onSuccess: () => {
          if (!note) {
            setTitle("");
            setContent("");
            setTags("");
          }
          onDone?.();
        },
      },
    );
  }

  return (
    <form className={styles.form} onSubmit={submit} aria-label={note ? `Edit note ${note.title}` : "New note"}>
      <TextField label="Title" value={title} onChange={(event) => setTitle(event.target.value)} maxLength={500} required />
      <TextAreaField label="Content" value={content} onChange={(event) => setContent(event.target.value)} rows={note ? 6 : 4} />
      <TextField label="Tags" hint="Separated by commas" value={tags} onChange={(event) => setTags(event.target.value)} />
      <div className={styles.formActions}>
        <Button type="submit" variant="primary" busy={save.isPending} disabled={!title.trim()}>
          {note ? "Save note" : "Create note"}
        </Button>
        {onDone && note && <Button onClick={onDone}>Cancel</Button>}
      </div>
      {save.isError && <Alert className={styles.alert}>{errorMessage(save.error)}</Alert>}
    </form>
  );
}

function NoteItem({ note }: { note: Note }) {
  const remove = useDeleteNote();
  const [editing, setEditing] = useState(false);
  return (
    <RecordCard
      title={note.title}
      meta={`Changed ${formatDateTime(note.updated_at)}`}
      actions={
        !editing && (
          <>
            <Button size="small" onClick={() => setEditing(true)} aria-label={`Edit ${note.title}`}>
              Edit
            </Button>
            <Button size="small" variant="danger" busy={remove.isPending} onClick={() => remove.mutate(note.id)} aria-label={`Delete ${note.title}`}>
              Delete
            </Button>
          </>
        )
      }
    >
      {editing ? (
        <NoteForm note={note} onDone={() => setEditing(false)} />
      ) : (
        <>
          {note.content && <RecordText>{note.content}</RecordText>}
          <TagList tags={note.tags} />
        </>
      )}
      {remove.isError && <Alert>{errorMessage(remove.error)}</Alert>}
    </RecordCard>
  );
}

export function NotesPage() {
  const [query, setQuery] = useState("");
  const [tag, setTag] = useState("");
  const notes = useNotes({ ...(query.trim() ? { query: query.trim() } : {}), ...(tag.trim() ? { tag: tag.trim() } : {}) });

  return (
    <div className={styles.page}>
      <PageHeader title="Notes" description="Your notes. Runs read and write them with the note tools; what a run reads from them counts as untrusted." />
      <Panel title="New note" className={styles.panel}>
        <NoteForm />
      </Panel>
      <div className={styles.filters}>
        <TextField label="Search notes" type="search" value={query} onChange={(event) => setQuery(event.target.value)} fieldClassName={styles.filter} />
        <TextField label="Tag" value={tag} onChange={(event) => setTag(event.target.value)} fieldClassName={styles.filter} />
      </div>
      {notes.isPending && <Loading label="Loading notes…" />}
      {notes.isError && <Alert>{errorMessage(notes.error)}</Alert>}
      {notes.isSuccess && notes.data.length === 0 && <EmptyState title={query || tag ? "No matching notes" : "No notes yet"} />}
      {notes.isSuccess && notes.data.length > 0 && (
        <RecordList label="Your notes">
          {notes.data.map((note) => (
            <NoteItem key={note.id} note={note} />
          ))}
        </RecordList>
      )}
    </div>
  );
}
