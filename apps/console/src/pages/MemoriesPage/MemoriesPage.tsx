import { type FormEvent, useState } from "react";
import { errorMessage } from "../../api/api-error.ts";
import { parseTags, useCreateMemory, useDeleteMemory, useMemories } from "../../api/use-personal.ts";
import type { Memory } from "../../api/types.ts";
import { Alert } from "../../components/Alert/Alert.tsx";
import { Button } from "../../components/Button/Button.tsx";
import { EmptyState } from "../../components/EmptyState/EmptyState.tsx";
import { TextAreaField } from "../../components/Form/TextAreaField.tsx";
import { TextField } from "../../components/Form/TextField.tsx";
import { Loading } from "../../components/Loading/Loading.tsx";
import { PageHeader } from "../../components/PageHeader/PageHeader.tsx";
import { Panel } from "../../components/Panel/Panel.tsx";
import { RecordCard, RecordList, TagList } from "../../components/RecordCard/RecordCard.tsx";
import { formatDateTime } from "../../lib/format.ts";
import styles from "../record-page.module.css";

function NewMemoryForm() {
  const create = useCreateMemory();
  const [content, setContent] = useState("");
  const [tags, setTags] = useState("");

  function submit(event: FormEvent<HTMLFormElement>) {
    event.preventDefault();
    if (!content.trim()) return;
    create.mutate(
      { content: content.trim(), tags: parseTags(tags) },
      {
        onSuccess: () => {
          setContent("");
          setTags("");
        },
      },
    );
  }

  return (
    <form className={styles.form} onSubmit={submit} aria-label="New memory">
      <TextAreaField label="Remember" value={content} onChange={(event) => setContent(event.target.value)} rows={2} required />
      <TextField label="Tags" hint="Separated by commas" value={tags} onChange={(event) => setTags(event.target.value)} />
      <div className={styles.formActions}>
        <Button type="submit" variant="primary" busy={create.isPending} disabled={!content.trim()}>
          Remember
        </Button>
      </div>
      {create.isError && <Alert className={styles.alert}>{errorMessage(create.error)}</Alert>}
    </form>
  );
}

function MemoryItem({ memory }: { memory: Memory }) {
  const remove = useDeleteMemory();
  return (
    <RecordCard
      title={memory.content}
      meta={`Remembered ${formatDateTime(memory.created_at)}`}
      actions={
        <Button size="small" variant="danger" busy={remove.isPending} onClick={() => remove.mutate(memory.id)} aria-label={`Forget ${memory.content}`}>
          Forget
        </Button>
      }
    >
      <TagList tags={memory.tags} />
      {remove.isError && <Alert>{errorMessage(remove.error)}</Alert>}
    </RecordCard>
  );
}

export function MemoriesPage() {
  const [query, setQuery] = useState("");
  const memories = useMemories(query.trim());
  return (
    <div className={styles.page}>
      <PageHeader title="Memories" description="What runs remember for you across chats (the remember and recall tools). A search ranks them as recall does." />
      <Panel title="New memory" className={styles.panel}>
        <NewMemoryForm />
      </Panel>
      <div className={styles.filters}>
        <TextField label="Search memories" type="search" value={query} onChange={(event) => setQuery(event.target.value)} fieldClassName={styles.filter} />
      </div>
      {memories.isPending && <Loading label="Loading memories…" />}
      {memories.isError && <Alert>{errorMessage(memories.error)}</Alert>}
      {memories.isSuccess && memories.data.length === 0 && <EmptyState title={query ? "Nothing matches" : "No memories yet"} />}
      {memories.isSuccess && memories.data.length > 0 && (
        <RecordList label="Your memories">
          {memories.data.map((memory) => (
            <MemoryItem key={memory.id} memory={memory} />
          ))}
        </RecordList>
      )}
    </div>
  );
}
