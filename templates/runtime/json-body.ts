/**
 * Reading request bodies: JSON only, under every JSON media type the service reads (plain, merge patch,
 * both vendor shapes), within the body limit; no Content-Encoding (415); nested at most MAX_BODY_DEPTH
 * levels (400), so that nothing downstream (merge patch, validation, JSON.stringify of what was stored)
 * meets data deeper than it can handle; `__proto__` and `constructor.prototype` refused.
 */
import type { FastifyInstance, FastifyRequest } from "fastify";
import type { ServiceContext } from "./context.js";
import { MAX_BODY_DEPTH } from "./conventions.js";

/** Deepest nesting of objects and arrays a request body may have. */
export { MAX_BODY_DEPTH } from "./conventions.js";

/** Every JSON media type this service reads: plain, merge patch, and both vendor shapes. */
const JSON_TYPES = /^application\/(json|merge-patch\+json|vnd\.[a-z0-9.-]+\+json|[a-z0-9-]+\.v\d+\.[a-z0-9-]+\.json)(\s*;.*)?$/i;

/** Methods whose routes read a body: for any other, an empty JSON body is no body at all. */
const BODY_METHODS = new Set(["POST", "PUT", "PATCH"]);

/**
 * Whether objects and arrays in the JSON text `text` nest deeper than `max` (brackets inside strings do not
 * count); one pass over the text, stopping at the first level too deep.
 * @example nestingExceeds('{"a":[[1]]}', 2) === true
 */
export function nestingExceeds(text: string, max: number): boolean {
  let depth = 0;
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (c === 0x22) {
      // a string: skip to its closing quote, stepping over escapes
      for (i++; i < text.length; i++) {
        const d = text.charCodeAt(i);
        if (d === 0x5c) i++;
        else if (d === 0x22) break;
      }
    } else if (c === 0x7b || c === 0x5b) {
      if (++depth > max) return true;
    } else if (c === 0x7d || c === 0x5d) {
      depth--;
    }
  }
  return false;
}

/** Replaces Fastify's body parsers by the one JSON parser of the service. */
export function registerJsonBody(app: FastifyInstance, svc: ServiceContext): void {
  // Only JSON is read: Fastify's text/plain parser would hand a handler a string instead of a 415.
  app.removeAllContentTypeParsers();
  const parseJson = app.getDefaultJsonParser("error", "error");
  app.addContentTypeParser(JSON_TYPES, { parseAs: "string", bodyLimit: svc.spec.bodyLimit }, (req: FastifyRequest, body: string | Buffer, done) => {
    const encoding = req.headers["content-encoding"];
    const text = body as string;
    if (encoding !== undefined && !/^\s*(identity)?\s*$/i.test(encoding)) {
      done(svc.error("unsupportedEncoding", "", `This service reads bodies without Content-Encoding; "${encoding.slice(0, 40)}" is not supported.`), undefined);
    } else if (text === "" && !BODY_METHODS.has(req.method)) {
      done(null, undefined); // a DELETE that says Content-Type: application/json and sends nothing
    } else if (nestingExceeds(text, MAX_BODY_DEPTH)) {
      done(svc.error("bodyTooDeep", "", `Objects and arrays in the body nest more than ${MAX_BODY_DEPTH} levels deep.`), undefined);
    } else {
      parseJson(req, text, done);
    }
  });
}
