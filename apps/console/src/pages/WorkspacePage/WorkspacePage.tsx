import { type FormEvent, useState } from "react";
import { Link, useParams, useSearchParams } from "react-router";
import { useWorkspaces } from "../../api/use-workspaces.ts";
import { Button } from "../../components/Button/Button.tsx";
import { EmptyState } from "../../components/EmptyState/EmptyState.tsx";
import { FileEditor } from "../../components/FileEditor/FileEditor.tsx";
import { FileTree } from "../../components/FileTree/FileTree.tsx";
import { TextField } from "../../components/Form/TextField.tsx";
import { PageHeader } from "../../components/PageHeader/PageHeader.tsx";
import { Panel } from "../../components/Panel/Panel.tsx";
import styles from "./WorkspacePage.module.css";

/** One workspace: its file tree, and the open file (`?file=` in the URL, so it survives a reload). */
export function WorkspacePage() {
  const workspaceId = useParams().workspaceId ?? "";
  const workspaces = useWorkspaces();
  const [searchParams, setSearchParams] = useSearchParams();
  const selectedPath = searchParams.get("file") ?? undefined;
  const [newPath, setNewPath] = useState("");
  const workspace = workspaces.data?.find((candidate) => candidate.id === workspaceId);

  function open(path: string) {
    setSearchParams({ file: path });
  }

  function createFile(event: FormEvent<HTMLFormElement>) {
    event.preventDefault();
    const path = newPath.trim().replace(/^\/+/, "");
    if (!path) return;
    setNewPath("");
    open(path);
  }

  return (
    <div className={styles.page}>
      <PageHeader
        title={workspace?.name ?? "Workspace"}
        description={
          <>
            <Link to="/workspaces">Workspaces</Link> / <span className={styles.id}>{workspaceId}</span>
          </>
        }
      />
      {workspaces.isSuccess && !workspace ? (
        <EmptyState title="This workspace does not exist" action={<Link to="/workspaces">Back to your workspaces</Link>}>
          It may belong to someone else.
        </EmptyState>
      ) : (
        <div className={styles.layout}>
          <Panel title="Files" className={styles.treePanel}>
            <FileTree workspaceId={workspaceId} selectedPath={selectedPath} onSelect={open} />
            <form className={styles.newFile} onSubmit={createFile}>
              <TextField
                label="New file path"
                placeholder="notes/todo.md"
                value={newPath}
                onChange={(event) => setNewPath(event.target.value)}
                spellCheck={false}
              />
              <Button type="submit" size="small" disabled={!newPath.trim()}>
                Create file
              </Button>
            </form>
          </Panel>
          <Panel className={styles.editorPanel}>
            {selectedPath ? (
              <FileEditor key={selectedPath} workspaceId={workspaceId} path={selectedPath} />
            ) : (
              <EmptyState title="No file open">Pick a file in the tree, or create one.</EmptyState>
            )}
          </Panel>
        </div>
      )}
    </div>
  );
}
