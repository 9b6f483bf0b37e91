import { randomUUID } from "node:crypto";
import { IncomingMessage } from "node:http";
import type { RequestHandler } from "express";
import { pinoHttp, stdSerializers } from "pino-http";
import type { Logger } from "@agentq/core";
import { redactQueryCredentials, redactUrlCredentials } from "./redact-url-credentials.ts";

/** An incoming X-Request-Id is kept only if it is short and plain (it ends up in every log line). */
const SANE_REQUEST_ID = /^[A-Za-z0-9._:-]{1,128}$/;
const QUIET_PATHS = new Set(["/healthz", "/metrics"]);

/** pino's view of a request (id, method, url, query, params, headers, remote address and port). */
type RequestView = ReturnType<typeof stdSerializers.req>;

/**
 * Where a request keeps its view as it arrived, for its completion line. A property rather than a
 * WeakMap: an entry per request left every scavenge more ephemerons to walk (GC time rose visibly).
 */
const ARRIVED = Symbol("request as it arrived");

type WithArrivedView = IncomingMessage & { [ARRIVED]?: RequestView };

/**
 * pino-http with a request id on every line (`request_id`), echoed in the `X-Request-Id` response
 * header. Probe endpoints are not logged (they are hit every few seconds). A token in the URL
 * (`?token=`, how a browser's WebSocket and EventSource authenticate) is never written: the URL and
 * the parsed query are logged with credential values replaced.
 *
 * The completion line's `req` is serialized only when that line is written (at LOG_LEVEL=warn, a
 * success never is): it is added to the line's object, not bound to a child logger, whose bindings
 * pino serializes when the child is made, at every request. It shows the request as it arrived
 * (route params not yet known: `params` is `{}`), as the bound child did.
 */
export function requestLogger(logger: Logger): RequestHandler[] {
  const logRequests = pinoHttp({
    logger,
    quietReqLogger: true,
    quietResLogger: true,
    customAttributeKeys: { reqId: "request_id" },
    customSuccessObject: (request, _response, line: object) => ({ req: arrivedRequest(request), ...line }),
    customErrorObject: (request, _response, _error, line: object) => ({ req: arrivedRequest(request), ...line }),
    // Unwrapped, so that `req` gets the view taken on arrival rather than the request as it is now.
    wrapSerializers: false,
    serializers: {
      // pino-http 11 still binds the raw request to a child logger at every request (its
      // `fullReqLogger`, unused once both quiet options are set): that binding is left out.
      req: (request: RequestView | IncomingMessage) => (request instanceof IncomingMessage ? undefined : redactCredentials(request)),
      res: stdSerializers.res,
      err: stdSerializers.err,
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
    (request as WithArrivedView)[ARRIVED] = stdSerializers.req(request);
    if (request.log.isLevelEnabled("debug")) request.log.debug({ method: request.method, url: redactUrlCredentials(request.originalUrl) }, "request started");
    next();
  };
  return [logRequests, logStart];
}

function arrivedRequest(request: IncomingMessage): RequestView {
  return (request as WithArrivedView)[ARRIVED] ?? stdSerializers.req(request);
}

/** The view's URL and query with credential values replaced (in place: the view is the line's own). */
function redactCredentials(view: RequestView): RequestView {
  if (typeof view.url === "string") view.url = redactUrlCredentials(view.url);
  if (view.query !== undefined) view.query = redactQueryCredentials(view.query) as RequestView["query"];
  return view;
}
