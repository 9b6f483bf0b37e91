import createClient, { type Client } from "openapi-fetch";
import type { components, paths } from "./schema.gen.ts";

export type AgentqClient = Client<paths>;
export type Schemas = components["schemas"];

export interface AgentqClientOptions {
  /** Where the API answers, e.g. `http://127.0.0.1:3000` (no trailing `/api`). */
  baseUrl: string;
  /** An API token (`aq_...`), sent as `Authorization: Bearer`; a function is asked at each request (a session that changes). */
  token: string | (() => string | null | undefined);
  /** Default: the global fetch. */
  fetch?: typeof globalThis.fetch;
}

/** The API's error answer (API.md "Errors"): `{"error": {"code", "message", "details"?}}`, with its status. */
export class AgentqApiError extends Error {
  readonly status: number;
  readonly code: string;
  readonly details: Record<string, unknown> | undefined;

  constructor(status: number, body: unknown) {
    const error = (body as { error?: { code?: unknown; message?: unknown; details?: unknown } } | undefined)?.error;
    const code = typeof error?.code === "string" ? error.code : `http_${status}`;
    super(typeof error?.message === "string" ? error.message : `the API answered ${status}`);
    this.name = "AgentqApiError";
    this.status = status;
    this.code = code;
    this.details = error?.details !== null && typeof error?.details === "object" ? (error.details as Record<string, unknown>) : undefined;
  }
}

/**
 * A typed client of every route of GET /api/openapi.json (openapi-fetch over the generated `paths`):
 * `client.GET("/api/runs/{id}", {params: {path: {id}}})` answers `{data}` or `{error}`. `unwrap` turns
 * that into the data or an AgentqApiError.
 */
export function createAgentqClient(options: AgentqClientOptions): AgentqClient {
  const client = createClient<paths>({ baseUrl: options.baseUrl.replace(/\/+$/, ""), ...(options.fetch ? { fetch: options.fetch } : {}) });
  client.use({
    onRequest({ request }) {
      const token = typeof options.token === "function" ? options.token() : options.token;
      if (token) request.headers.set("authorization", `Bearer ${token}`);
      return request;
    },
  });
  return client;
}

/** The data of an openapi-fetch answer, or its error as an AgentqApiError. */
export async function unwrap<Data>(pending: Promise<{ data?: Data; error?: unknown; response: Response }>): Promise<Data> {
  const { data, error, response } = await pending;
  if (!response.ok || data === undefined) throw new AgentqApiError(response.status, error);
  return data;
}
