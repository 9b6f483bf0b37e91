import { AgentqError, InvalidRequestError, MAX_JSON_NESTING } from "@agentq/core";

/** Errors that only exist at the HTTP edge. */

export class PayloadTooLargeError extends AgentqError {
  constructor(limitBytes: number | undefined) {
    super("payload_too_large", "the request body is larger than the configured limit (BODY_LIMIT)", {
      limit_bytes: limitBytes,
    });
  }
}

export class UnsupportedMediaTypeError extends AgentqError {
  constructor(contentType: string | undefined) {
    super("unsupported_media_type", "send the request body as JSON with Content-Type: application/json", {
      content_type: contentType ?? null,
    });
  }
}

export class RouteNotFoundError extends AgentqError {
  constructor(method: string, path: string) {
    super("not_found", `no endpoint answers ${method} ${path}`, { method, path });
  }
}

export class InternalError extends AgentqError {
  constructor(requestId: string) {
    super("internal_error", "the server failed to handle the request; quote the request id when reporting it", {
      request_id: requestId,
    });
  }
}

/** A JSON body or message nested deeper than MAX_JSON_NESTING levels (valid or not). */
export class JsonTooDeepError extends InvalidRequestError {
  constructor(what = "the request body") {
    super(`${what} nests arrays and objects more than ${MAX_JSON_NESTING} levels deep`, { field: "(body)", max_nesting: MAX_JSON_NESTING });
  }
}
