import { useEffect, useState } from "react";
import { Button } from "../Button/Button.tsx";
import { Icon } from "../Icon/Icon.tsx";

/** Copies `text`; the clipboard API needs a secure context, so plain http falls back to a selection copy. */
async function copyText(text: string): Promise<void> {
  if (navigator.clipboard && window.isSecureContext) {
    await navigator.clipboard.writeText(text);
    return;
  }
  const field = document.createElement("textarea");
  field.value = text;
  field.setAttribute("readonly", "");
  field.className = "visually-hidden";
  document.body.append(field);
  field.select();
  const copied = document.execCommand("copy");
  field.remove();
  if (!copied) throw new Error("copy refused");
}

export function CopyButton({ text, label = "Copy" }: { text: string; label?: string }) {
  const [state, setState] = useState<"idle" | "copied" | "failed">("idle");
  useEffect(() => {
    if (state === "idle") return;
    const timer = setTimeout(() => setState("idle"), 2500);
    return () => clearTimeout(timer);
  }, [state]);
  return (
    <>
      <Button
        size="small"
        onClick={() =>
          void copyText(text).then(
            () => setState("copied"),
            () => setState("failed"),
          )
        }
      >
        <Icon name="copy" size={14} />
        {label}
      </Button>
      <span role="status" className={state === "idle" ? "visually-hidden" : undefined}>
        {state === "copied" ? "Copied" : state === "failed" ? "Could not copy: select the text and copy it by hand" : ""}
      </span>
    </>
  );
}
