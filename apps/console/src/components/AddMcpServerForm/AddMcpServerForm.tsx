import { type FormEvent, useState } from "react";
import { errorMessage } from "../../api/api-error.ts";
import type { McpServerRegistration } from "../../api/types.ts";
import { useAddMcpServer } from "../../api/use-mcp-servers.ts";
import { Alert } from "../Alert/Alert.tsx";
import { Button } from "../Button/Button.tsx";
import { CheckboxField } from "../Form/CheckboxField.tsx";
import { SelectField } from "../Form/SelectField.tsx";
import { TextAreaField } from "../Form/TextAreaField.tsx";
import { TextField } from "../Form/TextField.tsx";
import styles from "./AddMcpServerForm.module.css";
import { parseKeyValues } from "./parse-key-values.ts";

type Transport = "stdio" | "http";

/**
 * Registers an MCP server: a command each worker starts (stdio) or a Streamable HTTP endpoint. The
 * environment and headers are secrets: sent once, stored encrypted, never shown again.
 */
export function AddMcpServerForm() {
  const add = useAddMcpServer();
  const [transport, setTransport] = useState<Transport>("stdio");
  const [name, setName] = useState("");
  const [command, setCommand] = useState("");
  const [args, setArgs] = useState("");
  const [env, setEnv] = useState("");
  const [network, setNetwork] = useState(false);
  const [url, setUrl] = useState("");
  const [headers, setHeaders] = useState("");
  const [formError, setFormError] = useState<string | null>(null);

  function submit(event: FormEvent<HTMLFormElement>) {
    event.preventDefault();
    setFormError(null);
    let registration: McpServerRegistration;
    if (transport === "stdio") {
      const parsed = parseKeyValues(env, "=");
      if (!parsed.ok) return setFormError(`Environment: "${parsed.line}" is not NAME=value`);
      const argList = args.split("\n").filter((line) => line.trim() !== "");
      registration = { name: name.trim(), transport, command: command.trim(), args: argList, env: parsed.values, network, enabled: true };
    } else {
      const parsed = parseKeyValues(headers, ":");
      if (!parsed.ok) return setFormError(`Headers: "${parsed.line}" is not Name: value`);
      registration = { name: name.trim(), transport, url: url.trim(), headers: parsed.values, enabled: true };
    }
    add.mutate(registration, {
      onSuccess: () => {
        setName("");
        setCommand("");
        setArgs("");
        setEnv("");
        setNetwork(false);
        setUrl("");
        setHeaders("");
      },
    });
  }

  const ready = name.trim() !== "" && (transport === "stdio" ? command.trim() !== "" : url.trim() !== "");
  return (
    <form className={styles.form} onSubmit={submit} aria-label="Add an MCP server">
      <div className={styles.row}>
        <TextField
          label="Server name"
          hint="lowercase letters, digits and dashes (at most 24): its tools are named mcp__<name>__<tool>"
          value={name}
          onChange={(event) => setName(event.target.value)}
          autoComplete="off"
          fieldClassName={styles.grow}
        />
        <SelectField
          label="Transport"
          options={[
            { value: "stdio", label: "stdio (a command)" },
            { value: "http", label: "Streamable HTTP" },
          ]}
          value={transport}
          onChange={(event) => setTransport(event.target.value as Transport)}
          fieldClassName={styles.transport}
        />
      </div>
      {transport === "stdio" ? (
        <>
          <TextField
            label="Command"
            hint="the program each worker starts, e.g. /usr/bin/node"
            value={command}
            onChange={(event) => setCommand(event.target.value)}
            autoComplete="off"
          />
          <TextAreaField label="Arguments" hint="one per line" monospace rows={3} value={args} onChange={(event) => setArgs(event.target.value)} />
          <TextAreaField
            label="Environment"
            hint="NAME=value, one per line: the server's whole environment. Stored encrypted, never shown again."
            monospace
            rows={3}
            value={env}
            onChange={(event) => setEnv(event.target.value)}
          />
          <CheckboxField
            label="Network access"
            hint="off: the server runs with no network"
            checked={network}
            onChange={(event) => setNetwork(event.target.checked)}
          />
        </>
      ) : (
        <>
          <TextField
            label="URL"
            hint="a private address needs an entry in web_fetch_allow"
            type="url"
            value={url}
            onChange={(event) => setUrl(event.target.value)}
            autoComplete="off"
          />
          <TextAreaField
            label="Headers"
            hint="Name: value, one per line (e.g. Authorization). Stored encrypted, never shown again."
            monospace
            rows={3}
            value={headers}
            onChange={(event) => setHeaders(event.target.value)}
          />
        </>
      )}
      {formError && <Alert>{formError}</Alert>}
      {add.isError && <Alert>{errorMessage(add.error)}</Alert>}
      <div>
        <Button type="submit" variant="primary" busy={add.isPending} disabled={!ready}>
          Add server
        </Button>
      </div>
    </form>
  );
}
