import { useState } from "react";
import { errorMessage } from "../../api/api-error.ts";
import type { RunMode, ToolQuery } from "../../api/types.ts";
import { useTools } from "../../api/use-tools.ts";
import { useWorkspaces } from "../../api/use-workspaces.ts";
import { Alert } from "../../components/Alert/Alert.tsx";
import { Badge, EffectBadges } from "../../components/Badge/Badge.tsx";
import { EmptyState } from "../../components/EmptyState/EmptyState.tsx";
import { CheckboxField } from "../../components/Form/CheckboxField.tsx";
import { SelectField } from "../../components/Form/SelectField.tsx";
import { JsonView } from "../../components/JsonView/JsonView.tsx";
import { Loading } from "../../components/Loading/Loading.tsx";
import { PageHeader } from "../../components/PageHeader/PageHeader.tsx";
import { Panel } from "../../components/Panel/Panel.tsx";
import styles from "./ToolsPage.module.css";

/** What a run with the chosen switches would be offered: exactly GET /api/tools's answer. */
export function ToolsPage() {
  const workspaces = useWorkspaces();
  const [workspaceId, setWorkspaceId] = useState("");
  const [mode, setMode] = useState<RunMode>("agent");
  const [allowBash, setAllowBash] = useState(false);
  const [useWeb, setUseWeb] = useState(false);
  const [allowWebSearch, setAllowWebSearch] = useState(true);
  const query: ToolQuery = {
    ...(workspaceId ? { workspace_id: workspaceId } : {}),
    mode,
    allow_bash: allowBash,
    use_web: useWeb,
    allow_web_search: allowWebSearch,
  };
  const tools = useTools(query);

  return (
    <div className={styles.page}>
      <PageHeader title="Tools" description="The tools a run would be offered with these settings, as the model sees them." />
      <Panel title="Run settings" className={styles.filters}>
        <form className={styles.form} onSubmit={(event) => event.preventDefault()}>
          <SelectField
            label="Workspace"
            options={[{ value: "", label: "No workspace" }, ...(workspaces.data ?? []).map((workspace) => ({ value: workspace.id, label: workspace.name }))]}
            value={workspaceId}
            onChange={(event) => setWorkspaceId(event.target.value)}
            fieldClassName={styles.select}
          />
          <SelectField
            label="Mode"
            options={[
              { value: "agent", label: "Agent" },
              { value: "guide", label: "Guide" },
            ]}
            value={mode}
            onChange={(event) => setMode(event.target.value as RunMode)}
            fieldClassName={styles.select}
          />
          <div className={styles.switches}>
            <CheckboxField label="Allow bash" checked={allowBash} onChange={(event) => setAllowBash(event.target.checked)} />
            <CheckboxField label="Use web" checked={useWeb} onChange={(event) => setUseWeb(event.target.checked)} />
            <CheckboxField label="Allow web search" checked={allowWebSearch} onChange={(event) => setAllowWebSearch(event.target.checked)} />
          </div>
        </form>
      </Panel>
      {tools.isPending && <Loading label="Loading tools…" />}
      {tools.isError && <Alert>{errorMessage(tools.error)}</Alert>}
      {tools.isSuccess && tools.data.length === 0 && (
        <EmptyState title="No tools with these settings">
          {mode === "guide" ? "Guide mode sends no tools: the model only answers." : "Try a workspace or another switch."}
        </EmptyState>
      )}
      {tools.isSuccess && tools.data.length > 0 && (
        <>
          <p className={styles.count} role="status">
            {tools.data.length} {tools.data.length === 1 ? "tool" : "tools"} offered
          </p>
          <ul className={styles.list} aria-label="Offered tools">
            {tools.data.map((tool) => (
              <li key={tool.name} className={styles.tool}>
                <div className={styles.toolHeader}>
                  <h2 className={styles.name}>{tool.name}</h2>
                  <Badge tone="accent">{tool.family}</Badge>
                  <EffectBadges effects={tool.effects} />
                </div>
                <p className={styles.description}>{tool.description}</p>
                <JsonView value={tool.parameters} summary="Parameters" />
              </li>
            ))}
          </ul>
        </>
      )}
    </div>
  );
}
