/** Types of server-bundle.mjs (plain Node, so it runs without tsx), for scripts/start.ts, the bench and the tests. */
export const SERVER_ENTRIES: { readonly api: string; readonly worker: string };

export interface EnsureServerBuiltResult {
  /** The build's directory: `<name>.js` of each entry, their chunks and source maps. */
  directory: string;
  built: boolean;
  reason: "current" | "missing" | "stale" | "forced";
}

/** `root`: the repository (default this one). */
export function ensureServerBuilt(options?: { force?: boolean; log?: (message: string) => void; root?: string }): Promise<EnsureServerBuiltResult>;
