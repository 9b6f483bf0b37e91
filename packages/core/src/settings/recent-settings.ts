import type { PrismaClient } from "../store/create-prisma-client.ts";
import { type AgentSettings, loadSettings } from "./agent-settings.ts";

/** How long a read of the settings serves, by default: an admin's change applies within it. */
export const RECENT_SETTINGS_TTL_MS = 5000;

/**
 * The settings as read at most `ttlMs` ago: for paths that consult them on every request or
 * delivery (the queue board's switch, webhooks' `web_fetch_allow`), one read per interval instead
 * of one each time. Concurrent callers share a read in flight.
 */
export function recentSettings(prisma: PrismaClient, ttlMs = RECENT_SETTINGS_TTL_MS): () => Promise<AgentSettings> {
  let current: { read: Promise<AgentSettings>; at: number } | undefined;
  return () => {
    if (!current || Date.now() - current.at > ttlMs) {
      const read = loadSettings(prisma);
      current = { read, at: Date.now() };
      // A failed read is not kept: the next caller reads again.
      read.catch(() => {
        if (current?.read === read) current = undefined;
      });
    }
    return current.read;
  };
}
