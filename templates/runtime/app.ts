/**
 * Builds the Fastify application of a generated service from its spec: every route, authentication before
 * any body is read, strict JSON body parsing, content negotiation, HTTP limits, and the error body for
 * every failure (Node's own client errors included), 404/405 answers.
 */
import "./steady-ticks.js"; // first: holds the shapes of Node's nextTick tasks (see there)
import Fastify, { type FastifyBaseLogger, type FastifyInstance, type FastifyServerOptions } from "fastify";
import { installAccess } from "./access.js";
import { placeUnderBase } from "./base-path.js";
import { answerOutsideRequests, clientErrorHandler, serverFactoryOf } from "./client-errors.js";
import { registerDocs } from "./docs.js";
import { errorHandlerOf } from "./error-handler.js";
import { registerJsonBody } from "./json-body.js";
import type { KeyRing } from "./keys.js";
import { DEFAULT_HTTP_LIMITS, serverOptionsOf, type HttpLimits } from "./limits.js";
import { registerUnrouted } from "./methods.js";
import { loggedParameters, requestSerializer } from "./request-log.js";
import { registerResource } from "./routes-resource.js";
import type { ServiceSpec } from "./spec.js";
import type { Store } from "./store.js";
import { ServiceContext, sendJson, type ActionHandler, type ResourceHooks } from "./context.js";
import type { PrecompiledValidators } from "./validate.js";
import { PATH_VERSION, type VersionConverters } from "./versions.js";
import { requestIdOf } from "./request-id.js";
import { installCors, installRateLimit, registerHealth, type CorsSettings } from "./production.js";
import { OAuth2, registerOAuth2 } from "./oauth2.js";
import { DEFAULT_WINDOW_SECONDS, MemoryNonces, type NonceStore } from "./oauth1.js";
import { SigningKeys } from "./signing-keys.js";

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
  /** Timeouts of the HTTP layer (default DEFAULT_HTTP_LIMITS: safe without configuration). */
  readonly limits?: Partial<HttpLimits> | undefined;
  /** Most instances one response inlines through expand and fields (EXPAND_LIMIT; default 1000); past it, 400 expandTooLarge. */
  readonly expandLimit?: number | undefined;
  /**
   * The request validators resourcery compiled at generate time (loadValidators of src/generated/validators.js),
   * so that the start compiles no schema. Used when they were compiled from `spec`'s schemas; otherwise, or
   * without them, the validators are compiled at start-up.
   */
  readonly validators?: PrecompiledValidators | undefined;
  /** The user's converters of older versions (src/versions/v<N>.ts), by version number. */
  readonly versions?: Readonly<Record<number, VersionConverters | undefined>> | undefined;
  /** CORS for these origins (CORS_ORIGINS); undefined: no CORS headers. */
  readonly cors?: CorsSettings | undefined;
  /** Requests per minute per caller (RATE_LIMIT); undefined: no limit. */
  readonly rateLimit?: number | undefined;
  /** Fastify's trustProxy (TRUST_PROXY): whose X-Forwarded-Proto tells that a request came over TLS. */
  readonly trustProxy?: boolean | number | string | undefined;
  /** The keys the service signs its own access tokens with (oauth2): default keys held in memory only. */
  readonly signingKeys?: SigningKeys | undefined;
}

/** Levels at which Fastify's per-request lines (info) print. */
const REQUEST_LOG_LEVELS = new Set(["trace", "debug", "info"]);

/**
 * The Fastify instance of the service with every generated route registered, not yet ready: routes and
 * plugins registered on it afterwards get the same authentication (`config.access`, `request.caller`), error
 * body and 404/405 answers, and sit under the base URL's path (base-path.ts).
 */
