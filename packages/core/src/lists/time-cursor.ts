import { InvalidRequestError } from "../errors/agentq-error.ts";

/**
 * The cursor of a list ordered by (time, id), newest first (GET /api/chats, GET /api/audit): it names
 * the last item of a page, so items added meanwhile do not shift the pages that follow. Opaque to
 * clients: base64url of `[time, id]`.
 */
export function encodeTimeCursor(at: Date, id: string): string {
  return Buffer.from(JSON.stringify([at.toISOString(), id])).toString("base64url");
}

/** The (time, id) a cursor names; anything this API did not write is `400 invalid_request` naming `before`. */
export function parseTimeCursor(cursor: string): { at: Date; id: string } {
  try {
    const [at, id] = JSON.parse(Buffer.from(cursor, "base64url").toString("utf8")) as unknown[];
    if (typeof at === "string" && typeof id === "string" && !Number.isNaN(Date.parse(at))) return { at: new Date(at), id };
  } catch {
    // Falls through to the one answer for any cursor this API did not write.
  }
  throw new InvalidRequestError("query: before: not a cursor this API gave (use the next_before of a previous page)", { field: "before" });
}
