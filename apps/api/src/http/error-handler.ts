import type { ErrorRequestHandler, Request, RequestHandler, Response } from "express";
import { AgentqError, InvalidRequestError } from "@agentq/core";
import { dependencyOutage, type ProbeDependencies } from "./dependency-outage.ts";
import { statusForError } from "./error-status.ts";
import { InternalError, PayloadTooLargeError, RouteNotFoundError, UnsupportedMediaTypeError } from "./http-errors.ts";

/** Errors raised by express, body-parser and the router carry `status` and sometimes `type`. */
interface HttpLibraryError {
  status?: unknown;
  statusCode?: unknown;
  type?: unknown;
  limit?: unknown;
  expose?: unknown;
  message?: unknown;
}

/** Maps what the HTTP libraries throw onto agentq's error codes, so clients see one error shape. */
function fromHttpLibrary(error: HttpLibraryError): AgentqError | undefined {
  switch (error.type) {
    case "entity.parse.failed":
      return new InvalidRequestError("the request body is not valid JSON", { field: "(body)", reason: "body is not valid JSON" });
    case "entity.too.large":
    case "parameters.too.many":
      return new PayloadTooLargeError(typeof error.limit === "number" ? error.limit : undefined);
    case "encoding.unsupported":
    case "charset.unsupported":
      return new UnsupportedMediaTypeError(undefined);
    case "request.aborted":
    case "request.size.invalid":
      return new InvalidRequestError("the request body was incomplete");
    default:
      break;
  }
  const status = typeof error.status === "number" ? error.status : error.statusCode;
  if (typeof status === "number" && status >= 400 && status < 500) {
    const message =
      typeof error.message === "string" && error.message.startsWith("Failed to decode param")
        ? "the URL path contains invalid percent-encoding"
        : error.expose === true && typeof error.message === "string"
          ? error.message
          : "the request is malformed";
    return status === 413 ? new PayloadTooLargeError(undefined) : new InvalidRequestError(message);
  }
  return undefined;
}

export interface ErrorHandlerOptions {
  /**
   * A request to a `verifiesToken` route that failed before its route verified the token (a bad body,
   * say) gets the answer any other route gives: its token is verified here, and counted against the
   * rate limit, so a bad token is still 401 before anything else, and an exhausted limit 429 before a
   * bad request. Throws what the middleware would have (UnauthorizedError, `rate_limited`).
   */
  verifyUnverifiedCaller?: (request: Request, response: Response) => Promise<void>;
  /** Told of every 401 of a request whose token its route was to verify (the rate limiter forgets the token). Default none. */
  onUnverifiedTokenRefused?: (request: Request) => void;
  /**
   * Which dependencies are unreachable now: asked when a request fails with an unmapped error, so
   * that an outage of Postgres or Redis is answered `503 unavailable` naming it, never a 500.
   */
  probeDependencies?: ProbeDependencies;
}

/** An answer of 4xx other than 401: what a request with a bad token must not get before its 401. */
function isClientError(error: AgentqError | undefined): boolean {
  const status = error === undefined ? undefined : statusForError(error);
  return status !== undefined && status >= 400 && status < 500 && status !== 401;
}

export function errorHandler(options: ErrorHandlerOptions = {}): ErrorRequestHandler {
  return async (thrown: unknown, request, response, next) => {
    let error = thrown;
    if (response.headersSent) {
      // Too late for a JSON error: let express close the connection.
      request.log.error({ err: error }, "request failed after the response started");
      next(error);
      return;
    }
    let mapped = error instanceof AgentqError ? error : fromHttpLibrary((error ?? {}) as HttpLibraryError);
    if (request.user === undefined && request.unverifiedToken !== undefined && options.verifyUnverifiedCaller && isClientError(mapped)) {
      try {
        await options.verifyUnverifiedCaller(request, response);
      } catch (verification) {
        error = verification;
        mapped = verification instanceof AgentqError ? verification : undefined;
      }
    }
    if (mapped === undefined && options.probeDependencies) mapped = await dependencyOutage(error, options.probeDependencies);
    if (response.headersSent) return;
    const mappedStatus = mapped === undefined ? undefined : statusForError(mapped);
    if (mappedStatus === 401 && request.unverifiedToken !== undefined) options.onUnverifiedTokenRefused?.(request);
    if (mappedStatus === undefined || mappedStatus >= 500) {
      // pino-http logs `res.err` (stack included) with the request id on its completion line.
      response.err = error instanceof Error ? error : new Error(String(error));
    }
    // Unmapped failures never leak internals: a generic message and the request id.
    const known = mapped !== undefined && mappedStatus !== undefined ? mapped : new InternalError(String(request.id));
    const status = mappedStatus ?? 500;
    // A server-side failure's details may name internals (paths, hosts): the client gets the request id only.
    const details = status >= 500 && status !== 503 ? { request_id: String(request.id) } : known.details;
    response.status(status).json({
      error: { code: known.code, message: known.message, ...(details === undefined ? {} : { details }) },
    });
  };
}

/** The last handler: any request no route answered. */
export function notFoundHandler(): RequestHandler {
  return (request, _response, next) => next(new RouteNotFoundError(request.method, request.path));
}
