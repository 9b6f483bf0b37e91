import type { OpenAPIRegistry, ResponseConfig, RouteConfig } from "@asteasolutions/zod-to-openapi";
import { type Request, type Response, Router } from "express";
import { z } from "zod";
import { type AuthenticatedUser, hashApiToken, type RequestCaller } from "@agentq/core";
import type { ApiDependencies } from "../api-dependencies.ts";
import { errorResponseSchema } from "../schemas/error-schemas.ts";
import { ANSWERED, type ApiRoute, type ErrorStatus, pathParameterNames, type RouteContext, toOpenApiPath } from "./api-route.ts";
import { currentUser, requireAdmin } from "./authenticate.ts";
import { leadingSegments } from "./leading-segments.ts";
import { parseRequest } from "./parse-body.ts";
import { type DispatchingHandler, dispatchBySegments } from "./dispatch-by-segments.ts";

/** Routes of one area (`chats`, `runs`...): the OpenAPI tag groups them. */
export interface ApiRouteGroup {
  tag: string;
  description: string;
  routes: readonly ApiRoute[];
}

/** The security schemes' names in the document. */
export const BEARER_SCHEME = "bearer";
export const QUERY_TOKEN_SCHEME = "queryToken";

export interface InstallRoutesOptions {
  /**
   * Makes a user the request's and counts it against their rate limit (http/rate-limit.ts `admit`):
   * what `admitCaller` does for a `verifiesToken` route. Default: the user set, nothing counted.
   */
  admitUser?: (request: Request, response: Response, user: AuthenticatedUser) => Promise<void>;
  /**
   * The caller for a `verifiesToken` route's first statement when that statement writes, the request
   * counted against its rate limit first (http/rate-limit.ts `callerForWrite`). Default: the token's
   * hash (or the user), nothing counted.
   */
  callerForWrite?: (request: Request, response: Response) => Promise<RequestCaller>;
}

/**
 * Installs the routes of `groups` with the given access: access check, then the path parameters,
 * query and body validated with the route's schemas (`parseRequest`: 400 naming the field), then
 * the handler, whose reply is sent as JSON with its status.
 *
 * The routes are put on one router per first two path segments (`/api/chats`), and a request
 * enters only the router of its own: it is matched against a few routes, not all seventy, and one
 * that no route can match goes on at once rather than through a router that tests every route and
 * hands it on at the next turn of the event loop. Each router is a plain `Router()`, matching as the
 * single router did (case ignored, trailing slash allowed), so the keys ignore case too.
 */
export function installRoutes(
  groups: readonly ApiRouteGroup[],
  dependencies: ApiDependencies,
  access: "public" | "authenticated",
  options: InstallRoutesOptions = {},
): DispatchingHandler {
  const admitUser =
    options.admitUser ??
    (async (request: Request, _response: Response, user: AuthenticatedUser) => {
      request.user = user;
    });
  const callerForWrite = options.callerForWrite ?? (async (request: Request) => callerOf(request));
  const routers = new Map<string, Router>();
  for (const route of groups.flatMap((group) => group.routes)) {
    if ((route.access === "public") !== (access === "public")) continue;
    const paramsSchema = parametersSchema(route);
    routerFor(routers, route.path)[route.method](route.path, async (request, response) => {
      if (route.access === "admin") requireAdmin(request);
      const params = parseRequest(paramsSchema, joinedParameters(request.params), "path") as Record<string, string>;
      const query = route.query === undefined ? undefined : parseRequest(route.query, request.query, "query");
      const body = route.body === undefined ? undefined : parseRequest(route.body, request.body, "request body", { nulAllowedIn: route.nulAllowedIn });
      const reply = await route.handler(new HandlerContext(dependencies, request, response, params, query, body, admitUser, callerForWrite));
      if (reply === ANSWERED) return;
      if (reply.body === undefined) response.status(reply.status).end();
      else response.status(reply.status).json(reply.body);
    });
  }
  return dispatchBySegments(routers, 2, { caseSensitive: false });
}

