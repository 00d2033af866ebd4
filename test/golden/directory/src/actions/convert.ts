// Handler of the convert action (your code): resourcery created this file once and never overwrites it.
import type { HandlerContext } from "../generated/errors.js";
import type { ConvertParams, ConvertResult } from "../generated/types.js";

/** GET /v1/convert: Converts an amount from one currency to another. */
export async function convert(params: ConvertParams, ctx: HandlerContext): Promise<ConvertResult> {
  ctx.log.debug({ params }, "convert called");
  // Until this handler is written, the action answers 501 with the error body.
  throw ctx.error("notImplemented", "", "Write the handler of convert in src/actions/convert.ts.");
}
