import { type FormEvent, useState } from "react";
import { Link } from "react-router";
import { errorMessage } from "../../api/api-error.ts";
import { useCreateWorkspace, useWorkspaces } from "../../api/use-workspaces.ts";
import { Alert } from "../../components/Alert/Alert.tsx";
import { Button } from "../../components/Button/Button.tsx";
import { EmptyState } from "../../components/EmptyState/EmptyState.tsx";
import { TextField } from "../../components/Form/TextField.tsx";
import { Icon } from "../../components/Icon/Icon.tsx";
import { Loading } from "../../components/Loading/Loading.tsx";
import { PageHeader } from "../../components/PageHeader/PageHeader.tsx";
import { Panel } from "../../components/Panel/Panel.tsx";
import styles from "./WorkspacesPage.module.css";

export function WorkspacesPage() {
  const workspaces = useWorkspaces();
  const create = useCreateWorkspace();
  const [name, setName] = useState("");

  function submit(event: FormEvent<HTMLFormElement>) {
    event.preventDefault();
    if (!name.trim()) return;
    create.mutate(name.trim(), { onSuccess: () => setName("") });
  }

  return (
    <div className={styles.page}>
      <PageHeader title="Workspaces" description="Directories your runs read and write. A chat works in at most one." />
      <Panel title="New workspace" className={styles.create}>
        <form className={styles.form} onSubmit={submit}>
          <TextField label="Workspace name" value={name} onChange={(event) => setName(event.target.value)} maxLength={200} fieldClassName={styles.name} />
          <Button type="submit" variant="primary" busy={create.isPending} disabled={!name.trim()}>
            Create workspace
          </Button>
        </form>
        {create.isError && <Alert className={styles.alert}>{errorMessage(create.error)}</Alert>}
      </Panel>
      {workspaces.isPending && <Loading label="Loading workspaces…" />}
      {workspaces.isError && <Alert>{errorMessage(workspaces.error)}</Alert>}
      {workspaces.isSuccess && workspaces.data.length === 0 && (
        <EmptyState title="No workspaces yet">Create one above; then pick it when you start a chat.</EmptyState>
      )}
      {workspaces.isSuccess && workspaces.data.length > 0 && (
        <ul className={styles.list} aria-label="Your workspaces">
          {workspaces.data.map((workspace) => (
            <li key={workspace.id}>
              <Link to={`/workspaces/${encodeURIComponent(workspace.id)}`} className={styles.item}>
                <Icon name="folder" size={18} className={styles.icon} />
                <span className={styles.itemName}>{workspace.name}</span>
                <span className={styles.itemId}>{workspace.id}</span>
              </Link>
            </li>
          ))}
        </ul>
      )}
    </div>
  );
}
