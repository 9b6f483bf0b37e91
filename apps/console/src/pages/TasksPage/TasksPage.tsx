import { type FormEvent, useState } from "react";
import { errorMessage } from "../../api/api-error.ts";
import type { Task, TaskStatus } from "../../api/types.ts";
import { useCreateTask, useDeleteTask, useTasks, useUpdateTask } from "../../api/use-personal.ts";
import { Alert } from "../../components/Alert/Alert.tsx";
import { Button } from "../../components/Button/Button.tsx";
import { EmptyState } from "../../components/EmptyState/EmptyState.tsx";
import { SelectField } from "../../components/Form/SelectField.tsx";
import { TextField } from "../../components/Form/TextField.tsx";
import { Loading } from "../../components/Loading/Loading.tsx";
import { PageHeader } from "../../components/PageHeader/PageHeader.tsx";
import { Panel } from "../../components/Panel/Panel.tsx";
import { RecordCard, RecordList, RecordText } from "../../components/RecordCard/RecordCard.tsx";
import { formatDateTime } from "../../lib/format.ts";
import styles from "../record-page.module.css";
import taskStyles from "./TasksPage.module.css";

const STATUS_OPTIONS = [
  { value: "open", label: "Open" },
  { value: "done", label: "Done" },
  { value: "all", label: "All" },
];

function NewTaskForm() {
  const create = useCreateTask();
  const [title, setTitle] = useState("");
  const [due, setDue] = useState("");
  const [notes, setNotes] = useState("");

  function submit(event: FormEvent<HTMLFormElement>) {
    event.preventDefault();
    if (!title.trim()) return;
    // datetime-local is the browser's local time; the API takes an ISO time with an offset.
    const dueAt = due ? new Date(due).toISOString() : null;
    create.mutate(
      { title: title.trim(), notes, due_at: dueAt },
      {
        onSuccess: () => {
          setTitle("");
          setDue("");
          setNotes("");
        },
      },
    );
  }

  return (
    <form className={styles.form} onSubmit={submit} aria-label="New task">
      <div className={taskStyles.row}>
        <TextField label="Task" value={title} onChange={(event) => setTitle(event.target.value)} maxLength={500} required fieldClassName={taskStyles.grow} />
        <TextField label="Due" type="datetime-local" value={due} onChange={(event) => setDue(event.target.value)} />
      </div>
      <TextField label="Notes" value={notes} onChange={(event) => setNotes(event.target.value)} />
      <div className={styles.formActions}>
        <Button type="submit" variant="primary" busy={create.isPending} disabled={!title.trim()}>
          Add task
        </Button>
      </div>
      {create.isError && <Alert className={styles.alert}>{errorMessage(create.error)}</Alert>}
    </form>
  );
}

function TaskItem({ task }: { task: Task }) {
  const update = useUpdateTask();
  const remove = useDeleteTask();
  const done = task.status === "done";
  const meta = [task.due_at ? `Due ${formatDateTime(task.due_at)}` : "No due time", task.completed_at ? `done ${formatDateTime(task.completed_at)}` : undefined]
    .filter(Boolean)
    .join(" · ");
  return (
    <RecordCard
      title={task.title}
      meta={meta}
      muted={done}
      actions={
        <>
          <Button
            size="small"
            busy={update.isPending}
            onClick={() => update.mutate({ id: task.id, status: done ? "open" : "done" })}
            aria-label={`${done ? "Reopen" : "Mark done"} ${task.title}`}
          >
            {done ? "Reopen" : "Mark done"}
          </Button>
          <Button size="small" variant="danger" busy={remove.isPending} onClick={() => remove.mutate(task.id)} aria-label={`Delete ${task.title}`}>
            Delete
          </Button>
        </>
      }
    >
      {task.notes && <RecordText>{task.notes}</RecordText>}
      {(update.isError || remove.isError) && <Alert>{errorMessage(update.error ?? remove.error)}</Alert>}
    </RecordCard>
  );
}

export function TasksPage() {
  const [status, setStatus] = useState<TaskStatus | "all">("open");
  const tasks = useTasks(status);
  return (
    <div className={styles.page}>
      <PageHeader title="Tasks" description="Your task list, soonest due first. Runs keep it with the task tools." />
      <Panel title="New task" className={styles.panel}>
        <NewTaskForm />
      </Panel>
      <div className={styles.filters}>
        <SelectField label="Show" options={STATUS_OPTIONS} value={status} onChange={(event) => setStatus(event.target.value as TaskStatus | "all")} />
      </div>
      {tasks.isPending && <Loading label="Loading tasks…" />}
      {tasks.isError && <Alert>{errorMessage(tasks.error)}</Alert>}
      {tasks.isSuccess && tasks.data.length === 0 && <EmptyState title={status === "done" ? "Nothing done yet" : "No tasks"} />}
      {tasks.isSuccess && tasks.data.length > 0 && (
        <RecordList label="Your tasks">
          {tasks.data.map((task) => (
            <TaskItem key={task.id} task={task} />
          ))}
        </RecordList>
      )}
    </div>
  );
}
