import { createHmac, timingSafeEqual } from "node:crypto";

/** The cookie that lets a browser open the queue board (set by POST /api/queue-board/session). */
export const BOARD_COOKIE = "agentq_board";

/** How long a board session lasts. Default 1 h: long enough to look around, short enough to leak little. */
export const BOARD_SESSION_SECONDS = 3600;

/**
 * A board session is `<user id>.<expiry in ms>.<HMAC-SHA256 of both>` under a key derived from the
 * deployment's secret: no table, and a forged or altered one never verifies. It names a user, whose
 * role is checked again at every request (a demoted admin is refused at once).
 */
export function signBoardSession(secret: string, userId: string, expiresAt: number): string {
  return `${userId}.${expiresAt}.${mac(secret, userId, expiresAt)}`;
}

/** The user a session names, if its MAC verifies and it has not expired. */
export function verifyBoardSession(secret: string, value: string, now: number): string | undefined {
  const match = /^([A-Za-z0-9_-]+)\.(\d{1,15})\.([A-Za-z0-9_-]{43})$/.exec(value);
  if (!match) return undefined;
  const [, userId, expiry, given] = match as unknown as [string, string, string, string];
  const expected = Buffer.from(mac(secret, userId, Number(expiry)));
  if (!timingSafeEqual(expected, Buffer.from(given)) || Number(expiry) <= now) return undefined;
  return userId;
}

function mac(secret: string, userId: string, expiresAt: number): string {
  return createHmac("sha256", `agentq queue board\0${secret}`).update(`${userId}.${expiresAt}`).digest("base64url");
}

/** The value of one cookie in a Cookie header. */
export function readCookie(header: string | undefined, name: string): string | undefined {
  for (const part of (header ?? "").split(";")) {
    const [key, ...rest] = part.trim().split("=");
    if (key === name) return rest.join("=");
  }
  return undefined;
}
