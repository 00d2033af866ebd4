// Handler of the lookup action (your code): resourcery created this file once and never overwrites it.
import type { HandlerContext } from "../generated/errors.js";
import type { LookupParams, LookupResult } from "../generated/types.js";

/** GET /v2/lookup: Looks a book up by its ISBN. */
export async function lookup(params: LookupParams, ctx: HandlerContext): Promise<LookupResult> {
  ctx.log.debug({ params }, "lookup called");
  // Until this handler is written, the action answers 501 with the error body.
  throw ctx.error("notImplemented", "", "Write the handler of lookup in src/actions/lookup.ts.");
}
