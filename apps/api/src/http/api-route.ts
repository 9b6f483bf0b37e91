import type { Request, Response } from "express";
import type { z } from "zod";
import type { AuthenticatedUser, RequestCaller } from "@agentq/core";
import type { ApiDependencies } from "../api-dependencies.ts";

// A route of the API declared once: what express installs (validation, access, the handler) and
// what the OpenAPI document says about it come from the same object (http/api-routes.ts uses both).

export type HttpMethod = "get" | "post" | "put" | "patch" | "delete";

/** `public`: no token (mounted before authentication); `user`: any caller; `admin`: 403 for others. */
export type RouteAccess = "public" | "user" | "admin";

export type SuccessStatus = 200 | 201 | 202 | 204;
export type ErrorStatus = 400 | 401 | 403 | 404 | 409 | 410 | 413 | 415 | 429 | 503;

export interface RouteResponse {
  description: string;
  /** The JSON body; none for a response without one (204). */
  schema?: z.ZodType;
  /** Other representations of the same response, by media type (the events' `text/event-stream`). */
  alternatives?: Record<string, { schema: z.ZodType; description?: string }>;
}

export type RouteResponses = { [Status in SuccessStatus]?: RouteResponse };

/**
 * The names of an express path's parameters: `:id` and the wildcard `*path`
 * (`/api/workspaces/:id/files/*path` → `"id" | "path"`).
 */
export type PathParameterNames<Path extends string> = Path extends `${string}:${infer Name}/${infer Rest}`
  ? Name | PathParameterNames<`/${Rest}`>
  : Path extends `${string}:${infer Name}`
    ? Name
    : Path extends `${string}*${infer Name}`
      ? Name
      : never;

/** What a handler answers: one of its declared statuses with that status's body, checked by the compiler. */
export type RouteReply<Responses extends RouteResponses> =
  | {
      [Status in keyof Responses & SuccessStatus]: Responses[Status] extends { schema: z.ZodType }
        ? { status: Status; body: z.input<Responses[Status]["schema"]> }
        : { status: Status; body?: undefined };
    }[keyof Responses & SuccessStatus]
  | typeof ANSWERED;

/** A handler that wrote the response itself (an event stream) returns this. */
export const ANSWERED: unique symbol = Symbol("answered");

export interface RouteContext<Params, Query, Body> {
  dependencies: ApiDependencies;
  request: Request;
  response: Response;
  /** The caller (not available on public routes, nor on a `verifiesToken` route before `admitCaller`). */
  readonly user: AuthenticatedUser;
  /**
   * Who calls: the user `authenticate` found, or, on a `verifiesToken` route, the hash of the bearer
   * token (users/api-token.ts) for the handler's first statement to find its user by.
   */
  readonly caller: RequestCaller;
  /**
   * A `verifiesToken` route calls this with the user its first statement found, before it writes
   * anything: from then on the request's `user`, and counted against their rate limit (429 over it).
   * Does nothing once the request has its user.
   */
  readonly admitCaller: (user: AuthenticatedUser) => Promise<void>;
  /**
   * For a `verifiesToken` route whose first statement writes: counts the request against the rate
   * limit before it (http/rate-limit.ts `callerForWrite`) and returns the caller for that statement
   * to find, which it then passes to `admitCaller`.
   */
  readonly callerForWrite: () => Promise<RequestCaller>;
  /** Path parameters; a wildcard's segments are joined with `/`. */
  params: Params;
  query: Query;
  body: Body;
}

type Parsed<Schema> = Schema extends z.ZodType ? z.output<Schema> : undefined;

export interface RouteSpec<Path extends string, Query extends z.ZodObject | undefined, Body extends z.ZodType | undefined, Responses extends RouteResponses> {
  method: HttpMethod;
  /** The express pattern (`/api/chats/:id`); the OpenAPI path is derived from it (`/api/chats/{id}`). */
  path: Path;
  /** Unique, camelCase: the name generated clients give the operation. */
  operationId: string;
  summary: string;
  description?: string;
  /** Default `user`. */
  access?: RouteAccess;
  /** The route also takes the token as `?token=` (what a browser's EventSource can send). Default false. */
  queryToken?: boolean;
  /**
   * The handler verifies the bearer token in its own first statement (with `caller`, or with
   * `callerForWrite` when that statement writes, then `admitCaller`): one round trip fewer, for a
   * route on a path users wait on. The token is as
   * strictly checked (a revoked or disabled one is 401, nothing changed) and a bad token still
   * comes before a bad request (http/error-handler.ts). Default false.
   */
  verifiesToken?: boolean;
  /** Descriptions of the path parameters (each is a non-empty string). */
  parameters?: { [Name in PathParameterNames<Path>]?: string };
  query?: Query;
  body?: Body;
  /** Top-level body fields whose text may hold U+0000 (see parseRequest). */
  nulAllowedIn?: readonly string[];
  responses: Responses;
  /**
   * Error answers beyond the ones every route of its kind has (400 for bad input, 401, 403 for
   * admin routes, 404 for a path with ids), each with what it means here.
   */
  errors?: { [Status in ErrorStatus]?: string };
  handler: (
    context: RouteContext<{ [Name in PathParameterNames<Path>]: string }, Parsed<Query>, Parsed<Body>>,
  ) => Promise<RouteReply<Responses>> | RouteReply<Responses>;
}

/** A declared route with its types erased, as the route table holds it. */
export interface ApiRoute {
  method: HttpMethod;
  path: string;
  operationId: string;
  summary: string;
  description: string | undefined;
  access: RouteAccess;
  queryToken: boolean;
  verifiesToken: boolean;
  parameters: Readonly<Record<string, string | undefined>>;
  query: z.ZodObject | undefined;
  body: z.ZodType | undefined;
  nulAllowedIn: readonly string[];
  responses: RouteResponses;
  errors: { [Status in ErrorStatus]?: string };
  handler: (context: RouteContext<Record<string, string>, unknown, unknown>) => Promise<ErasedReply> | ErasedReply;
}

export type ErasedReply = { status: SuccessStatus; body?: unknown } | typeof ANSWERED;

/** Declares a route; the compiler checks the handler's replies against the declared response schemas. */
export function defineRoute<
  Path extends string,
  Responses extends RouteResponses,
  Query extends z.ZodObject | undefined = undefined,
  Body extends z.ZodType | undefined = undefined,
>(spec: RouteSpec<Path, Query, Body, Responses>): ApiRoute {
  return {
    method: spec.method,
    path: spec.path,
    operationId: spec.operationId,
    summary: spec.summary,
    description: spec.description,
    access: spec.access ?? "user",
    queryToken: spec.queryToken ?? false,
    verifiesToken: spec.verifiesToken ?? false,
    parameters: spec.parameters ?? {},
    query: spec.query,
    body: spec.body,
    nulAllowedIn: spec.nulAllowedIn ?? [],
    responses: spec.responses,
    errors: spec.errors ?? {},
    // The one place the types are erased: the table installs the handler with what the spec declared.
    handler: spec.handler as unknown as ApiRoute["handler"],
  };
}

/** The names of a path's parameters at run time (`:id`, `*path`), in order. */
export function pathParameterNames(path: string): string[] {
  return [...path.matchAll(/[:*]([A-Za-z_][A-Za-z0-9_]*)/g)].map((match) => match[1]!);
}

/** Express `/api/chats/:id` and `/files/*path` → OpenAPI `/api/chats/{id}` and `/files/{path}`. */
export function toOpenApiPath(path: string): string {
  return path.replace(/[:*]([A-Za-z_][A-Za-z0-9_]*)/g, "{$1}");
}
