/**
 * Who may call a route, decided before its body is read: an `onRequest` hook authenticates the request,
 * sets `request.caller` and checks the roles the route's `config.access` names. Every route gets it,
 * generated or added later by the user: `config: { access: "public" }` needs no credentials (valid ones
 * still set `request.caller`), a list of roles needs one of them, and no `access` needs valid credentials only.
 * A route whose `config.produces` lists the media types it answers has `Accept` negotiated in the same hook,
 * right after authentication and still before the body: `request.negotiated` is the chosen type, or 406.
 */
import type { FastifyInstance, FastifyReply, FastifyRequest, HookHandlerDoneFunction, onRequestHookHandler } from "fastify";
import type { Caller } from "./authenticate.js";
import { addVary, type ServiceContext } from "./context.js";
import { REQUEST_ID_HEADER } from "./request-id.js";
import { PATH_VERSION, type ServedVersion } from "./versions.js";

declare module "fastify" {
  interface FastifyContextConfig {
    /** "public": no credentials needed; a list of roles: credentials holding one of them; absent: any valid credentials. */
    access?: "public" | readonly string[] | undefined;
    /** The media types the route answers, the server's preference first (e.g. svc.offers(type)): Accept is negotiated against them. */
    produces?: readonly string[] | undefined;
    /** The collection a generated route serves: a version without it (x-since on its root) answers 404 there. */
    collection?: string | undefined;
  }
  interface FastifyRequest {
    /** The caller whose valid credentials the request carried; undefined without (possible on a public route only). */
    caller: Caller | undefined;
    /** The media type negotiated for the answer, on a route with `config.produces`. */
    negotiated: string | undefined;
    /** The API version the request asked for (CONTRACT §7): the current one unless Accept or the path named another. */
    apiVersion: number;
    /** How to convert for that version; undefined when there is nothing to convert (the current version, most often). */
    served: ServedVersion | undefined;
  }
}

/**
 * Decorates requests with `caller` and gives every route registered from now on (the HEAD twin of a GET
 * too) the onRequest hook its `config.access` and `config.produces` call for. One hook per distinct role
 * list and media types, made here at registration: a request runs one function and makes no closure.
 * @example installAccess(app, svc); app.get("/v1/report", { config: { access: ["auditor"] } }, handler)
 */
export function installAccess(app: FastifyInstance, svc: ServiceContext): void {
  app.decorateRequest("caller", undefined);
  app.decorateRequest("negotiated", undefined);
  app.decorateRequest("apiVersion", svc.spec.version);
  app.decorateRequest("served", undefined);
  const guards = new Map<string, onRequestHookHandler>();
  app.addHook("onRoute", (route) => {
    const access = route.config?.access;
    const produces = route.config?.produces;
    const key = `${access === "public" ? "public" : access === undefined ? "" : `roles:${access.join(",")}`}\n${produces?.join(",") ?? ""}`;
    let guard = guards.get(key);
    if (guard === undefined) guards.set(key, (guard = access === "public" ? publicGuard(svc, produces) : guardOf(svc, access, produces)));
    const own = route.onRequest;
    route.onRequest = own === undefined ? [guard] : [guard, ...(Array.isArray(own) ? own : [own])];
  });
}

/**
 * The onRequest hook of a public route: credentials are not needed, but valid ones still name the caller
 * (`request.caller`), so that a public route can answer a known caller differently. Invalid ones are ignored.
 */
function publicGuard(svc: ServiceContext, produces: readonly string[] | undefined): onRequestHookHandler {
  const versioned = svc.served.length > 1 || svc.versions.size > 0;
  return function publicCaller(req: FastifyRequest, reply: FastifyReply, done: HookHandlerDoneFunction) {
    reply.header(REQUEST_ID_HEADER, req.id);
    if (versioned) chooseVersion(svc, req, reply);
    if (produces !== undefined) req.negotiated = svc.negotiate(req, produces);
    if (req.headers.authorization !== undefined) {
      // The answer may depend on who asks: a shared cache keeps one per Authorization.
      addVary(reply, "Authorization");
      let caller: Caller | Promise<Caller>;
      try {
        caller = svc.authenticate(req);
      } catch {
        return done(); // a public route answers whatever the credentials
      }
      if (caller instanceof Promise) {
        caller.then(
          (c) => {
            req.caller = c;
            done();
          },
          () => done(),
        );
        return;
      }
      req.caller = caller;
    }
    done();
  };
}

/** The onRequest hook of one access rule: 401 without valid credentials, 403 without one of `roles`. */
function guardOf(svc: ServiceContext, roles: readonly string[] | undefined, produces: readonly string[] | undefined): onRequestHookHandler {
  const dev = roles === undefined ? "" : roles.length === 0 ? "This route is closed to every key." : `This route needs one of the roles: ${roles.join(", ")}.`;
  const versioned = svc.served.length > 1 || svc.versions.size > 0;
  return function guard(req: FastifyRequest, reply: FastifyReply, done: HookHandlerDoneFunction) {
    // Every answer names its request (request-id.ts); the unrouted hook and the error handler name theirs.
    reply.header(REQUEST_ID_HEADER, req.id);
    if (versioned) chooseVersion(svc, req, reply);
    // What an authenticated request answers depends on its credentials: no cache may keep it or hand it
    // to another caller (set before authenticating, so that the 401 and 403 carry them too).
    reply.header("cache-control", "no-store");
    addVary(reply, "Authorization");
    const caller = svc.authenticate(req);
    if (caller instanceof Promise) {
      // An access token not seen before: verified (its issuer's keys perhaps fetched) before the route goes on.
      caller.then((c) => admit(req, c)).then(() => done(), done);
      return;
    }
    admit(req, caller);
    done();
  };
  function admit(req: FastifyRequest, caller: Caller): void {
    if (roles !== undefined && !caller.roles.some((r) => roles.includes(r))) throw svc.insufficientScope(caller, roles, dev);
    req.caller = caller;
    if (produces !== undefined) req.negotiated = svc.negotiate(req, produces);
  }
}

/**
 * Sets the request's API version (CONTRACT §7) from Accept and the path's version prefix, and what converting
 * for it takes; a version with a sunset answers with its Deprecation and Sunset headers. A generated route of
 * a collection the version does not have answers 404.
 */
function chooseVersion(svc: ServiceContext, req: FastifyRequest, reply: FastifyReply): void {
  const pathVersion = (req.raw as unknown as Record<symbol, number | undefined>)[PATH_VERSION];
  const version = svc.versionOfRequest(req.headers.accept, pathVersion);
  req.apiVersion = version;
  const served = svc.versions.get(version);
  if (served === undefined) return;
  req.served = served;
  for (const [name, value] of served.headers) reply.header(name, value);
  const collection = req.routeOptions.config.collection;
  if (collection !== undefined && !served.has(collection)) throw svc.error("routeNotFound", "", `Version ${version} has no ${collection}: it came with a later version.`);
}
