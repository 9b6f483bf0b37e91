import type { ReactNode } from "react";
import { classNames } from "../../lib/class-names.ts";
import styles from "./Badge.module.css";

export type BadgeTone = "neutral" | "accent" | "warning" | "danger" | "success";

/** A small label: an effect, a family, a role. */
export function Badge({ tone = "neutral", children, className }: { tone?: BadgeTone; children: ReactNode; className?: string }) {
  return <span className={classNames(styles.badge, styles[tone], className)}>{children}</span>;
}

/** Effects that change something outside the conversation are worth a warning colour. */
export function effectTone(effect: string): BadgeTone {
  if (effect === "read") return "neutral";
  if (effect === "write" || effect === "network" || effect === "mcp") return "warning";
  return "danger";
}

export function EffectBadges({ effects }: { effects: readonly string[] }) {
  if (effects.length === 0) return <Badge>no effects</Badge>;
  return (
    <>
      {effects.map((effect) => (
        <Badge key={effect} tone={effectTone(effect)}>
          {effect}
        </Badge>
      ))}
    </>
  );
}