export async function buildApp(options: AppOptions): Promise<FastifyInstance> {
  const { spec } = options;
  const baseUrl = (options.baseUrl ?? spec.baseUrl).replace(/\/+$/, "");
  const prefix = new URL(baseUrl + "/").pathname.replace(/\/+$/, "");
  const logger = options.logger;
  const requestLogs = logger !== undefined && REQUEST_LOG_LEVELS.has(logger.level);
  const svc = new ServiceContext(spec, options.store, options.keys, baseUrl, logger && !requestLogs ? (req) => logger.child({ reqId: req.id }) : undefined, options.expandLimit, options.validators, options.versions);
  if (options.validators !== undefined && svc.validators.origin === "compiled") {
    logger?.warn("the precompiled validators (src/generated/validators.js) were compiled from other schemas than the spec's: compiled them at start-up instead; regenerate the package to start without compiling");
  }
  const sendError = errorHandlerOf(svc);
  const app = Fastify({
    // Request lines show the URL with every query value but the service's own parameters redacted.
    ...(requestLogs ? { loggerInstance: logger.child({}, { serializers: { req: requestSerializer(loggedParameters(spec)) } }) } : {}),
    bodyLimit: spec.bodyLimit,
    onProtoPoisoning: "error",
    // The client's X-Request-Id when well-formed, else a UUID: the id of the request's log lines and answer.
    genReqId: requestIdOf,
    trustProxy: options.trustProxy ?? false,
    onConstructorPoisoning: "error",
    // Router options sit under routerOptions since Fastify 5.5 (top-level ones warn FSTDEP022 at every start).
    routerOptions: { ignoreTrailingSlash: true },
    // The server, with the limits' options; Fastify reads `https` for the protocol of the address it prints.
    serverFactory: serverFactoryOf(svc, serverOptionsOf({ ...DEFAULT_HTTP_LIMITS, ...options.limits }), options.https),
    ...(options.https ? { https: { cert: options.https.cert, key: options.https.key } } : {}),
    // While closing, requests on open connections are still answered (with Connection: close), not
    // answered 503 with Fastify's own body.
    return503OnClosing: false,
    // Each older version's prefix (/v1/…) serves the routes of the current one's (/v2/…), the version kept.
    ...(svc.prefixes === undefined ? {} : { rewriteUrl: versionRewrite(svc.prefixes, svc.spec.version) }),
    // Failures Fastify answers before routing (an undecodable or overlong path parameter) get the error body too.
    frameworkErrors: sendError,
    // And so do those Node's HTTP layer answers before Fastify sees the request.
    clientErrorHandler: clientErrorHandler(svc),
  } as FastifyServerOptions) as unknown as FastifyInstance;
  answerOutsideRequests(app.server, svc, app);

  if (options.cors !== undefined) installCors(app, svc, options.cors);
  registerJsonBody(app, svc);
  app.setErrorHandler(sendError);
  installAccess(app, svc);
  registerUnrouted(app, svc);
  // Counted after authentication (its onRequest hook follows the access guard on every route registered from here).
  if (options.rateLimit !== undefined) await installRateLimit(app, svc, options.rateLimit);
  registerHealth(app, svc);
  if (spec.auth.schemes.includes("oauth1")) {
    // Nonces in the database when it is shared (every process must refuse a replay), else in this process.
    const counters = options.store.counters;
    const nonces: NonceStore = counters === undefined ? new MemoryNonces() : { claim: async (key, nonce, timestamp) => (await counters.hit(`nonce:${key}:${timestamp}:${nonce}`, 2 * DEFAULT_WINDOW_SECONDS * 1000)).count === 1 };
    svc.oauth1 = { origin: new URL(baseUrl + "/").origin, nonces };
  }
  if (spec.auth.schemes.includes("oauth2")) {
    svc.oauth = new OAuth2(spec, baseUrl, options.keys, options.signingKeys ?? SigningKeys.memory());
    registerOAuth2(app, svc.oauth, options.keys, spec, svc.catalog, prefix);
  }

  if (options.docsDir) {
    const errorDocs = new URL(spec.errorDocsUrl + "/");
    const sameOrigin = errorDocs.origin === new URL(spec.baseUrl + "/").origin || errorDocs.origin === new URL(baseUrl + "/").origin;
    registerDocs(app, options.docsDir, () => svc.error("routeNotFound", "", "There is no such page in the docs."), sameOrigin ? errorDocs.pathname.replace(/\/+$/, "") : undefined);
  }

  for (const resource of spec.resources) registerResource(app, svc, resource, prefix, options.hooks?.[resource.collection]);
  for (const action of spec.actions) {
    const handler = options.actions?.[action.name];
    app.route({
      method: action.method,
      url: `${prefix}/${action.name}`,
      config: { access: action.roles.length > 0 ? action.roles : undefined, produces: svc.offers(action.mediaType) },
      handler: async (req, reply) => {
        const type = req.negotiated!;
        const params = svc.validators.query(action.name, (req.query ?? {}) as Record<string, unknown>);
        if (!handler) throw svc.error("notImplemented", "", `Write the handler of "${action.name}" in src/actions/${action.name}.ts.`);
        const result = await handler(params, svc.handlerContext(req, req.caller!));
        return sendJson(reply, 200, type, result ?? null);
      },
    });
  }
  // What the user adds from here on (routes, plugins) sits under the base path like the routes above.
  placeUnderBase(app, prefix);
  return app;
}

/**
 * Fastify's rewriteUrl for version prefixes: a path under an older version's prefix is routed as the same
 * path under the current one's, and the version its prefix named is kept on the raw request (PATH_VERSION)
 * for the version guard; a path under the current prefix keeps its URL and names the current version.
 */
function versionRewrite(prefixes: ReadonlyMap<number, string>, current: number): (req: import("node:http").IncomingMessage) => string {
  const currentPrefix = prefixes.get(current)!;
  const older = [...prefixes].filter(([v]) => v !== current);
  const under = (url: string, prefix: string) => url.startsWith(prefix) && (url.length === prefix.length || url[prefix.length] === "/" || url[prefix.length] === "?");
  return (req) => {
    const url = req.url ?? "/";
    const raw = req as unknown as Record<symbol, number>;
    if (under(url, currentPrefix)) {
      raw[PATH_VERSION] = current;
      return url;
    }
    for (const [version, prefix] of older) {
      if (!under(url, prefix)) continue;
      raw[PATH_VERSION] = version;
      return currentPrefix + url.slice(prefix.length);
    }
    return url;
  };
}
