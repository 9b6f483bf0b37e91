import { type FormEvent, useEffect, useRef, useState } from "react";
import { useNavigate } from "react-router";
import { errorMessage } from "../../api/api-error.ts";
import { useCreateChat } from "../../api/use-chats.ts";
import { useWorkspaces } from "../../api/use-workspaces.ts";
import { Alert } from "../Alert/Alert.tsx";
import { Button } from "../Button/Button.tsx";
import { SelectField } from "../Form/SelectField.tsx";
import { TextField } from "../Form/TextField.tsx";
import styles from "./NewChatDialog.module.css";

const NO_WORKSPACE = "";

/** A modal dialog (native <dialog>: focus stays inside, Escape closes) with the new chat's title and workspace. */
export function NewChatDialog({ open, onClose }: { open: boolean; onClose: () => void }) {
  const dialog = useRef<HTMLDialogElement>(null);
  const workspaces = useWorkspaces();
  const createChat = useCreateChat();
  const navigate = useNavigate();
  const [title, setTitle] = useState("");
  const [workspaceId, setWorkspaceId] = useState(NO_WORKSPACE);

  useEffect(() => {
    const element = dialog.current;
    if (!element) return;
    if (open && !element.open) element.showModal();
    if (!open && element.open) element.close();
  }, [open]);

  async function submit(event: FormEvent<HTMLFormElement>) {
    event.preventDefault();
    const chat = await createChat.mutateAsync({
      ...(title.trim() ? { title: title.trim() } : {}),
      ...(workspaceId !== NO_WORKSPACE ? { workspace_id: workspaceId } : {}),
    });
    setTitle("");
    setWorkspaceId(NO_WORKSPACE);
    createChat.reset();
    onClose();
    void navigate(`/chats/${encodeURIComponent(chat.id)}`);
  }

  const workspaceOptions = [
    { value: NO_WORKSPACE, label: "No workspace" },
    ...(workspaces.data ?? []).map((workspace) => ({ value: workspace.id, label: workspace.name })),
  ];

  return (
    <dialog ref={dialog} className={styles.dialog} aria-labelledby="new-chat-title" onClose={onClose}>
      <form className={styles.form} onSubmit={(event) => void submit(event).catch(() => {})}>
        <h2 id="new-chat-title" className={styles.title}>
          New chat
        </h2>
        <TextField label="Title" placeholder="What is this chat about?" value={title} onChange={(event) => setTitle(event.target.value)} maxLength={500} />
        <SelectField
          label="Workspace"
          options={workspaceOptions}
          value={workspaceId}
          onChange={(event) => setWorkspaceId(event.target.value)}
          hint={workspaces.isLoading ? "Loading your workspaces…" : "File and command tools work in the chat's workspace."}
        />
        {workspaces.isError && <Alert>{errorMessage(workspaces.error)}</Alert>}
        {createChat.isError && <Alert>{errorMessage(createChat.error)}</Alert>}
        <div className={styles.actions}>
          <Button onClick={onClose}>Cancel</Button>
          <Button type="submit" variant="primary" busy={createChat.isPending}>
            Create chat
          </Button>
        </div>
      </form>
    </dialog>
  );
}
