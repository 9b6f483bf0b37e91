import { Button } from "../Button/Button.tsx";

export interface ConfirmActionsProps {
  /** The danger button's text ("Remove"). */
  label: string;
  /** What the danger button does, said in full for screen readers ("Remove github now"). */
  ariaLabel: string;
  /** The action is under way. */
  busy: boolean;
  onConfirm: () => void;
  /** "Keep": nothing happens. */
  onCancel: () => void;
}

/** The second step of a destructive action in a table row: do it, or keep things as they are. */
export function ConfirmActions({ label, ariaLabel, busy, onConfirm, onCancel }: ConfirmActionsProps) {
  return (
    <>
      <Button size="small" variant="danger" busy={busy} aria-label={ariaLabel} onClick={onConfirm}>
        {label}
      </Button>
      <Button size="small" variant="ghost" onClick={onCancel}>
        Keep
      </Button>
    </>
  );
}
