/**
 * Request ids (CONTRACT §10): every answer carries `X-Request-Id`, the client's own when it sent a
 * well-formed one (so that a trace spans the client, a proxy and the service), else one made here. The
 * id is the request's Fastify id too: every log line of the request carries it (`reqId`), and a 500's
 * `dev` names it, so that a user's report leads to the log lines of that request.
 */
import { randomUUID } from "node:crypto";
import type { IncomingMessage } from "node:http";

/** The header a request id travels in, both ways. */
export const REQUEST_ID_HEADER = "x-request-id";

/**
 * What a client's request id may be: 1 to 128 visible characters from a set that cannot break a log line,
 * a header or a JSON string (no spaces, quotes, backslashes or control characters). Longer or other ids
 * are replaced by one made here rather than echoed.
 */
const WELL_FORMED = /^[A-Za-z0-9._:/+=@~-]{1,128}$/;

/**
 * Fastify's `genReqId`: the client's X-Request-Id when it is well-formed (and sent once), else a random UUID.
 * @example requestIdOf({ headers: { "x-request-id": "trace-42" } }) === "trace-42"
 */
export function requestIdOf(req: Pick<IncomingMessage, "headers">): string {
  const sent = req.headers[REQUEST_ID_HEADER];
  return typeof sent === "string" && WELL_FORMED.test(sent) ? sent : randomUUID();
}
