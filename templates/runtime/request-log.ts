/**
 * What the request log says of a request: Fastify's usual fields, with the URL's query redacted. Only the
 * parameters the service reads (paging, fields, expand, the actions' parameters) keep their values: a
 * credential sent in the URL (`?access_token=…`, `?api_key=…`) never reaches the log.
 */
import type { FastifyRequest } from "fastify";
import type { ServiceSpec } from "./spec.js";

/** Names that look like credentials: their values are redacted even where the service reads them. */
const CREDENTIAL = /token|secret|passw|pwd|key|auth|session|signature|credential|cookie/i;

/** The query parameters whose values a log line may show. */
export function loggedParameters(spec: ServiceSpec): ReadonlySet<string> {
  const names = ["offset", "limit", "fields", "expand"];
  for (const action of spec.actions) names.push(...Object.keys((action.query as { properties?: object }).properties ?? {}));
  return new Set(names.filter((n) => !CREDENTIAL.test(n)));
}

/**
 * `url` with the value of every query parameter outside `shown` replaced by "[redacted]".
 * @example redactUrl("/v1/books?limit=5&access_token=s3cr3t", new Set(["limit"])) === "/v1/books?limit=5&access_token=[redacted]"
 */
export function redactUrl(url: string, shown: ReadonlySet<string>): string {
  const q = url.indexOf("?");
  if (q < 0) return url;
  const parts = url.slice(q + 1).split("&");
  for (let i = 0; i < parts.length; i++) {
    const part = parts[i]!;
    if (part === "") continue;
    const eq = part.indexOf("=");
    const raw = eq < 0 ? part : part.slice(0, eq);
    let name = raw;
    try {
      name = decodeURIComponent(raw.replace(/\+/g, " "));
    } catch {
      /* undecodable: not a name the service reads */
    }
    // A bare part ("?s3cr3t") could be the credential itself.
    if (!shown.has(name)) parts[i] = eq < 0 ? "[redacted]" : `${raw}=[redacted]`;
  }
  return `${url.slice(0, q + 1)}${parts.join("&")}`;
}

/**
 * Fastify's `req` log serializer with the URL redacted.
 * @example logger.child({}, { serializers: { req: requestSerializer(loggedParameters(spec)) } })
 */
export function requestSerializer(shown: ReadonlySet<string>): (req: FastifyRequest) => Record<string, unknown> {
  return (req) => ({
    method: req.method,
    url: redactUrl(req.url, shown),
    host: req.host,
    remoteAddress: req.ip,
    remotePort: req.socket?.remotePort,
  });
}
