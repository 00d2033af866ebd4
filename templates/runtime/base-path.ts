/**
 * The routes a user adds sit under the base URL's path, like the generated ones: `app.get("/reports")` on a
 * service whose base URL is https://api.example.com/v1 answers at /v1/reports. A route whose path already
 * starts with the base path keeps it, and `config: { outsideBase: true }` keeps a route at its own path
 * (a health check at /health, say).
 */
import type { FastifyInstance } from "fastify";

declare module "fastify" {
  interface FastifyContextConfig {
    /** true: the route stays at its own path instead of sitting under the base URL's path. */
    outsideBase?: boolean | undefined;
  }
}

/**
 * The path of `url` under `basePath` ("/v1"): unchanged when it is under it already.
 * @example underBase("/v1", "/reports") === "/v1/reports"; underBase("/v1", "/v1/reports") === "/v1/reports"
 */
export function underBase(basePath: string, url: string): string {
  if (basePath === "" || url === basePath || url.startsWith(basePath + "/")) return url;
  return basePath + (url.startsWith("/") ? url : `/${url}`);
}

/**
 * From now on, every route registered on `app` or in its plugins is placed under `basePath` (see underBase).
 * Called once the generated routes are registered, so it applies to the user's routes only.
 * @example placeUnderBase(app, "/v1"); app.get("/reports", handler) // GET /v1/reports
 */
export function placeUnderBase(app: FastifyInstance, basePath: string): void {
  if (basePath === "") return;
  app.addHook("onRoute", (route) => {
    if (route.config?.outsideBase === true) return;
    route.url = underBase(basePath, route.url);
    route.path = route.url;
  });
}
