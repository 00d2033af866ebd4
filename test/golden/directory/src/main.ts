// Entry point of Directory API (your code): resourcery created this file once and never overwrites it.
// createService (src/generated/server.ts) builds the service with your hooks and action handlers, from the
// settings in the environment, without listening: add your own routes and plugins to service.app first.
import { createService } from "./generated/server.js";
// import { apiError } from "./generated/errors.js";

// A service that cannot start (a bad setting, a database out of reach or refusing a migration) or cannot listen
// (the port in use, a HOST that is not this machine's, a route of yours that Fastify refuses) says why in one line.
function cannotStart(error: unknown): never {
  console.error(`cannot start: ${error instanceof Error ? error.message : String(error)}`);
  process.exit(1);
}

const service = await createService().catch(cannotStart);

// A route of your own works like a generated one: it sits under the base URL's path, request.caller is the
// authenticated key ({ id, roles }), config.access answers 401/403 ("public": no credentials needed), a thrown
// apiError("<catalog key>", "<property>") or any other error answers the error body, and another method 405.
//
// service.app.get("/reports/summary", { config: { access: ["admin"] } }, async (request) => {
//   if (!request.caller) throw apiError("unauthenticated");
//   return { caller: request.caller.id };
// });
//
// A plugin is registered the same way, e.g. a group of routes of your own:
//
// await service.app.register(async (scope) => {
//   scope.get("/status", { config: { access: "public" } }, async () => ({ ok: true }));
// });
//
// service.store is the store (SQLite by default); createService({ store }) takes any implementation of Store.

await service.listen().catch(cannotStart);
