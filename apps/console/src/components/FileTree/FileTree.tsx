import { useState } from "react";
import { errorMessage } from "../../api/api-error.ts";
import type { TreeEntry } from "../../api/types.ts";
import { useWorkspaceTree } from "../../api/use-workspaces.ts";
import { classNames } from "../../lib/class-names.ts";
import { formatBytes } from "../../lib/format.ts";
import { Icon } from "../Icon/Icon.tsx";
import styles from "./FileTree.module.css";

export interface FileTreeProps {
  workspaceId: string;
  selectedPath: string | undefined;
  onSelect: (path: string) => void;
}

/** The workspace's files; a directory's entries are fetched when it is first opened. */
export function FileTree({ workspaceId, selectedPath, onSelect }: FileTreeProps) {
  return (
    <div className={styles.tree}>
      <DirectoryEntries workspaceId={workspaceId} path="" selectedPath={selectedPath} onSelect={onSelect} depth={0} label="Files" />
    </div>
  );
}

function DirectoryEntries({ workspaceId, path, selectedPath, onSelect, depth, label }: FileTreeProps & { path: string; depth: number; label: string }) {
  const tree = useWorkspaceTree(workspaceId, path);
  if (tree.isPending) return <p className={styles.note}>Loading…</p>;
  if (tree.isError) return <p className={classNames(styles.note, styles.error)}>{errorMessage(tree.error)}</p>;
  if (tree.data.entries.length === 0) return <p className={styles.note}>{depth === 0 ? "This workspace is empty." : "Empty directory"}</p>;
  return (
    <ul className={styles.entries} aria-label={label}>
      {tree.data.entries.map((entry) => (
        <Entry key={entry.path} entry={entry} workspaceId={workspaceId} selectedPath={selectedPath} onSelect={onSelect} depth={depth} />
      ))}
      {tree.data.truncated && <li className={styles.note}>Not every entry is shown: the directory is too large.</li>}
    </ul>
  );
}

function Entry({ entry, depth, ...tree }: FileTreeProps & { entry: TreeEntry; depth: number }) {
  const [open, setOpen] = useState(false);
  const indent = styles[`depth${Math.min(depth, 8)}`];
  if (entry.type === "directory") {
    return (
      <li>
        <button type="button" className={classNames(styles.entry, indent)} aria-expanded={open} onClick={() => setOpen(!open)}>
          <Icon name="chevron" size={12} className={classNames(styles.chevron, open && styles.chevronOpen)} />
          <Icon name="folder" size={14} className={styles.folderIcon} />
          <span className={styles.name}>{entry.name}</span>
        </button>
        {open && <DirectoryEntries {...tree} path={entry.path} depth={depth + 1} label={entry.name} />}
      </li>
    );
  }
  if (entry.type !== "file") {
    return (
      <li className={classNames(styles.entry, styles.other, indent)}>
        <span className={styles.spacer} />
        <span className={styles.name}>{entry.name}</span>
        <span className={styles.size}>{entry.type}</span>
      </li>
    );
  }
  const selected = tree.selectedPath === entry.path;
  return (
    <li>
      <button
        type="button"
        className={classNames(styles.entry, indent, selected && styles.selected)}
        aria-current={selected ? "true" : undefined}
        onClick={() => tree.onSelect(entry.path)}
      >
        <span className={styles.spacer} />
        <Icon name="file" size={14} className={styles.fileIcon} />
        <span className={styles.name}>{entry.name}</span>
        <span className={styles.size}>{formatBytes(entry.size)}</span>
      </button>
    </li>
  );
}
