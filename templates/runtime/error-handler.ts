/**
 * The error body for every failure that reaches Fastify: the service's ApiErrors as they are, Fastify's
 * own failures (body parsing, limits, media types, paths) as catalog errors, anything else a 500 that
 * shows nothing of its cause. A client's mistake is never a 500, and no answer has Fastify's own body.
 */
import type { FastifyError, FastifyReply, FastifyRequest } from "fastify";
import { ApiError, entry } from "./errors.js";
import { negotiate } from "./negotiate.js";
import { sendJson, type ServiceContext } from "./context.js";
import type { StoreBusy, UnstorableValue } from "./store.js";
import { IN_CURRENT_NAMES } from "./versions.js";
import { REQUEST_ID_HEADER } from "./request-id.js";

/** The largest announced body over the limit that is read and discarded so that its 413 arrives. */
const DRAIN_BYTES = 16 * 1024 * 1024;

/** Errors of a request stream the client broke off (or that a timeout cut): nobody is left to answer. */
const ABORTED = new Set(["ECONNRESET", "ECONNABORTED", "ERR_STREAM_PREMATURE_CLOSE"]);

/**
 * Fastify's error handler (and `frameworkErrors`) for the service: negotiates JSON or the vendor error
 * type, sets the error's headers, logs 5xx with the request id. Should building the answer itself fail,
 * it answers a fixed 500 body rather than let Fastify answer with its own.
 */
export function errorHandlerOf(svc: ServiceContext): (error: FastifyError | ApiError, req: FastifyRequest, reply: FastifyReply) => FastifyReply | Promise<FastifyReply> {
  const errorType = svc.spec.mediaTypes.find((m) => m.kind === "error");
  const offers = errorType ? ["application/json", errorType.name, errorType.alias] : ["application/json"];
  const internal = svc.error("internal").body;
  return function sendError(error, req, reply) {
    // With a rate limit, every 401 (failed credentials, wherever they were refused: the access guard, the token
    // endpoint, a route of the user's) counts against the client address; past the limit it is answered 429.
    const countFailure = svc.authFailed;
    if (countFailure !== undefined && error instanceof ApiError && error.status === 401) {
      return countFailure(req).then(
        (over) => answer(over ?? error, req, reply),
        () => answer(error, req, reply),
      );
    }
    return answer(error, req, reply);
  };
  function answer(error: FastifyError | ApiError, req: FastifyRequest, reply: FastifyReply): FastifyReply {
    try {
      const api = error instanceof ApiError ? error : fromFastifyError(svc, error);
      if (api.status >= 500) svc.logOf(req).error({ err: error }, "request failed");
      // A 500 shows nothing of its cause, but names the request, whose log lines tell it.
      const body = api.status === 500 ? { ...api.body, dev: `${api.body.dev} Request id: ${req.id}.` } : undefined;
      const served = req.served;
      const chosen = served === undefined ? negotiate(req.headers.accept, offers, svc.spec) : negotiate(req.headers.accept, served.offers(offers), { vendor: svc.spec.vendor, version: served.version });
      for (const [name, value] of Object.entries(api.headers)) reply.header(name, value);
      reply.header(REQUEST_ID_HEADER, req.id);
      if ((error as FastifyError).code === "FST_ERR_CTP_BODY_TOO_LARGE" && Number(req.headers["content-length"]) <= DRAIN_BYTES) {
        // Fastify closes the connection of a body announced over the limit; a client still sending it then
        // reads a reset, not the 413. Kept open, Node reads and discards the rest (never parsed, and cut at
        // REQUEST_TIMEOUT_MS) and the answer arrives; a body announced larger still closes the connection.
        reply.removeHeader("connection");
      }
      return sendJson(reply, api.status, chosen.ok ? chosen.type : "application/json", body ?? (served === undefined ? api.body : inVersionNames(req, api)));
    } catch (failure) {
      svc.logOf(req).error({ err: failure }, "error answer failed");
      return reply.code(500).header("content-type", "application/json; charset=utf-8").header(REQUEST_ID_HEADER, req.id).send(JSON.stringify({ ...internal, dev: `${internal.dev} Request id: ${req.id}.` }));
    }
  }
}

/**
 * Fastify's own failures as catalog errors, told apart by their FST_ERR codes: a 4xx of Fastify is a client's
 * mistake (400 when none of the specific ones fits); the store's StoreBusy is a 503 with Retry-After;
 * anything else, whatever its class or statusCode, is a 500.
 */
