/**
 * Builds the Fastify application of a generated service from its spec: every route, strict JSON body
 * parsing, content negotiation, the error body for every failure, 404/405 answers.
 */
import Fastify, { type FastifyBaseLogger, type FastifyError, type FastifyInstance, type FastifyReply, type FastifyRequest, type FastifyServerOptions } from "fastify";
import { registerDocs } from "./docs.js";
import { ApiError, entry } from "./errors.js";
import type { KeyRing } from "./keys.js";
import { negotiate } from "./negotiate.js";
import { registerResource } from "./routes-resource.js";
import type { ServiceSpec } from "./spec.js";
import type { Store, StoreBusy } from "./store.js";
import { ServiceContext, sendJson, type ActionHandler, type ResourceHooks } from "./context.js";

export interface AppOptions {
  readonly spec: ServiceSpec;
  readonly store: Store;
  readonly keys: KeyRing;
  /** Absolute base URL; hrefs start with it and routes sit under its path (default: the spec's). */
  readonly baseUrl?: string | undefined;
  readonly hooks?: Readonly<Record<string, ResourceHooks<any, any>>>;
  readonly actions?: Readonly<Record<string, ActionHandler<any, any>>>;
  /**
   * The service's logger (pino). Fastify logs each request through it only when its level lets those
   * lines print (info or finer); otherwise Fastify gets none — a child logger and two response
   * listeners per request cost about a tenth of a small GET — and the service's own lines (failures,
   * hooks' ctx.log) go to it directly, with the request id.
   */
  readonly logger?: FastifyBaseLogger | undefined;
  /** Folder of the reference docs, served at /docs (and at errorDocsUrl's path when it is on this server). */
  readonly docsDir?: string | undefined;
  /** PEM certificate and key: serve HTTPS. */
  readonly https?: { readonly cert: string | Buffer; readonly key: string | Buffer } | undefined;
}

const METHODS = ["GET", "HEAD", "POST", "PUT", "PATCH", "DELETE"] as const;

/** Levels at which Fastify's per-request lines (info) print. */
const REQUEST_LOG_LEVELS = new Set(["trace", "debug", "info"]);

