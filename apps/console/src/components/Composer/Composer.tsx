import { type FormEvent, type KeyboardEvent, useId, useState } from "react";
import { describeRunStartError } from "../../api/decision-error.ts";
import type { Multitask, RunMode, RunRequest } from "../../api/types.ts";
import { useStartRun } from "../../api/use-chats.ts";
import { classNames } from "../../lib/class-names.ts";
import { randomId } from "../../lib/random-id.ts";
import { Alert } from "../Alert/Alert.tsx";
import { Button } from "../Button/Button.tsx";
import { CheckboxField } from "../Form/CheckboxField.tsx";
import { SelectField } from "../Form/SelectField.tsx";
import { TextAreaField } from "../Form/TextAreaField.tsx";
import { TextField } from "../Form/TextField.tsx";
import styles from "./Composer.module.css";

export interface ComposerProps {
  chatId: string;
  /** A run of the chat is queued, running or waiting: the multitask choice applies. */
  runActive: boolean;
  onStarted?: (runId: string) => void;
}

const MODE_OPTIONS = [
  { value: "agent", label: "Agent" },
  { value: "guide", label: "Guide (no tools)" },
];

/** What to do with the chat's active run when this message starts another. */
const MULTITASK_OPTIONS = [
  { value: "reject", label: "Reject (keep it)" },
  { value: "enqueue", label: "Enqueue after it" },
  { value: "interrupt", label: "Interrupt it" },
];

/** The message box and what the run may do; Enter sends, Shift+Enter adds a line. */
export function Composer({ chatId, runActive, onStarted }: ComposerProps) {
  const startRun = useStartRun(chatId);
  const [input, setInput] = useState("");
  const [model, setModel] = useState("");
  const [mode, setMode] = useState<RunMode>("agent");
  const [allowBash, setAllowBash] = useState(false);
  const [useWeb, setUseWeb] = useState(false);
  const [allowWebSearch, setAllowWebSearch] = useState(true);
  const [multitask, setMultitask] = useState<Multitask>("reject");
  // Names separated by commas or spaces; empty: every tool the switches allow.
  const [toolList, setToolList] = useState("");
  // One key per message: a double submit, or a retry after a lost answer, does not start two runs.
  const [idempotencyKey, setIdempotencyKey] = useState(randomId);
  // On narrow screens the options fold behind a button, so the conversation keeps the screen.
  const [optionsOpen, setOptionsOpen] = useState(false);
  const optionsId = useId();

  async function send() {
    if (!input.trim() || startRun.isPending) return;
    const tools = toolList.split(/[\s,]+/).filter((name) => name !== "");
    const request: RunRequest = {
      input,
      mode,
      allow_bash: allowBash,
      use_web: useWeb,
      allow_web_search: allowWebSearch,
      idempotency_key: idempotencyKey,
      // The deployment's DEFAULT_MODEL applies unless the person names a model.
      ...(model.trim() ? { model: model.trim() } : {}),
      ...(runActive ? { multitask } : {}),
      ...(tools.length > 0 ? { tools } : {}),
    };
    try {
      const run = await startRun.mutateAsync(request);
      setInput("");
      setIdempotencyKey(randomId());
      onStarted?.(run.id);
    } catch {
      // Shown below from startRun.error. A refused run (409) was not created: a new key for the next try.
      setIdempotencyKey(randomId());
    }
  }

  function submit(event: FormEvent<HTMLFormElement>) {
    event.preventDefault();
    void send();
  }

  function onKeyDown(event: KeyboardEvent<HTMLTextAreaElement>) {
    if (event.key === "Enter" && !event.shiftKey && !event.nativeEvent.isComposing) {
      event.preventDefault();
      void send();
    }
  }

  return (
    <form className={styles.composer} onSubmit={submit}>
      {startRun.isError && (
        <Alert
          actions={
            <Button size="small" variant="ghost" onClick={() => startRun.reset()}>
              Dismiss
            </Button>
          }
        >
          {describeRunStartError(startRun.error)}
        </Alert>
      )}
      <div className={styles.inputRow}>
        <TextAreaField
          label="Message"
          hideLabel
          placeholder="Ask the agent something…"
          title="Enter sends; Shift+Enter starts a new line"
          value={input}
          rows={2}
          onChange={(event) => setInput(event.target.value)}
          onKeyDown={onKeyDown}
          fieldClassName={styles.message}
          className={styles.messageInput}
        />
        <div className={styles.buttons}>
          <Button
            variant="ghost"
            size="small"
            className={styles.optionsToggle}
            aria-expanded={optionsOpen}
            aria-controls={optionsId}
            onClick={() => setOptionsOpen(!optionsOpen)}
          >
            Options
          </Button>
          <Button type="submit" variant="primary" busy={startRun.isPending} disabled={!input.trim()} className={styles.send}>
            Send
          </Button>
        </div>
      </div>
      <fieldset id={optionsId} className={classNames(styles.options, optionsOpen && styles.optionsOpen)}>
        <legend className="visually-hidden">Run options</legend>
        <TextField
          label="Model"
          placeholder="Default model"
          value={model}
          onChange={(event) => setModel(event.target.value)}
          fieldClassName={styles.model}
          className={styles.compact}
          spellCheck={false}
        />
        <SelectField
          label="Mode"
          options={MODE_OPTIONS}
          value={mode}
          onChange={(event) => setMode(event.target.value as RunMode)}
          fieldClassName={styles.mode}
          className={styles.compact}
        />
        {runActive && (
          <SelectField
            label="Multitask"
            options={MULTITASK_OPTIONS}
            value={multitask}
            onChange={(event) => setMultitask(event.target.value as Multitask)}
            fieldClassName={styles.multitask}
            className={styles.compact}
          />
        )}
        <TextField
          label="Tools"
          placeholder="All the switches allow"
          title="Only these tools, by name (as the Tools page lists them), separated by commas: fewer schemas sent to the model"
          value={toolList}
          onChange={(event) => setToolList(event.target.value)}
          fieldClassName={styles.tools}
          className={styles.compact}
          spellCheck={false}
        />
        <div className={styles.switches}>
          <CheckboxField label="Allow bash" checked={allowBash} onChange={(event) => setAllowBash(event.target.checked)} />
          <CheckboxField label="Use web" checked={useWeb} onChange={(event) => setUseWeb(event.target.checked)} />
          <CheckboxField label="Allow web search" checked={allowWebSearch} onChange={(event) => setAllowWebSearch(event.target.checked)} />
        </div>
      </fieldset>
    </form>
  );
}
