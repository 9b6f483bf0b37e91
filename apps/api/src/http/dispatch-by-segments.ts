import type { RequestHandler, Router } from "express";
import { leadingSegments } from "./leading-segments.ts";

export interface SegmentDispatchOptions {
  /**
   * Compare segments as the routers compare paths. No default: a filter stricter than its router
   * would turn away requests the router answers (`Router()` ignores case unless made with
   * `caseSensitive: true`).
   */
  caseSensitive: boolean;
}

/** A handler that, like a Router, lists in `stack` the layers of what it dispatches to. */
export type DispatchingHandler = RequestHandler & Pick<Router, "stack">;

/**
 * Passes a request to the router of the first `count` segments of its path (`api/chats` for 2; `""`
 * is the root, `/`); a request under none of them goes straight on. express enters every router
 * mounted with `app.use` for every request, and a router with no matching layer has tested each
 * layer and hands the request on at the next turn of the event loop (setImmediate): for routers
 * whose every path lies under their key, skipping them changes nothing but that cost. The routers'
 * `stack`s are shown as the handler's, so what lists an app's routes by walking its routers (the
 * OpenAPI test) still finds them.
 */
export function dispatchBySegments(routers: ReadonlyMap<string, Router>, count: number, options: SegmentDispatchOptions): DispatchingHandler {
  const keyOf = (segments: string) => (options.caseSensitive ? segments : segments.toLowerCase());
  const byKey = new Map([...routers].map(([segments, router]) => [keyOf(segments), router]));
  const dispatch: RequestHandler = (request, response, next) => {
    const router = byKey.get(keyOf(leadingSegments(request.path, count)));
    if (router === undefined) return next();
    return router(request, response, next);
  };
  return Object.assign(dispatch, { stack: [...new Set(byKey.values())].flatMap((router) => router.stack) });
}

/** `router` for the requests whose first path segment is one of `segments`. */
export function whenFirstSegmentIs(segments: readonly string[], router: Router, options: SegmentDispatchOptions): DispatchingHandler {
  return dispatchBySegments(new Map(segments.map((segment) => [segment, router])), 1, options);
}

/**
 * The first segments of the paths of `router`'s routes, for whenFirstSegmentIs: read off the routes
 * themselves, so that a route added to the router is reached without a list to keep in step. Every
 * layer must be a route of a plain path: a middleware, or a path with a parameter or pattern in its
 * first segment, could answer requests under segments no list names.
 */
export function firstSegmentsOfRoutes(router: Router): string[] {
  const segments = router.stack.map((layer) => {
    const path = layer.route?.path;
    const segment = typeof path === "string" ? leadingSegments(path, 1) : undefined;
    if (segment === undefined || !/^[\w.~-]+$/.test(segment))
      throw new Error(`the router has a layer that is not a route under a plain first segment (${String(path ?? layer.name)})`);
    return segment;
  });
  return [...new Set(segments)];
}
