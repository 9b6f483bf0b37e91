import { useState } from "react";
import { type ApiError, errorMessage, isApiError } from "../../api/api-error.ts";
import { useSaveWorkspaceFile, useWorkspaceFile } from "../../api/use-workspaces.ts";
import { Alert } from "../Alert/Alert.tsx";
import { Button } from "../Button/Button.tsx";
import { TextAreaField } from "../Form/TextAreaField.tsx";
import { Loading } from "../Loading/Loading.tsx";
import styles from "./FileEditor.module.css";

export interface FileEditorProps {
  workspaceId: string;
  path: string;
}

/** A file of the workspace, opened with its revision; `key` it by path so another file starts fresh. */
export function FileEditor({ workspaceId, path }: FileEditorProps) {
  const file = useWorkspaceFile(workspaceId, path);
  // The form starts over only on an explicit reload; a save updates the cached file under it.
  const [generation, setGeneration] = useState(0);
  const missing = file.isError && isApiError(file.error, "not_found");
  if (file.isPending) return <Loading label={`Opening ${path}…`} />;
  if (file.isError && !missing) return <Alert>{errorMessage(file.error)}</Alert>;
  const opened = file.data ?? { path, content: "", revision: null };
  return (
    <EditorForm
      key={generation}
      workspaceId={workspaceId}
      path={path}
      initialContent={opened.content}
      openedRevision={opened.revision}
      onReload={() => void file.refetch().then(() => setGeneration((value) => value + 1))}
    />
  );
}

interface EditorFormProps {
  workspaceId: string;
  path: string;
  initialContent: string;
  /** null: the file did not exist when it was opened (saving creates it). */
  openedRevision: string | null;
  onReload: () => void;
}

type SaveState = { kind: "idle" } | { kind: "checking" } | { kind: "conflict"; currentRevision: string | null } | { kind: "saved"; revision: string };

/** Where the file is now, from a 409 revision_mismatch (null: it was deleted). */
function currentRevisionOf(error: ApiError): string | null {
  const current = error.details?.current_revision;
  return typeof current === "string" ? current : null;
}

function shortRevision(revision: string): string {
  return revision.length > 12 ? revision.slice(0, 12) : revision;
}

function EditorForm({ workspaceId, path, initialContent, openedRevision, onReload }: EditorFormProps) {
  const save = useSaveWorkspaceFile(workspaceId);
  const [content, setContent] = useState(initialContent);
  const [baseRevision, setBaseRevision] = useState(openedRevision);
  const [state, setState] = useState<SaveState>({ kind: "idle" });
  const dirty = content !== initialContent || state.kind === "saved";

  /**
   * Saves over the revision the editor opened (the API refuses with 409 revision_mismatch when the file
   * changed since, and changes nothing); `overwrite` replaces whatever is there.
   */
  async function submit(overwrite: boolean) {
    setState({ kind: "checking" });
    try {
      const saved = await save.mutateAsync({ path, content, ...(overwrite ? {} : { baseRevision }) });
      setBaseRevision(saved.revision);
      setState({ kind: "saved", revision: saved.revision });
    } catch (error) {
      if (isApiError(error, "revision_mismatch")) setState({ kind: "conflict", currentRevision: currentRevisionOf(error) });
      else setState({ kind: "idle" });
    }
  }

  return (
    <form
      className={styles.editor}
      onSubmit={(event) => {
        event.preventDefault();
        void submit(false).catch(() => setState({ kind: "idle" }));
      }}
    >
      <div className={styles.header}>
        <h2 className={styles.path}>{path}</h2>
        <span className={styles.revision}>{baseRevision ? `Revision ${shortRevision(baseRevision)}` : "New file"}</span>
      </div>
      <TextAreaField
        label="File content"
        monospace
        value={content}
        spellCheck={false}
        onChange={(event) => {
          setContent(event.target.value);
          if (state.kind === "saved") setState({ kind: "idle" });
        }}
        className={styles.content}
      />
      {state.kind === "conflict" && (
        <Alert
          tone="warning"
          title="This file changed since you opened it"
          actions={
            <>
              <Button size="small" onClick={onReload}>
                Reload
              </Button>
              <Button size="small" variant="danger" onClick={() => void submit(true)}>
                Save anyway
              </Button>
            </>
          }
        >
          Reload to see the current content (your edits here are discarded), or save anyway to replace it with yours.
        </Alert>
      )}
      {save.isError && state.kind !== "conflict" && <Alert>{errorMessage(save.error)}</Alert>}
      {state.kind === "saved" && <Alert tone="success">Saved. The file is now at revision {shortRevision(state.revision)}.</Alert>}
      <div className={styles.actions}>
        <Button type="submit" variant="primary" busy={state.kind === "checking" || save.isPending} disabled={!dirty && openedRevision !== null}>
          Save
        </Button>
        {content !== initialContent && (
          <Button variant="ghost" onClick={() => setContent(initialContent)}>
            Discard changes
          </Button>
        )}
      </div>
    </form>
  );
}
