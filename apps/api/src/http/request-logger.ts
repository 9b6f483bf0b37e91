import { randomUUID } from "node:crypto";
import type { RequestHandler } from "express";
import { pinoHttp } from "pino-http";
import type { Logger } from "@agentq/core";
import { redactQueryCredentials, redactUrlCredentials } from "./redact-url-credentials.ts";

/** An incoming X-Request-Id is kept only if it is short and plain (it ends up in every log line). */
const SANE_REQUEST_ID = /^[A-Za-z0-9._:-]{1,128}$/;
const QUIET_PATHS = new Set(["/healthz", "/metrics"]);

/**
 * pino-http with a request id on every line (`request_id`), echoed in the `X-Request-Id` response
 * header. Probe endpoints are not logged (they are hit every few seconds). A token in the URL
 * (`?token=`, how a browser's WebSocket and EventSource authenticate) is never written: the URL and
 * the parsed query are logged with credential values replaced.
 */
export function requestLogger(logger: Logger): RequestHandler[] {
  const logRequests = pinoHttp({
    logger,
    quietReqLogger: true,
    customAttributeKeys: { reqId: "request_id" },
    // Applied to pino's serialized request (wrapSerializers), on every line that carries it.
    serializers: {
      req: (request: { url?: string; query?: unknown }) => {
        if (typeof request.url === "string") request.url = redactUrlCredentials(request.url);
        if (request.query !== undefined) request.query = redactQueryCredentials(request.query);
        return request;
      },
    },
    genReqId: (request, response) => {
      const incoming = request.headers["x-request-id"];
      const id = typeof incoming === "string" && SANE_REQUEST_ID.test(incoming) ? incoming : randomUUID();
      response.setHeader("X-Request-Id", id);
      return id;
    },
    autoLogging: { ignore: (request) => QUIET_PATHS.has(request.url ?? "") },
    customLogLevel: (_request, response, error) => (error !== undefined || response.statusCode >= 500 ? "error" : response.statusCode >= 400 ? "warn" : "info"),
  });
  const logStart: RequestHandler = (request, _response, next) => {
    request.log.debug({ method: request.method, url: redactUrlCredentials(request.originalUrl) }, "request started");
    next();
  };
  return [logRequests, logStart];
}