/** The Fastify instance of the service, ready to `listen` or `inject`. */
export async function buildApp(options: AppOptions): Promise<FastifyInstance> {
  const { spec } = options;
  const baseUrl = (options.baseUrl ?? spec.baseUrl).replace(/\/+$/, "");
  const prefix = new URL(baseUrl + "/").pathname.replace(/\/+$/, "");
  const logger = options.logger;
  const requestLogs = logger !== undefined && REQUEST_LOG_LEVELS.has(logger.level);
  const svc = new ServiceContext(spec, options.store, options.keys, baseUrl, logger && !requestLogs ? (req) => logger.child({ reqId: req.id }) : undefined);
  const errorType = spec.mediaTypes.find((m) => m.kind === "error");
  const sendError = (error: FastifyError | ApiError, req: FastifyRequest, reply: FastifyReply) => {
    const api = error instanceof ApiError ? error : fromFastifyError(svc, error);
    if (api.status >= 500) svc.logOf(req).error({ err: error }, "request failed");
    const chosen = errorType ? negotiate(req.headers.accept, ["application/json", errorType.name, errorType.alias], spec) : undefined;
    for (const [name, value] of Object.entries(api.headers)) reply.header(name, value);
    return sendJson(reply, api.status, chosen?.ok ? chosen.type : "application/json", api.body);
  };
  const app = Fastify({
    ...(requestLogs ? { loggerInstance: logger } : {}),
    bodyLimit: spec.bodyLimit,
    onProtoPoisoning: "error",
    onConstructorPoisoning: "error",
    // Router options sit under routerOptions since Fastify 5.5 (top-level ones warn FSTDEP022 at every start).
    routerOptions: { ignoreTrailingSlash: true },
    return503OnClosing: true,
    // Failures Fastify answers before routing (an undecodable or overlong path parameter) get the error body too.
    frameworkErrors: sendError,
    ...(options.https ? { https: { cert: options.https.cert, key: options.https.key } } : {}),
  } as FastifyServerOptions) as unknown as FastifyInstance;

  // JSON bodies under every JSON media type this service reads: plain, merge patch, and both vendor shapes.
  // Only JSON is read: Fastify's text/plain parser would hand a handler a string instead of a 415.
  app.removeAllContentTypeParsers();
  app.addContentTypeParser(
    /^application\/(json|merge-patch\+json|vnd\.[a-z0-9.-]+\+json|[a-z0-9-]+\.v\d+\.[a-z0-9-]+\.json)(\s*;.*)?$/i,
    { parseAs: "string", bodyLimit: spec.bodyLimit },
    app.getDefaultJsonParser("error", "error"),
  );

  app.setErrorHandler(sendError);

  if (options.docsDir) {
    const errorDocs = new URL(spec.errorDocsUrl + "/");
    const sameOrigin = errorDocs.origin === new URL(spec.baseUrl + "/").origin || errorDocs.origin === new URL(baseUrl + "/").origin;
    registerDocs(app, options.docsDir, () => svc.error("routeNotFound", "", "There is no such page in the docs."), sameOrigin ? errorDocs.pathname.replace(/\/+$/, "") : undefined);
  }

  app.setNotFoundHandler((req) => {
    throw svc.error("routeNotFound", "", `No route matches ${req.method} ${req.url.split("?")[0]}.`);
  });

  const routes = new Map<string, string[]>();
  for (const resource of spec.resources) {
    for (const [path, methods] of registerResource(app, svc, resource, prefix, options.hooks?.[resource.collection])) routes.set(path, methods);
  }
  for (const action of spec.actions) {
    const path = `${prefix}/${action.name}`;
    routes.set(path, [action.method]);
    const handler = options.actions?.[action.name];
    app.route({
      method: action.method,
      url: path,
      handler: async (req, reply) => {
        const caller = svc.authenticate(req);
        if (action.roles.length > 0 && !caller.roles.some((r) => action.roles.includes(r))) {
          throw svc.error("forbidden", "", `${action.name} needs one of the roles: ${action.roles.join(", ")}.`);
        }
        const type = svc.negotiate(req, svc.offers(action.mediaType));
        const params = svc.validators.query(action.name, (req.query ?? {}) as Record<string, unknown>);
        if (!handler) throw svc.error("notImplemented", "", `Write the handler of "${action.name}" in src/actions/${action.name}.ts.`);
        const result = await handler(params, svc.handlerContext(req, caller));
        return sendJson(reply, 200, type, result ?? null);
      },
    });
  }

  // Every other method on a known path: 405 with Allow; OPTIONS answers with Allow alone.
  for (const [path, methods] of routes) {
    const allowed = methods.includes("GET") ? [...methods, "HEAD"] : methods;
    const allow = [...new Set(allowed)].sort().join(", ");
    const others = METHODS.filter((m) => !allowed.includes(m));
    if (others.length > 0) {
      app.route({
        method: others,
        url: path,
        handler: async () => {
          throw new ApiError(svc.catalog.methodNotAllowed!, "", { headers: { allow }, dev: `This route answers ${allow}.` });
        },
      });
    }
    app.route({ method: "OPTIONS", url: path, handler: async (_req, reply) => reply.code(204).header("allow", `${allow}, OPTIONS`).send() });
  }
  return app;
}

/**
 * Fastify's own failures (body parsing, limits, media types, path parameters) and the store's StoreBusy
 * as catalog errors, told apart by their codes; anything else, whatever its class or statusCode, is a 500.
 */
function fromFastifyError(svc: ServiceContext, error: FastifyError): ApiError {
  switch (error.code) {
    case "FST_ERR_CTP_INVALID_MEDIA_TYPE":
      return svc.error("unsupportedMediaType", "", "Send the body as JSON: Content-Type: application/json, application/merge-patch+json or the resource's vendor type.");
    case "FST_ERR_CTP_BODY_TOO_LARGE":
      return svc.error("payloadTooLarge", "", `The body exceeds the limit of ${svc.spec.bodyLimit} bytes.`);
    case "FST_ERR_CTP_EMPTY_JSON_BODY":
      return svc.error("malformedJson", "", "The body is empty; send a JSON object.");
    case "FST_ERR_CTP_INVALID_JSON_BODY":
      return svc.error("malformedJson", "", "The body is not valid JSON, or it has a __proto__ or constructor.prototype key, which is never accepted.");
    case "FST_ERR_CTP_INVALID_CONTENT_LENGTH":
      return svc.error("malformedJson", "", "The Content-Length header does not match the body.");
    case "RSC_STORE_BUSY": {
      const seconds = (error as unknown as StoreBusy).retryAfterSeconds;
      return new ApiError(entry(svc.catalog, "storeBusy"), "", { headers: { "retry-after": String(seconds) }, dev: `The database stayed locked by another writer; nothing was written. Retry in ${seconds} s.` });
    }
    case "FST_ERR_BAD_URL":
    case "FST_ERR_MAX_PARAM_LENGTH":
      return svc.error("notFound", "", "The id in the path is not one this service gives out (it is too long or not validly percent-encoded).");
    default:
      return svc.error("internal");
  }
}