export function fromFastifyError(svc: ServiceContext, error: FastifyError): ApiError {
  switch (error.code) {
    case "FST_ERR_CTP_INVALID_MEDIA_TYPE":
    case "FST_ERR_ROUTE_MISSING_CONTENT_TYPE":
      return svc.error("unsupportedMediaType", "", "Send the body as JSON: Content-Type: application/json, application/merge-patch+json or the resource's vendor type.");
    case "FST_ERR_CTP_BODY_TOO_LARGE":
      return svc.error("payloadTooLarge", "", `The body exceeds the limit of ${svc.spec.bodyLimit} bytes.`);
    case "FST_ERR_CTP_EMPTY_JSON_BODY":
      return svc.error("malformedJson", "", "The body is empty; send a JSON object.");
    case "FST_ERR_CTP_INVALID_JSON_BODY":
      return svc.error("malformedJson", "", "The body is not valid JSON, or it has a __proto__ or constructor.prototype key, which is never accepted.");
    case "FST_ERR_CTP_INVALID_CONTENT_LENGTH":
      return svc.error("malformedRequest", "", "The Content-Length header does not match the body.");
    case "RSC_STORE_BUSY": {
      const seconds = (error as unknown as StoreBusy).retryAfterSeconds;
      const dev = `The database stayed locked by another writer; nothing was written. Retry in ${seconds} s.`;
      return new ApiError(entry(svc.catalog, "storeBusy"), "", { headers: { "retry-after": String(seconds) }, dev });
    }
    case "RSC_UNSTORABLE_VALUE":
      return svc.error("invalidProperty", (error as unknown as UnstorableValue).property, "The database (PostgreSQL) cannot store the character U+0000 nor an unpaired surrogate (\\uD800–\\uDFFF alone) in text; send the value without it.");
    case "RSC_LINK_VIOLATION":
      return svc.error("conflict", "", "A link of this write names an instance that was deleted meanwhile; nothing was written. Read the instances again and retry.");
    case "FST_ERR_VALIDATION":
      return fromValidation(svc, error);
    case "FST_ERR_BAD_URL":
    case "FST_ERR_MAX_PARAM_LENGTH":
      return svc.error("notFound", "", "The id in the path is not one this service gives out (it is too long or not validly percent-encoded).");
  }
  if (error.code !== undefined && ABORTED.has(error.code)) return svc.error("malformedRequest", "", "The request was broken off before its body arrived.");
  if (error.code?.startsWith("FST_ERR_") && typeof error.statusCode === "number" && error.statusCode >= 400 && error.statusCode < 500) {
    return svc.error("malformedRequest", "", "The request could not be read.");
  }
  return svc.error("internal");
}

/** One failure of a route's own `schema` (ajv's error shape, as Fastify passes it on). */
interface SchemaFailure {
  readonly keyword: string;
  readonly instancePath?: string;
  readonly params?: { readonly missingProperty?: string; readonly additionalProperty?: string };
  readonly message?: string;
}

/**
 * A route's own schema refused the request (a route the user added with `schema`): a body is answered as the
 * generated routes answer a body (missingProperty, unknownProperty, invalidProperty), a query, path or header
 * as invalidParameter, each with `property` set to what failed.
 */
function fromValidation(svc: ServiceContext, error: FastifyError): ApiError {
  const failure = (error.validation?.[0] ?? { keyword: "" }) as SchemaFailure;
  const path = (failure.instancePath ?? "").split("/").slice(1).map((p) => p.replace(/~1/g, "/").replace(/~0/g, "~"));
  const named = failure.params?.missingProperty ?? failure.params?.additionalProperty;
  const property = [...path, ...(named === undefined ? [] : [named])].join(".");
  const what = property === "" ? "The request" : `"${property}"`;
  const dev =
    failure.keyword === "required" ? `${what} is required.` :
    failure.keyword === "additionalProperties" ? unknownInBody(error.validation as readonly SchemaFailure[], failure, path) :
    `${what} ${failure.message ?? "does not match the route's schema"}.`;
  if (error.validationContext !== "body") return svc.error("invalidParameter", property, dev);
  if (failure.keyword === "required") return svc.error("missingProperty", property, dev);
  if (failure.keyword === "additionalProperties") return svc.error("unknownProperty", property, dev);
  return svc.error("invalidProperty", property, dev);
}

/**
 * The dev text of an unknown body property: every one the route's validator reported beside the first in the
 * same object (all of them when the user's ajv has allErrors), sorted, as the generated routes answer.
 */
function unknownInBody(failures: readonly SchemaFailure[], first: SchemaFailure, path: readonly string[]): string {
  const names = failures
    .filter((f) => f.keyword === "additionalProperties" && f.instancePath === first.instancePath && f.params?.additionalProperty !== undefined)
    .map((f) => `"${[...path, f.params!.additionalProperty].join(".")}"`);
  const listed = [...new Set(names)].sort();
  if (listed.length <= 1) return `${listed[0] ?? "The request"} is not a property of this body.`;
  return `${listed.slice(0, -1).join(", ")} and ${listed.at(-1)} are not properties of this body.`;
}

/**
 * The error body of a request in another version than the current one: a property named after the body was
 * converted up (a unique value taken, a link that names nothing) under the version's name for it.
 */
function inVersionNames(req: FastifyRequest, api: ApiError): ApiError["body"] {
  const collection = req.routeOptions?.config?.collection;
  const property = api.body.property;
  if (collection === undefined || property === "" || !IN_CURRENT_NAMES.has(req)) return api.body;
  const dot = property.indexOf(".");
  const head = dot < 0 ? property : property.slice(0, dot);
  const wire = req.served!.wireName(collection, head);
  return wire === undefined || wire === head ? api.body : { ...api.body, property: wire + (dot < 0 ? "" : property.slice(dot)) };
}
