/**
 * Stateless authentication (A1, A3, A6) and authorization on the loaded resource (A2): every request
 * carries its credentials; Basic only over TLS, decided from the socket; 401 with a challenge per
 * enabled scheme; 403 for missing roles or ownership.
 */
import type { FastifyRequest } from "fastify";
import { ApiError, entry, type Catalog } from "./errors.js";
import { challenges, parseAuthorization, type KeyRing } from "./keys.js";
import { isJwt, TokenRefused, type OAuth2 } from "./oauth2.js";
import { isOAuth1, verifyOAuth1, type NonceStore } from "./oauth1.js";
import type { AccessAction, ResourceSpec, ServiceSpec } from "./spec.js";
import type { StoredRecord } from "./store.js";

/** Who is calling: the API key's id (or an access token's subject) and roles. */
export interface Caller {
  readonly id: string;
  readonly roles: readonly string[];
  /** "bearer" when the credentials were a Bearer token (an API key's secret or an access token): a 403 then challenges with insufficient_scope. */
  readonly scheme?: "bearer" | "basic" | "oauth1";
}

/** Which credentials a service's schemes accept, worked out once per spec rather than on every request. */
const accepted = new WeakMap<ServiceSpec, { readonly bearer: boolean; readonly basic: boolean }>();

function acceptedBy(spec: ServiceSpec): { readonly bearer: boolean; readonly basic: boolean } {
  let found = accepted.get(spec);
  if (found === undefined) {
    const schemes = spec.auth.schemes;
    found = {
      bearer: schemes.some((s) => s === "bearer" || s === "apiKey" || s === "oauth2"),
      basic: schemes.includes("basic") || schemes.includes("apiKey"),
    };
    accepted.set(spec, found);
  }
  return found;
}

/** A challenge per enabled scheme, built only when a 401 is answered; the Bearer one says why a token was refused. */
function challengeHeaders(spec: ServiceSpec, bearerError?: "invalid_token"): Record<string, string[]> {
  return { "www-authenticate": challenges(spec.auth.schemes, spec.auth.realm, bearerError) };
}

/** The 401 of a failed authentication. */
function unauthenticated(spec: ServiceSpec, catalog: Catalog, dev?: string, bearerError?: "invalid_token"): ApiError {
  const headers = challengeHeaders(spec, bearerError);
  return new ApiError(entry(catalog, "unauthenticated"), "", dev === undefined ? { headers } : { headers, dev });
}

/**
 * Checks credentials and returns the caller; throws a 401 ApiError with challenges otherwise. Basic needs
 * TLS: the request's socket, or a trusted proxy's X-Forwarded-Proto (Fastify's request.protocol, TRUST_PROXY).
 */
