import type { RequestHandler } from "express";
import { InvalidRequestError } from "@agentq/core";

/**
 * A path segment holding `%00` decodes to U+0000, which no id, name or file path may contain and
 * which Postgres refuses in text: `400 invalid_request` here, before a route looks anything up.
 * (Bodies and queries are checked where they are parsed: http/parse-body.ts.)
 */
export function refuseNulInPath(): RequestHandler {
  return (request, _response, next) => {
    const path = request.originalUrl.split("?", 1)[0]!;
    if (/%00/i.test(path)) {
      next(new InvalidRequestError("the URL path contains a NUL character (%00)", { field: "(path)" }));
      return;
    }
    next();
  };
}
