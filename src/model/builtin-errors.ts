/**
 * The built-in conditions every generated service answers, with their fixed codes. Codes 40000-59999
 * are reserved for them; service.json `errors` add service-specific codes outside that range.
 */
import { DEFAULT_EXPAND_LIMIT, MAX_BODY_DEPTH } from "./conventions.js";

export interface BuiltinError {
  readonly code: number;
  readonly status: number;
  readonly key: string;
  readonly title: string;
  readonly message: string;
  readonly dev: string;
}

export const RESERVED_CODES = { min: 40000, max: 59999 } as const;

export const BUILTIN_ERRORS: readonly BuiltinError[] = [
  { code: 40000, status: 400, key: "malformedJson", title: "Malformed JSON", message: "The request body is not valid JSON.", dev: "The body could not be parsed as JSON. Check quoting, commas and brackets, and that Content-Type matches the body." },
  { code: 40001, status: 400, key: "missingProperty", title: "Missing property", message: "A required property is missing.", dev: "The body lacks a property the schema requires. Add the property named in `property`." },
  { code: 40002, status: 400, key: "unknownProperty", title: "Unknown property", message: "The request has a property this resource does not have.", dev: "The body has a property the schema does not declare. Remove it or correct its spelling; unknown properties are never dropped silently." },
  { code: 40003, status: 400, key: "invalidProperty", title: "Invalid property value", message: "A property has a value that is not allowed.", dev: "The value of the property named in `property` does not match its schema (type, format, range or enum). Values are never coerced: send numbers as numbers." },
  { code: 40004, status: 400, key: "readOnlyProperty", title: "Read-only property", message: "A property set by the server was sent in the request.", dev: "id, meta, createdAt, modifiedAt, the owner and inverse links are set by the server. Remove the property named in `property` from the body." },
  { code: 40005, status: 400, key: "invalidLink", title: "Invalid link", message: "A link does not name an existing resource.", dev: "A link is written as { \"meta\": { \"href\": \"<absolute href of an existing instance>\" } }. Check the href in `property`." },
  { code: 40006, status: 400, key: "unknownField", title: "Unknown field", message: "The fields parameter names a field this resource does not have.", dev: "Use field names of the resource, with name(subfield) for fields of a link." },
  { code: 40007, status: 400, key: "unknownExpand", title: "Unknown expansion", message: "The expand parameter names something that is not a link.", dev: "Only links can be expanded; use their property names, with name(sub) to nest." },
  { code: 40008, status: 400, key: "invalidPaging", title: "Invalid paging", message: "offset or limit is not allowed.", dev: "offset is an integer >= 0 and limit an integer from 1 to the documented maximum." },
  { code: 40009, status: 400, key: "invalidParameter", title: "Invalid parameter", message: "A query parameter is missing or has a value that is not allowed.", dev: "Check the parameter named in `property` against the action's documented parameters." },
  { code: 40010, status: 400, key: "expandTooLarge", title: "Expansion too large", message: "The expand or fields parameter would inline too many instances.", dev: `A response inlines at most the documented number of instances (EXPAND_LIMIT, ${DEFAULT_EXPAND_LIMIT} by default), and an expanded collection link inlines one page. Ask for less: fewer or shallower expansions, a smaller limit, or follow the links in requests of their own.` },
  { code: 40011, status: 400, key: "malformedRequest", title: "Malformed request", message: "The request is not valid HTTP.", dev: "The request line or a header could not be read: a byte not allowed in a header, a method the server does not know, conflicting Content-Length and Transfer-Encoding, or a broken chunk. Check the client or proxy that sent it." },
  { code: 40012, status: 400, key: "bodyTooDeep", title: "Body nested too deeply", message: "The request body is nested too deeply.", dev: `Objects and arrays in a request body nest at most ${MAX_BODY_DEPTH} levels. Flatten the data.` },
  { code: 40013, status: 400, key: "invalidTokenRequest", title: "Invalid token request", message: "The token request is not valid.", dev: "POST <base>/oauth/token takes a form (application/x-www-form-urlencoded) with grant_type=client_credentials, the key's id and secret (HTTP Basic over TLS, or client_id and client_secret in the form) and an optional scope: a space-separated subset of the key's roles. `error` names the OAuth 2.0 error (RFC 6749 §5.2)." },
  { code: 40100, status: 401, key: "unauthenticated", title: "Unauthenticated", message: "Valid credentials are required.", dev: "Send an API key: Authorization: Bearer <secret>, or Basic base64(<key id>:<secret>) over TLS." },
  { code: 40101, status: 401, key: "basicNeedsTls", title: "Basic authentication needs TLS", message: "Basic credentials are accepted over TLS only.", dev: "The request sent Basic credentials over plain HTTP. Use https, or send the secret as a Bearer token. Rotate the key if this connection was not trusted." },
  { code: 40102, status: 401, key: "invalidClient", title: "Invalid client", message: "The client credentials are not valid.", dev: "The token endpoint authenticates the client with an API key's id and secret: check both, or create a key with `npm run keys -- create`." },
  { code: 40300, status: 403, key: "forbidden", title: "Forbidden", message: "These credentials do not allow this request.", dev: "The key is valid but lacks the role or ownership this resource needs. Use a key with the required role." },
  { code: 40400, status: 404, key: "notFound", title: "Not found", message: "There is no such resource.", dev: "Check the id in the path; the instance may have been deleted." },
  { code: 40401, status: 404, key: "routeNotFound", title: "No such route", message: "There is no route at this path.", dev: "Check the path against the API reference; routes sit under the base URL's path." },
  { code: 40500, status: 405, key: "methodNotAllowed", title: "Method not allowed", message: "This route does not answer this method.", dev: "The Allow header lists the methods this route answers." },
  { code: 40600, status: 406, key: "notAcceptable", title: "Not acceptable", message: "No representation matches the Accept header.", dev: "Accept application/json or the vendor media type of the resource, e.g. application/vnd.<vendor>.v<N>.<resource>+json." },
  { code: 40601, status: 406, key: "unknownVersion", title: "Unknown version", message: "The requested API version is not served.", dev: "The Accept header names a version this service does not serve. Use the current version." },
  { code: 40800, status: 408, key: "requestTimeout", title: "Request timeout", message: "The request took too long to arrive.", dev: "The headers must arrive within the headers timeout and the whole request within the request timeout (HEADERS_TIMEOUT_MS, REQUEST_TIMEOUT_MS: 10 and 30 seconds by default). Send the request without pauses." },
  { code: 40900, status: 409, key: "conflict", title: "Conflict", message: "A resource with this value already exists.", dev: "The property named in `property` must be unique in the collection. Choose another value, or update the existing instance." },
  { code: 40901, status: 409, key: "stillLinked", title: "Still linked", message: "Other resources link to this one.", dev: "Instances of the collection named in `property` (`<collection>.<field>`) link to this one through that field, and a link never points at nothing. Delete those instances or change their link first, then delete this one." },
  { code: 41200, status: 412, key: "preconditionFailed", title: "Precondition failed", message: "The instance has changed since it was read.", dev: "If-Match names an ETag the instance no longer has (or If-None-Match one it has): nothing was written. GET the instance again, reapply the change and send it with the new ETag." },
  { code: 41300, status: 413, key: "payloadTooLarge", title: "Payload too large", message: "The request body is too large.", dev: "Send a smaller body; the limit is documented in the API reference." },
  { code: 41500, status: 415, key: "unsupportedMediaType", title: "Unsupported media type", message: "The request body must be JSON.", dev: "Send Content-Type: application/json (or the resource's vendor type, or application/merge-patch+json for PATCH)." },
  { code: 41501, status: 415, key: "unsupportedEncoding", title: "Unsupported content encoding", message: "The request body's Content-Encoding is not supported.", dev: "Send the body uncompressed: no Content-Encoding header, or Content-Encoding: identity." },
  { code: 42900, status: 429, key: "tooManyRequests", title: "Too many requests", message: "Too many requests; retry later.", dev: "The caller sent more requests than the service allows per minute (per key, or per client address without credentials). Retry after the seconds in Retry-After." },
  { code: 43100, status: 431, key: "headersTooLarge", title: "Request headers too large", message: "The request's headers are too large.", dev: "The request line and headers together exceed 16 KiB. Send fewer or shorter headers, or a shorter URL." },
  { code: 50000, status: 500, key: "internal", title: "Internal error", message: "Something went wrong on our side.", dev: "The server failed unexpectedly. Retry later; if it persists, report the request id (X-Request-Id) it names." },
  { code: 50100, status: 501, key: "notImplemented", title: "Not implemented", message: "This action is not implemented yet.", dev: "The service defines this action but its handler has not been written." },
  { code: 50300, status: 503, key: "storeBusy", title: "Service busy", message: "The service is busy; retry shortly.", dev: "The database stayed locked by another writer for longer than the service waits (DATABASE_BUSY_TIMEOUT_MS). Nothing was written; retry after the number of seconds in Retry-After." },
  { code: 50301, status: 503, key: "notReady", title: "Not ready", message: "The service cannot serve requests now.", dev: "The service's store does not answer. Retry shortly; an orchestrator keeps traffic away until /health/ready answers 200." },
];
