// The API token lives in sessionStorage only: it is gone when the tab closes, and it never goes
// into a URL the person sees or shares (the WebSocket URL is built in code, see use-run-events.ts).

// The browser tests open the console signed in by putting a token under this key before the console
// loads (test/support/browser.ts, openSignedIn).
const STORAGE_KEY = "agentq.token";

type Listener = (token: string | null) => void;
const listeners = new Set<Listener>();

function storage(): Storage | undefined {
  try {
    return globalThis.sessionStorage;
  } catch {
    // Storage disabled by the browser's privacy settings: the session lasts as long as the page.
    return undefined;
  }
}

let memoryToken: string | null = storage()?.getItem(STORAGE_KEY) ?? null;
/** Why the last session ended: the person signed out, or the API stopped accepting the token (401). */
let endedBy: "sign_out" | "refused" | null = null;

export function readToken(): string | null {
  return memoryToken;
}

export function saveToken(token: string): void {
  memoryToken = token;
  endedBy = null;
  storage()?.setItem(STORAGE_KEY, token);
  for (const listener of listeners) listener(token);
}

export function clearToken(reason: "sign_out" | "refused" = "sign_out"): void {
  endedBy = reason;
  memoryToken = null;
  storage()?.removeItem(STORAGE_KEY);
  for (const listener of listeners) listener(null);
}

export function sessionEndedBy(): "sign_out" | "refused" | null {
  return endedBy;
}

export function onTokenChange(listener: Listener): () => void {
  listeners.add(listener);
  return () => listeners.delete(listener);
}
