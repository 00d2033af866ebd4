/**
 * Requests no route takes, answered before their body is read: a path that has routes for other methods
 * answers 405 with Allow (OPTIONS: 204 with Allow), any other path 404. The routes are looked up in the
 * app's own router, so every route counts, generated or added by the user, and any method: TRACE,
 * PROPFIND, QUERY alike.
 */
import type { FastifyInstance, FastifyReply, FastifyRequest, HookHandlerDoneFunction } from "fastify";
import { ApiError, entry } from "./errors.js";
import type { ServiceContext } from "./context.js";
import { REQUEST_ID_HEADER } from "./request-id.js";

/**
 * The methods with a route at `path` (a request path; a query is ignored), sorted; empty when none has.
 * @example allowedMethods(app, "/v1/authors") → ["GET", "HEAD", "POST"]
 */
export function allowedMethods(app: FastifyInstance, path: string): string[] {
  const url = path.split("?")[0]!;
  const out: string[] = [];
  for (const method of app.supportedMethods) {
    try {
      if (app.findRoute({ method: method as "GET", url }) !== null) out.push(method);
    } catch {
      /* a path the router cannot decode matches nothing */
    }
  }
  return out.sort();
}

/**
 * Registers the not-found handler with an onRequest hook that answers 404, 405 or OPTIONS, so that neither
 * credentials nor a body are looked at for a request no route takes.
 */
export function registerUnrouted(app: FastifyInstance, svc: ServiceContext): void {
  const notAllowed = entry(svc.catalog, "methodNotAllowed");
  const unrouted = (req: FastifyRequest, reply: FastifyReply, _done: HookHandlerDoneFunction): void => {
    reply.header(REQUEST_ID_HEADER, req.id);
    const path = req.url.split("?")[0]!;
    const allowed = allowedMethods(app, path);
    if (allowed.length === 0) throw svc.error("routeNotFound", "", `No route matches ${req.method} ${path}.`);
    const allow = allowed.join(", ");
    if (req.method === "OPTIONS") {
      reply.code(204).header("allow", `${allow}, OPTIONS`).send();
      return;
    }
    throw new ApiError(notAllowed, "", { headers: { allow }, dev: `This route answers ${allow}.` });
  };
  // The not-found handler takes the hooks of the plugin it is set in (Fastify's encapsulation).
  void app.register(function unroutedRequests(scope, _options, next) {
    scope.addHook("onRequest", unrouted);
    scope.setNotFoundHandler((req) => {
      throw svc.error("routeNotFound", "", `No route matches ${req.method} ${req.url.split("?")[0]}.`);
    });
    next();
  });
}
