import { createAgentqClient } from "@agentq/client/http";
import { ApiError, apiErrorFromBody, networkError } from "./api-error.ts";
import { clearToken, readToken } from "./token-store.ts";

/**
 * @agentq/client, typed from the OpenAPI document; same origin as the console, so paths are relative.
 * Every call carries the session's token, and a 401 ends the session (the token was revoked).
 */
export const api = createAgentqClient({ baseUrl: "", token: readToken });
api.use({
  onResponse({ request, response }) {
    const sent = request.headers.get("Authorization");
    if (response.status === 401 && sent !== null && sent === `Bearer ${readToken()}`) clearToken("refused");
    return response;
  },
});

interface FetchResult<T> {
  data?: T;
  error?: unknown;
  response: Response;
}

/** Awaits an openapi-fetch call: its data, or an ApiError with the API's code and message. */
export async function unwrap<T>(request: Promise<FetchResult<T>>): Promise<T> {
  let result: FetchResult<T>;
  try {
    result = await request;
  } catch (error) {
    if (error instanceof DOMException && error.name === "AbortError") throw error;
    if (error instanceof ApiError) throw error;
    throw networkError();
  }
  if (!result.response.ok) throw apiErrorFromBody(result.response.status, result.error);
  return result.data as T;
}

/** Checks a token before it is kept: the person's identity, or null when the API refuses it. */
export async function whoIs(token: string): Promise<{ id: string; name: string; role: "admin" | "user" } | null> {
  let response: Response;
  try {
    response = await fetch("/api/me", { headers: { Authorization: `Bearer ${token}` } });
  } catch {
    throw networkError();
  }
  if (response.status === 401) return null;
  const body: unknown = await response.json().catch(() => undefined);
  if (!response.ok) throw apiErrorFromBody(response.status, body);
  return body as { id: string; name: string; role: "admin" | "user" };
}