export function authenticate(req: Pick<FastifyRequest, "headers" | "protocol" | "method" | "originalUrl">, spec: ServiceSpec, keys: KeyRing, catalog: Catalog, oauth?: OAuth2, oauth1?: OAuth1Settings): Caller | Promise<Caller> {
  const credentials = parseAuthorization(req.headers.authorization);
  switch (credentials.scheme) {
    case "none":
      throw unauthenticated(spec, catalog);
    case "bearer": {
      if (!acceptedBy(spec).bearer) throw unauthenticated(spec, catalog, "This service does not accept Bearer credentials.");
      if (oauth !== undefined && isJwt(credentials.token)) return byToken(oauth, credentials.token, spec, catalog);
      const key = keys.verifySecret(credentials.token);
      if (!key) throw unauthenticated(spec, catalog, "The Bearer token is not a valid key secret. Check it, or create a key with `npm run keys -- create`.", "invalid_token");
      return { id: key.id, roles: key.roles, scheme: "bearer" };
    }
    case "basic": {
      if (!acceptedBy(spec).basic) throw unauthenticated(spec, catalog, "This service does not accept Basic credentials.");
      if (req.protocol !== "https") {
        throw new ApiError(entry(catalog, "basicNeedsTls"), "", { headers: challengeHeaders(spec) });
      }
      const key = keys.verifyBasic(credentials.id, credentials.secret);
      if (!key) throw unauthenticated(spec, catalog, "The Basic credentials are not a valid key id and secret.");
      return { id: key.id, roles: key.roles, scheme: "basic" };
    }
    case "other":
      if (oauth1 !== undefined && isOAuth1(req.headers.authorization)) return byOAuth1(req, oauth1, spec, keys, catalog);
      throw unauthenticated(spec, catalog, "The Authorization header is malformed or uses an unsupported scheme.");
    default:
      throw unauthenticated(
        spec,
        catalog,
        /,\s*[!#$%&'*+.^_`|~0-9a-z-]+\s/i.test(String(req.headers.authorization))
          ? "The request has more than one Authorization header; send exactly one."
          : "The Authorization header is malformed or uses an unsupported scheme.",
      );
  }
}

/** What OAuth 1.0a verification needs: the origin clients sign their URLs with (the base URL's), and the nonces seen. */
export interface OAuth1Settings {
  readonly origin: string;
  readonly nonces: NonceStore;
}

/** The caller of a request signed with OAuth 1.0a (the key id is the consumer key); a refusal is a 401 saying why. */
async function byOAuth1(req: Pick<FastifyRequest, "headers" | "method" | "originalUrl">, settings: OAuth1Settings, spec: ServiceSpec, keys: KeyRing, catalog: Catalog): Promise<Caller> {
  const outcome = await verifyOAuth1({ method: req.method, url: settings.origin + req.originalUrl, authorization: String(req.headers.authorization) }, (id) => keys.oauth1Secret(id), { nonces: settings.nonces });
  if (!outcome.ok) {
    if (outcome.reason === "busy") throw new ApiError(entry(catalog, "tooManyRequests"), "", { dev: outcome.dev, headers: { "retry-after": "5" } });
    // An unknown key and a bad signature read alike: the answer does not tell which key ids exist.
    const path = req.originalUrl.split("?")[0];
    const mismatch = `The signature does not match the request: sign the RFC 5849 §3.4 base string of ${req.method} ${settings.origin}${path} with its query and oauth_* parameters, keyed with the key's OAuth 1.0a signing secret (oauth1Secret, from \`npm run keys -- create --oauth1\`) and "&".`;
    throw unauthenticated(spec, catalog, outcome.reason === "unknownKey" || outcome.reason === "badSignature" ? mismatch : outcome.dev);
  }
  const key = keys.get(outcome.consumerKey);
  if (key === undefined) throw unauthenticated(spec, catalog, "The signature is not valid for this consumer key and secret.");
  return { id: key.id, roles: key.roles, scheme: "oauth1" };
}

/** The caller an access token names; its refusal as a 401 invalid_token (a 503 when the issuer's keys are out of reach). */
function byToken(oauth: OAuth2, token: string, spec: ServiceSpec, catalog: Catalog): Caller | Promise<Caller> {
  const refused = (error: unknown): never => {
    if (!(error instanceof TokenRefused)) throw error;
    if (error.unavailable) throw new ApiError(entry(catalog, "notReady"), "", { dev: error.dev, headers: { "retry-after": "5" } });
    throw unauthenticated(spec, catalog, error.dev, "invalid_token");
  };
  let caller: Caller | Promise<Caller>;
  try {
    caller = oauth.verify(token);
  } catch (error) {
    return refused(error);
  }
  return caller instanceof Promise ? caller.then((c) => ({ ...c, scheme: "bearer" as const }), refused) : { id: caller.id, roles: caller.roles, scheme: "bearer" };
}

/**
 * The 403 of a caller without the roles a route needs: to a Bearer token, with RFC 6750's insufficient_scope
 * challenge naming the roles (any one of them will do).
 */
export function insufficientScope(spec: ServiceSpec, catalog: Catalog, caller: Caller, roles: readonly string[], dev: string): ApiError {
  if (caller.scheme !== "bearer" || roles.length === 0) return new ApiError(entry(catalog, "forbidden"), "", { dev });
  const challenge = challenges(["bearer"], spec.auth.realm)[0]!;
  const scope = roles.join(" ").replace(/[\\"]/g, "");
  return new ApiError(entry(catalog, "forbidden"), "", { dev, headers: { "www-authenticate": `${challenge}, error="insufficient_scope", scope="${scope}"` } });
}

/** True when the caller holds one of the resource's admin roles. */
export function isAdmin(caller: Caller, resource: ResourceSpec): boolean {
  const admin = resource.access.admin ?? [];
  return caller.roles.some((r) => admin.includes(r));
}

/**
 * The roles a route of `resource` needs for `action`, as its `config.access`: the x-access list and the admin
 * roles; undefined when x-access leaves the action to every key.
 * @example rolesFor({ access: { create: ["librarian"], admin: ["admin"] } }, "create") → ["librarian", "admin"]
 */
export function rolesFor(resource: Pick<ResourceSpec, "access">, action: AccessAction): readonly string[] | undefined {
  const allowed = resource.access[action];
  return allowed === undefined ? undefined : [...allowed, ...(resource.access.admin ?? [])];
}

/** Throws 403 unless the caller may perform `action` on the collection (x-access; admin roles pass). */
export function requireRole(caller: Caller, resource: ResourceSpec, action: AccessAction, catalog: Catalog): void {
  const allowed = resource.access[action];
  if (allowed === undefined || isAdmin(caller, resource)) return;
  if (!caller.roles.some((r) => allowed.includes(r))) {
    throw new ApiError(entry(catalog, "forbidden"), "", {
      dev: `${action} on ${resource.collection} needs one of the roles: ${allowed.join(", ")}.`,
    });
  }
}

/** True when the caller may see this instance: no owner, the owner, or an admin (A2: decided on the content). */
export function canSee(caller: Caller, resource: ResourceSpec, record: StoredRecord): boolean {
  return resource.owner === undefined || record.owner === caller.id || isAdmin(caller, resource);
}

/** Throws 403 unless the caller owns the loaded instance (or is an admin). */
export function requireOwner(caller: Caller, resource: ResourceSpec, record: StoredRecord, catalog: Catalog): void {
  if (!canSee(caller, resource, record)) {
    throw new ApiError(entry(catalog, "forbidden"), "", { dev: `This ${resource.name} belongs to another key.` });
  }
}
