/**
 * What running in production needs beside the routes (CONTRACT §10): health endpoints for an orchestrator,
 * CORS for browsers (CORS_ORIGINS), and rate limits (RATE_LIMIT, with @fastify/rate-limit).
 *
 * CORS is answered here rather than by @fastify/cors: that plugin registers `OPTIONS *` on every path
 * (its index.js, unconditionally), so every path would be routed for OPTIONS and the service's own answers
 * built on the router — 404 for a path no route has, 405 and `Allow` for a method a path lacks (methods.ts)
 * — would be lost; its strict preflight also answers a text/plain 400 instead of the error body. The CORS
 * protocol itself is small: what follows is the Fetch standard's server side, nothing more.
 */
import type { FastifyInstance, FastifyReply, FastifyRequest } from "fastify";
import type { ServiceContext } from "./context.js";
import { addVary } from "./context.js";
import { ApiError, entry } from "./errors.js";
import { allowedMethods } from "./methods.js";
import { REQUEST_ID_HEADER } from "./request-id.js";
import type { SharedCounters } from "./store.js";

/**
 * `GET /health/live` (the process answers) and `GET /health/ready` (its store answers too: Store.ping),
 * outside the base path, without credentials and never rate-limited: 200 `{"status":"live"|"ready"}`, else
 * 503 with the error body (notReady). Answers are never cached.
 */
export function registerHealth(app: FastifyInstance, svc: ServiceContext): void {
  const config = { access: "public" as const, outsideBase: true, rateLimit: false as const };
  const ok = (reply: FastifyReply, status: string) => reply.code(200).header("cache-control", "no-store").header("content-type", "application/json; charset=utf-8").send(`{"status":"${status}"}`);
  app.route({ method: ["GET", "HEAD"], url: "/health/live", config, handler: async (_req, reply) => ok(reply, "live") });
  app.route({
    method: ["GET", "HEAD"],
    url: "/health/ready",
    config,
    handler: async (_req, reply) => {
      try {
        await svc.store.ping?.();
      } catch (error) {
        reply.header("cache-control", "no-store").header("retry-after", "1");
        throw svc.error("notReady", "", `The store does not answer: ${error instanceof Error ? error.message.split("\n")[0] : String(error)}`);
      }
      return ok(reply, "ready");
    },
  });
}

/** The CORS settings of a service: the allowed origins (CORS_ORIGINS), or every origin (`*`). */
export interface CorsSettings {
  /** Exact origins (`https://app.example.com`), or ["*"] for any origin (then without credentials). */
  readonly origins: readonly string[];
}

/** Request headers a browser may send (besides the CORS-safelisted ones). */
const ALLOWED_HEADERS = "Authorization, Content-Type, Accept, If-Match, If-None-Match, X-Request-Id";
/** Response headers a browser's script may read (besides the CORS-safelisted ones). */
const EXPOSED_HEADERS = "ETag, Location, X-Request-Id, Retry-After, WWW-Authenticate, Allow, Deprecation, Sunset, Link, X-RateLimit-Limit, X-RateLimit-Remaining, X-RateLimit-Reset";
/** How long a browser may keep a preflight's answer (seconds). */
const PREFLIGHT_MAX_AGE = "600";

/**
 * Reads CORS_ORIGINS: comma-separated origins (scheme, host and port only: `https://app.example.com`), or
 * `*`; unset or empty: CORS off. A value that is no origin throws, naming it.
 * @example corsOriginsFrom("https://a.example, http://localhost:5173") → ["https://a.example", "http://localhost:5173"]
 */
export function corsOriginsFrom(text: string | undefined): readonly string[] | undefined {
  if (text === undefined || text.trim() === "") return undefined;
  const origins = text.split(",").map((o) => o.trim()).filter((o) => o !== "");
  if (origins.includes("*")) {
    if (origins.length > 1) throw new Error("CORS_ORIGINS is either * or a list of origins, not both");
    return ["*"];
  }
  for (const origin of origins) {
    let url: URL | undefined;
    try {
      url = new URL(origin);
    } catch {
      url = undefined;
    }
    if (url === undefined || (url.protocol !== "http:" && url.protocol !== "https:") || url.origin !== origin) {
      throw new Error(`CORS_ORIGINS: ${JSON.stringify(origin)} is not an origin; write scheme, host and port only, e.g. https://app.example.com`);
    }
  }
  return origins;
}

/**
 * CORS for the allowed origins: every answer to an allowed origin says so (with credentials, unless every
 * origin is allowed: a browser never sends credentials to `*`), and a preflight (OPTIONS with Origin and
 * Access-Control-Request-Method) on a routed path answers 204 with the path's methods, before credentials
 * are asked for (a browser sends none with a preflight). A preflight on a path no route has answers 404.
 */
