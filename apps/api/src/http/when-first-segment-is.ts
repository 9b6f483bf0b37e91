import type { RequestHandler, Router } from "express";
import { leadingSegments } from "./leading-segments.ts";

export interface WhenFirstSegmentIsOptions {
  /**
   * Compare segments as the router compares paths. No default: a filter stricter than its router
   * would turn away requests the router answers (`Router()` ignores case unless made with
   * `caseSensitive: true`).
   */
  caseSensitive: boolean;
}

/** A handler that, like a Router, lists in `stack` the layers of what it dispatches to. */
export type DispatchingHandler = RequestHandler & Pick<Router, "stack">;

/**
 * Passes a request to `router` only when the first segment of its path is one of `segments` (`""`
 * is the root, `/`); any other request goes straight on. express enters every router mounted with
 * `app.use` for every request, and a router with no matching layer has tested each layer and hands
 * the request on at the next turn of the event loop (setImmediate): for a router whose every path
 * lies under `segments`, skipping it changes nothing but that cost. The router's `stack` is shown
 * as the handler's, so what lists an app's routes by walking its routers (the OpenAPI test) still
 * finds them.
 */
export function whenFirstSegmentIs(segments: readonly string[], router: Router, options: WhenFirstSegmentIsOptions): DispatchingHandler {
  const wanted = new Set(options.caseSensitive ? segments : segments.map((segment) => segment.toLowerCase()));
  const dispatch: RequestHandler = (request, response, next) => {
    const segment = leadingSegments(request.path, 1);
    if (wanted.has(options.caseSensitive ? segment : segment.toLowerCase())) return router(request, response, next);
    next();
  };
  return Object.assign(dispatch, { stack: router.stack });
}
