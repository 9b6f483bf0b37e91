import express, { type RequestHandler } from "express";
import { exceedsJsonNesting } from "@agentq/core";
import { JsonTooDeepError, UnsupportedMediaTypeError } from "./http-errors.ts";

const JSON_TYPES = ["application/json", "application/*+json"];
const METHODS_WITH_BODY = new Set(["POST", "PUT", "PATCH"]);

/**
 * Parses JSON bodies up to `limitBytes` (BODY_LIMIT) and MAX_JSON_NESTING levels of arrays and
 * objects (deeper: `400 invalid_request`, valid or not). A body in another format is refused with
 * `415 unsupported_media_type` rather than silently ignored (which would surface later as a
 * confusing "field is required").
 */
export function jsonBody(limitBytes: number): RequestHandler {
  const parseJson = express.json({
    limit: limitBytes,
    type: JSON_TYPES,
    strict: true,
    // Checked on the raw bytes before parsing: no parser or walk over the body meets a deeper value.
    verify: (_request, _response, body) => {
      if (exceedsJsonNesting(body)) throw new JsonTooDeepError();
    },
  });
  return (request, response, next) => {
    // req.is: false = a body of another type; null = no body at all. An empty body (Content-Length: 0,
    // what clients send for a bare POST) is no body, whatever its content type says.
    const emptyBody = request.headers["content-length"] === "0";
    // The type nearly every client sends is JSON as it stands: only another one needs parsing to tell.
    const plainJson = request.headers["content-type"] === "application/json";
    if (METHODS_WITH_BODY.has(request.method) && !emptyBody && !plainJson && request.is(JSON_TYPES) === false) {
      next(new UnsupportedMediaTypeError(request.headers["content-type"]));
      return;
    }
    parseJson(request, response, next);
  };
}