export function installCors(app: FastifyInstance, svc: ServiceContext, settings: CorsSettings): void {
  const any = settings.origins.includes("*");
  const allowed = new Set(settings.origins);
  app.addHook("onRequest", function cors(req: FastifyRequest, reply: FastifyReply, done: (error?: Error) => void) {
    const origin = req.headers.origin;
    if (origin === undefined) return done();
    reply.header(REQUEST_ID_HEADER, req.id); // a preflight is answered here, before any route's hook
    const ok = any || allowed.has(origin);
    if (ok) {
      reply.header("access-control-allow-origin", any ? "*" : origin);
      if (!any) reply.header("access-control-allow-credentials", "true");
      reply.header("access-control-expose-headers", EXPOSED_HEADERS);
    }
    if (!any) addVary(reply, "Origin");
    const requested = req.headers["access-control-request-method"];
    if (req.method !== "OPTIONS" || requested === undefined) return done();
    // A preflight: answered here, whoever routes OPTIONS on this path.
    const path = req.url.split("?")[0]!;
    const methods = allowedMethods(app, path).filter((m) => m !== "OPTIONS");
    if (methods.length === 0) return done(svc.error("routeNotFound", "", `No route matches ${path}.`));
    addVary(reply, "Access-Control-Request-Method, Access-Control-Request-Headers");
    if (ok) {
      reply.header("access-control-allow-methods", methods.join(", "));
      reply.header("access-control-allow-headers", ALLOWED_HEADERS);
      reply.header("access-control-max-age", PREFLIGHT_MAX_AGE);
    }
    reply.code(204).header("allow", `${methods.join(", ")}, OPTIONS`).send();
  });
}

/**
 * Rate limits with @fastify/rate-limit: `max` requests per minute per caller — the API key (or token
 * subject) once authenticated, else the client address — on every route but the health checks, counted
 * after authentication (the limit of a key is the key's, whoever else shares its address); a request whose
 * credentials fail (a 401, which the guard answers before this limit runs) counts against its address: the error
 * handler asks ServiceContext.authFailed for every 401. Over it: 429
 * with `Retry-After` and the error body (tooManyRequests). On a shared database (Store.counters) every
 * process counts in the same counters; otherwise each process counts alone.
 */
export async function installRateLimit(app: FastifyInstance, svc: ServiceContext, max: number): Promise<void> {
  const { default: rateLimit } = await import("@fastify/rate-limit");
  const counters = svc.store.counters;
  // Requests whose credentials fail never reach the limit above (the guard answers 401 first): they count per
  // client address here, in the same window, so that guessing keys or secrets is limited as using one is.
  const failures = counters ?? localCounters();
  svc.authFailed = async (req) => {
    const { count, resetAt } = await failures.hit(`auth-failed:address:${req.ip}`, 60_000);
    if (count <= max) return undefined;
    const seconds = Math.max(1, Math.ceil((resetAt - Date.now()) / 1000));
    return new ApiError(entry(svc.catalog, "tooManyRequests"), "", {
      headers: { "retry-after": String(seconds) },
      dev: `This address sent ${max} requests with credentials that failed within a minute; retry in ${seconds} s with valid ones.`,
    });
  };
  await app.register(rateLimit, {
    global: true,
    max,
    timeWindow: 60_000,
    hook: "onRequest",
    // A database out of reach must not fail every request: the store's own 503 tells it where it matters.
    skipOnError: true,
    keyGenerator: (req: FastifyRequest) => (req.caller !== undefined ? `key:${req.caller.id}` : `address:${req.ip}`),
    errorResponseBuilder: (_req: FastifyRequest, context: { after: string; max: number }) =>
      svc.error("tooManyRequests", "", `This caller may send ${context.max} requests a minute; retry in ${context.after}.`),
    ...(counters === undefined ? {} : { store: sharedStore(counters) }),
  });
}

/** Fixed-window counters in this process (SharedCounters' contract), for a store without shared ones; bounded: at most 10 000 keys at once. */
function localCounters(): SharedCounters {
  const windows = new Map<string, { count: number; resetAt: number }>();
  return {
    hit: async (key, windowMs) => {
      const now = Date.now();
      let w = windows.get(key);
      if (w === undefined || w.resetAt <= now) {
        // Full: the ended windows go, and the oldest ones while it is still full.
        if (windows.size >= 10_000) for (const [k, v] of windows) if (v.resetAt <= now || windows.size >= 10_000) windows.delete(k);
        windows.set(key, (w = { count: 0, resetAt: now + windowMs }));
      }
      w.count++;
      return { count: w.count, resetAt: w.resetAt };
    },
  };
}

/** A @fastify/rate-limit store over the database's shared counters: every process of the service counts together. */
function sharedStore(counters: SharedCounters) {
  return class SharedRateStore {
    constructor(_options: unknown) {}
    incr(key: string, callback: (error: Error | null, result?: { current: number; ttl: number }) => void, timeWindow: number): void {
      counters.hit(`rate:${key}`, timeWindow).then(
        ({ count, resetAt }) => callback(null, { current: count, ttl: Math.max(0, resetAt - Date.now()) }),
        (error: Error) => callback(error),
      );
    }
    child(): SharedRateStore {
      return this;
    }
  };
}