/** The router of the routes under the first two segments of `path`, which must be plain text (a parameter there would belong to every group). */
function routerFor(routers: Map<string, Router>, path: string): Router {
  const prefix = leadingSegments(path, 2);
  if (!/^[\w.~-]+\/[\w.~-]+$/.test(prefix)) throw new Error(`API route ${path}: its first two segments must be plain text (routes are grouped by them)`);
  let router = routers.get(prefix.toLowerCase());
  if (router === undefined) {
    router = Router();
    routers.set(prefix.toLowerCase(), router);
  }
  return router;
}

/**
 * What a handler gets. A class, so that `user` is one getter on the prototype: an object literal
 * with a getter defined a new accessor (and its closure) at every request.
 */
class HandlerContext implements RouteContext<Record<string, string>, unknown, unknown> {
  constructor(
    readonly dependencies: ApiDependencies,
    readonly request: Request,
    readonly response: Response,
    readonly params: Record<string, string>,
    readonly query: unknown,
    readonly body: unknown,
    private readonly admitUser: (request: Request, response: Response, user: AuthenticatedUser) => Promise<void>,
    private readonly countCallerForWrite: (request: Request, response: Response) => Promise<RequestCaller>,
  ) {}

  /** Read only if the handler asks: on a public route there is no caller, and asking is a 401. */
  get user(): AuthenticatedUser {
    return currentUser(this.request);
  }

  get caller(): RequestCaller {
    return callerOf(this.request);
  }

  get callerForWrite(): () => Promise<RequestCaller> {
    return () => this.countCallerForWrite(this.request, this.response);
  }

  /** A function of its own (handlers destructure the context), made only for the handler that asks. */
  get admitCaller(): (user: AuthenticatedUser) => Promise<void> {
    return async (user) => {
      if (this.request.user === undefined) await this.admitUser(this.request, this.response, user);
    };
  }
}

/** The user `authenticate` found, or, on a `verifiesToken` route, the hash of the bearer token. */
function callerOf(request: Request): RequestCaller {
  const { user, unverifiedToken } = request;
  if (user === undefined && unverifiedToken !== undefined) return { tokenHash: hashApiToken(unverifiedToken) };
  return { userId: currentUser(request).id };
}

/**
 * The routes that declare `verifiesToken`, by method and path relative to `mount`: what `authenticate`
 * passes on with the token unchecked, so the declaration is the one place that decides it.
 */
export function tokenVerifyingRoutes(groups: readonly ApiRouteGroup[], mount: string): { method: string; path: RegExp }[] {
  return groups
    .flatMap((group) => group.routes)
    .filter((route) => route.verifiesToken && route.path.startsWith(`${mount}/`))
    .map((route) => ({ method: route.method.toUpperCase(), path: relativePathPattern(route.path, mount) }));
}

/**
 * The paths, relative to `mount`, of the routes that declare `queryToken`: what `authenticate`
 * accepts `?token=` on, so the declaration is the one place that decides it.
 */
export function queryTokenPathPatterns(groups: readonly ApiRouteGroup[], mount: string): RegExp[] {
  return groups
    .flatMap((group) => group.routes)
    .filter((route) => route.queryToken && route.path.startsWith(`${mount}/`))
    .map((route) => relativePathPattern(route.path, mount));
}

/**
 * An express path (`/api/runs/:id/events`) under `mount` as a pattern of the path relative to it, as
 * written: the routers also take other cases and a trailing slash, which then go the ordinary way (no
 * `?token=`; the token looked up by `authenticate`).
 */
function relativePathPattern(path: string, mount: string): RegExp {
  const pattern = path
    .slice(mount.length)
    .split(/([:*][A-Za-z_][A-Za-z0-9_]*)/)
    .map((part) => (part.startsWith(":") ? "[^/]+" : part.startsWith("*") ? ".+" : part.replace(/[.*+?^${}()|[\]\\]/g, "\\$&")))
    .join("");
  return new RegExp(`^${pattern}$`);
}

/** `*path` arrives as its decoded segments (path-to-regexp v8): handlers get them joined with `/`. */
function joinedParameters(params: Record<string, unknown>): Record<string, unknown> {
  return Object.fromEntries(Object.entries(params).map(([name, value]) => [name, Array.isArray(value) ? value.map(String).join("/") : value]));
}

