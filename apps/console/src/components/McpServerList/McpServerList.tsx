import { Fragment, useState } from "react";
import { errorMessage } from "../../api/api-error.ts";
import type { McpServer } from "../../api/types.ts";
import { useMcpServers, useMcpServerTools, useRemoveMcpServer } from "../../api/use-mcp-servers.ts";
import { Alert } from "../Alert/Alert.tsx";
import { Badge, type BadgeTone } from "../Badge/Badge.tsx";
import { Button } from "../Button/Button.tsx";
import { ConfirmActions } from "../ConfirmActions/ConfirmActions.tsx";
import { EmptyState } from "../EmptyState/EmptyState.tsx";
import { JsonView } from "../JsonView/JsonView.tsx";
import { Loading } from "../Loading/Loading.tsx";
import { DataTable } from "../DataTable/DataTable.tsx";
import styles from "./McpServerList.module.css";

const STATUS_TONE: Record<McpServer["status"], BadgeTone> = { connected: "success", connecting: "warning", failed: "danger" };

/** What the server is: its command line, or its URL. */
function target(server: McpServer): string {
  return server.transport === "stdio" ? [server.command ?? "", ...server.args].join(" ") : (server.url ?? "");
}

/** The registered MCP servers: status as the workers report it, their tools on demand, removal after a confirmation. */
export function McpServerList() {
  const servers = useMcpServers();
  const remove = useRemoveMcpServer();
  const [open, setOpen] = useState<string | null>(null);
  const [confirming, setConfirming] = useState<string | null>(null);

  if (servers.isPending) return <Loading label="Loading MCP servers…" />;
  if (servers.isError) return <Alert>{errorMessage(servers.error)}</Alert>;
  if (servers.data.length === 0)
    return <EmptyState title="No MCP servers">Add one below: its tools are offered to every run as mcp__&lt;server&gt;__&lt;tool&gt;.</EmptyState>;

  return (
    <div className={styles.wrapper}>
      {remove.isError && <Alert>{errorMessage(remove.error)}</Alert>}
      <DataTable caption="MCP servers" columns={["Name", "Server", "Status", "Tools", { visuallyHidden: "Actions" }]}>
        {servers.data.map((server) => (
          <Fragment key={server.name}>
            <tr data-mcp-server={server.name}>
              <th scope="row" className={styles.name}>
                {server.name}
              </th>
              <td>
                <span className={styles.transport}>{server.transport === "stdio" ? "stdio" : "http"}</span>{" "}
                <code className={styles.target}>{target(server)}</code>
                {server.network && <Badge tone="warning">network</Badge>}
              </td>
              <td>
                <Badge tone={STATUS_TONE[server.status]}>{server.status}</Badge>
                {server.error && <p className={styles.error}>{server.error}</p>}
              </td>
              <td>{server.tools_count}</td>
              <td>
                <span className={styles.actions}>
                  {confirming === server.name ? (
                    <ConfirmActions
                      label="Remove"
                      ariaLabel={`Remove ${server.name} now`}
                      busy={remove.isPending}
                      onConfirm={() => remove.mutate(server.name, { onSettled: () => setConfirming(null) })}
                      onCancel={() => setConfirming(null)}
                    />
                  ) : (
                    <>
                      <Button
                        size="small"
                        aria-expanded={open === server.name}
                        aria-label={`Tools of ${server.name}`}
                        onClick={() => setOpen(open === server.name ? null : server.name)}
                      >
                        Tools
                      </Button>
                      <Button size="small" variant="danger" aria-label={`Remove ${server.name}`} onClick={() => setConfirming(server.name)}>
                        Remove
                      </Button>
                    </>
                  )}
                </span>
              </td>
            </tr>
            {open === server.name && (
              <tr>
                <td colSpan={5}>
                  <McpServerTools name={server.name} />
                </td>
              </tr>
            )}
          </Fragment>
        ))}
      </DataTable>
    </div>
  );
}

function McpServerTools({ name }: { name: string }) {
  const tools = useMcpServerTools(name);
  if (tools.isPending) return <Loading label="Loading tools…" />;
  if (tools.isError) return <Alert>{errorMessage(tools.error)}</Alert>;
  if (tools.data.length === 0) return <p className="muted">No tools: the server is not connected, or lists none.</p>;
  return (
    <ul className={styles.tools} aria-label={`Tools of ${name}`}>
      {tools.data.map((tool) => (
        <li key={tool.name}>
          <code className={styles.toolName}>{tool.offered_as}</code>
          {tool.description && <span className={styles.description}> {tool.description}</span>}
          <JsonView value={tool.parameters} summary="Arguments schema" />
        </li>
      ))}
    </ul>
  );
}
