/** Types of ensure-console-built.mjs (plain Node, so it runs without tsx), for scripts/start.ts. */
export interface EnsureConsoleBuiltResult {
  built: boolean;
  reason: "absent" | "current" | "missing" | "stale" | "forced";
}

export function consoleSourceHash(): string;

export function ensureConsoleBuilt(options?: { force?: boolean; log?: (message: string) => void }): EnsureConsoleBuiltResult;