function parametersSchema(route: ApiRoute): z.ZodObject {
  const shape: Record<string, z.ZodType> = {};
  for (const name of pathParameterNames(route.path)) {
    const wildcard = route.path.includes(`*${name}`);
    const description =
      route.parameters[name] ?? (wildcard ? "a path inside the workspace: segments separated by `/` (each may be percent-encoded, `%2F` included)" : undefined);
    const schema = wildcard ? z.string() : z.string().min(1);
    shape[name] = description === undefined ? schema : schema.meta({ description });
  }
  return z.object(shape);
}

const DEFAULT_ERROR_DESCRIPTIONS: Record<ErrorStatus, string> = {
  400: "`invalid_request`: the input does not fit the schema (`details.field` names the field)",
  401: "`unauthorized`: the bearer token is missing or not valid",
  403: "`forbidden`: the caller is not an admin",
  404: "`not_found`: no such resource, or it belongs to someone else",
  409: "a conflict with the resource's state (the code says which)",
  410: "gone",
  413: "`payload_too_large`: the body is larger than BODY_LIMIT",
  415: "`unsupported_media_type`: the body is not JSON",
  429: "too many requests",
  503: "`unavailable`: Postgres or Redis cannot be reached right now; try again",
};

/** The error answers a route has: the ones its kind implies, then its own (which may say more). */
function errorStatuses(route: ApiRoute): Partial<Record<ErrorStatus, string>> {
  const implied: Partial<Record<ErrorStatus, string>> = {};
  const takesInput = route.query !== undefined || route.body !== undefined || pathParameterNames(route.path).length > 0;
  if (takesInput) implied[400] = DEFAULT_ERROR_DESCRIPTIONS[400];
  if (route.access !== "public") implied[401] = DEFAULT_ERROR_DESCRIPTIONS[401];
  if (route.access === "admin") implied[403] = DEFAULT_ERROR_DESCRIPTIONS[403];
  if (pathParameterNames(route.path).length > 0) implied[404] = DEFAULT_ERROR_DESCRIPTIONS[404];
  if (route.body !== undefined) {
    implied[413] = DEFAULT_ERROR_DESCRIPTIONS[413];
    implied[415] = DEFAULT_ERROR_DESCRIPTIONS[415];
  }
  return { ...implied, ...route.errors };
}

/** Records the routes of `groups` as OpenAPI paths, tagged by group. Two routes with one operation id or one method and path are a bug, refused here. */
export function registerRoutes(registry: OpenAPIRegistry, groups: readonly ApiRouteGroup[]): void {
  const seen = new Set<string>();
  for (const group of groups) {
    for (const route of group.routes) {
      for (const key of [`operationId ${route.operationId}`, `${route.method.toUpperCase()} ${route.path}`]) {
        if (seen.has(key)) throw new Error(`two API routes declare ${key}`);
        seen.add(key);
      }
      registry.registerPath(openApiRoute(route, group.tag));
    }
  }
}

function openApiRoute(route: ApiRoute, tag: string): RouteConfig {
  const responses: Record<string, ResponseConfig> = {};
  for (const [status, response] of Object.entries(route.responses)) {
    if (response === undefined) continue;
    const content: NonNullable<ResponseConfig["content"]> = {};
    if (response.schema !== undefined) content["application/json"] = { schema: response.schema };
    for (const [mediaType, alternative] of Object.entries(response.alternatives ?? {})) content[mediaType] = { schema: alternative.schema };
    responses[status] = { description: response.description, ...(Object.keys(content).length > 0 ? { content } : {}) };
  }
  for (const [status, description] of Object.entries(errorStatuses(route))) {
    responses[status] = { description, content: { "application/json": { schema: errorResponseSchema } } };
  }
  const params = parametersSchema(route);
  const security: Record<string, string[]>[] = [];
  if (route.access !== "public") security.push({ [BEARER_SCHEME]: [] });
  if (route.access !== "public" && route.queryToken) security.push({ [QUERY_TOKEN_SCHEME]: [] });
  return {
    method: route.method,
    path: toOpenApiPath(route.path),
    operationId: route.operationId,
    summary: route.summary,
    ...(route.description === undefined ? {} : { description: route.description }),
    tags: [tag],
    security,
    request: {
      ...(Object.keys(params.shape).length > 0 ? { params } : {}),
      ...(route.query === undefined ? {} : { query: route.query }),
      ...(route.body === undefined ? {} : { body: { required: true, content: { "application/json": { schema: route.body } } } }),
    },
    responses,
  };
}
