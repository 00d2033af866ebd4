/**
 * OAuth 2.0 (CONTRACT §10): the service as a resource server — JWT access tokens verified with jose (an
 * algorithm allow-list, iss, aud, exp/nbf with 30 s of leeway, typ), its own (signed by signing-keys.ts)
 * and an external issuer's (auth.oauth2: keys from its JWKS URL, cached, fetched again at most every 30 s
 * for a key id not yet seen) — and as the authorization server of the client-credentials grant (RFC 6749
 * §4.4): `POST <base>/oauth/token` gives an API key a short-lived token whose `scope` narrows the key's
 * roles; `/.well-known/jwks.json` publishes the public keys and `/.well-known/oauth-authorization-server`
 * the metadata (RFC 8414). A verified token is remembered until it expires, so that a request with a token
 * seen before costs a lookup, not a signature check; a token of the service's own stops working within a
 * second of its key's revocation, and carries no role its key has lost.
 */
import { createRemoteJWKSet, decodeJwt, decodeProtectedHeader, jwtVerify, SignJWT, type JWTPayload, type JWTVerifyGetKey } from "jose";
import { randomUUID } from "node:crypto";
import type { FastifyInstance, FastifyReply, FastifyRequest } from "fastify";
import type { Caller } from "./authenticate.js";
import { ApiError, entry, type Catalog } from "./errors.js";
import { challenges, parseAuthorization, type KeyRing } from "./keys.js";
import { SIGNING_ALGORITHM, type SigningKeys } from "./signing-keys.js";
import type { OAuth2Spec, ServiceSpec } from "./spec.js";

/** Seconds of clock difference allowed on exp, nbf and iat. */
const LEEWAY_SECONDS = 30;
/** Default lifetime of the service's own tokens (seconds). */
export const DEFAULT_TOKEN_LIFETIME = 900;
/** Most verified tokens remembered at once. */
const REMEMBERED = 10_000;
/** The asymmetric algorithms accepted from an external issuer when auth.oauth2.algorithms does not narrow them (never HMAC, never none). */
const ASYMMETRIC = ["RS256", "RS384", "RS512", "PS256", "PS384", "PS512", "ES256", "ES384", "ES512", "EdDSA"];
/** The typ values an access token may carry (RFC 9068 at+jwt; many issuers write JWT or nothing). */
const ACCESS_TOKEN_TYPES = new Set(["at+jwt", "application/at+jwt", "jwt"]);
/** A compact JWS: three base64url parts. */
const COMPACT_JWS = /^[A-Za-z0-9_-]+\.[A-Za-z0-9_-]+\.[A-Za-z0-9_-]*$/;

/** Why a token was refused: a 401 with error="invalid_token" (or a 503 when the issuer's keys cannot be fetched). */
export class TokenRefused extends Error {
  constructor(
    readonly dev: string,
    readonly unavailable = false,
  ) {
    super(dev);
  }
}

/** True when a Bearer token is a JWT (an API key's secret never has dots). */
export function isJwt(token: string): boolean {
  return COMPACT_JWS.test(token);
}

/** The access tokens a service accepts and issues. */
export class OAuth2 {
  private readonly remembered = new Map<string, { readonly caller: Caller; readonly expires: number; readonly own: boolean }>();
  private readonly external: { readonly issuer: string; readonly audience: readonly string[]; readonly keys: JWTVerifyGetKey; readonly algorithms: readonly string[]; readonly rolesClaim: string } | undefined;
  /** The service's own issuer identifier and audience: its base URL. */
  readonly issuer: string;
  readonly lifetime: number;
  readonly issues: boolean;

  constructor(
    spec: ServiceSpec,
    baseUrl: string,
    private readonly keys: KeyRing,
    private readonly signing: SigningKeys,
    private readonly now: () => number = Date.now,
  ) {
    const settings: OAuth2Spec = spec.auth.oauth2 ?? {};
    this.issuer = baseUrl;
    this.lifetime = settings.tokenLifetime ?? DEFAULT_TOKEN_LIFETIME;
    this.issues = settings.tokenEndpoint !== false;
    this.external =
      settings.issuer === undefined || settings.jwksUri === undefined
        ? undefined
        : {
            issuer: settings.issuer,
            audience: settings.audience ?? [],
            keys: createRemoteJWKSet(new URL(settings.jwksUri), { cooldownDuration: 30_000, cacheMaxAge: 600_000, timeoutDuration: 5_000 }),
            algorithms: settings.algorithms ?? ASYMMETRIC,
            rolesClaim: settings.rolesClaim ?? "scope",
          };
  }

  /**
   * The caller a JWT access token names: at once for a token verified before (still unexpired, its key still
   * there), else once its signature and claims are checked. Throws TokenRefused.
   */
  verify(token: string): Caller | Promise<Caller> {
    const seen = this.remembered.get(token);
    if (seen !== undefined) {
      if (seen.expires > this.now()) return seen.own ? this.stillValid(seen.caller) : seen.caller;
      this.remembered.delete(token);
    }
    return this.verifyNew(token);
  }

  /** A token of the service's own, checked against its key as it is now: revoked, it is refused; roles it lost are dropped. */
  private stillValid(caller: Caller): Caller {
    const key = this.keys.get(caller.id);
    if (key === undefined) throw new TokenRefused("The API key this token was issued to has been revoked; get a token with a valid key.");
    return caller.roles.every((r) => key.roles.includes(r)) ? caller : { id: caller.id, roles: caller.roles.filter((r) => key.roles.includes(r)) };
  }

  private async verifyNew(token: string): Promise<Caller> {
    let claims: JWTPayload;
    let header: { typ?: string; kid?: string; alg?: string };
    try {
      claims = decodeJwt(token);
      header = decodeProtectedHeader(token);
    } catch {
      throw new TokenRefused("The Bearer token is not a well-formed JWT.");
    }
    const own = claims.iss === this.issuer;
    if (!own && (this.external === undefined || claims.iss !== this.external.issuer)) {
      throw new TokenRefused(`The token's issuer ${JSON.stringify(String(claims.iss ?? ""))} is not one this service trusts.`);
    }
    if (header.typ !== undefined && !ACCESS_TOKEN_TYPES.has(header.typ.toLowerCase())) throw new TokenRefused(`A token of type ${JSON.stringify(header.typ)} is not an access token.`);
    let payload: JWTPayload;
    try {
      const verified = own
        ? await jwtVerify(token, async (h) => (await this.signing.byKid(h.kid ?? ""))?.publicKey ?? failNoKey(), { issuer: this.issuer, audience: this.issuer, algorithms: [SIGNING_ALGORITHM], clockTolerance: LEEWAY_SECONDS, typ: "at+jwt", currentDate: new Date(this.now()) })
        : await jwtVerify(token, this.external!.keys, { issuer: this.external!.issuer, audience: [...this.external!.audience], algorithms: [...this.external!.algorithms], clockTolerance: LEEWAY_SECONDS, currentDate: new Date(this.now()) });
      payload = verified.payload;
    } catch (error) {
      throw refusalOf(error);
    }
    if (typeof payload.exp !== "number") throw new TokenRefused("The token has no exp claim: access tokens must expire.");
    const subject = typeof payload.sub === "string" && payload.sub !== "" ? payload.sub : typeof payload.client_id === "string" ? payload.client_id : undefined;
    if (subject === undefined) throw new TokenRefused("The token names no subject (sub or client_id).");
    const roles = own ? rolesOf(payload, "scope") : rolesOf(payload, this.external!.rolesClaim);
    let caller: Caller = { id: subject, roles };
    if (own) caller = this.stillValid(caller);
    if (this.remembered.size >= REMEMBERED) this.remembered.delete(this.remembered.keys().next().value!);
    this.remembered.set(token, { caller, expires: (payload.exp + LEEWAY_SECONDS) * 1000, own });
    return caller;
  }

  /**
   * A token of the service's own for API key `keyId` with `scope` (a subset of its roles; all of them when
   * absent): the token endpoint's answer (RFC 6749 §5.1).
   */
  async issue(keyId: string, roles: readonly string[]): Promise<{ access_token: string; token_type: "Bearer"; expires_in: number; scope: string }> {
    const key = await this.signing.current();
    const now = Math.floor(this.now() / 1000);
    const scope = roles.join(" ");
    const accessToken = await new SignJWT({ scope, client_id: keyId })
      .setProtectedHeader({ alg: SIGNING_ALGORITHM, kid: key.kid, typ: "at+jwt" })
      .setIssuer(this.issuer)
      .setAudience(this.issuer)
      .setSubject(keyId)
      .setIssuedAt(now)
      .setExpirationTime(now + this.lifetime)
      .setJti(randomUUID())
      .sign(key.privateKey);
    return { access_token: accessToken, token_type: "Bearer", expires_in: this.lifetime, scope };
  }

  jwks(): Promise<{ keys: object[] }> {
    return this.signing.jwks();
  }
}

function failNoKey(): never {
  throw new TokenRefused("The token was signed with a key this service does not have (rotated away long ago, or never its own).");
}

/** The roles a token carries in `claim` (a dotted path): a space-separated string or an array of strings. */
function rolesOf(payload: JWTPayload, claim: string): string[] {
  let value: unknown = payload;
  for (const part of claim.split(".")) value = value !== null && typeof value === "object" ? (value as Record<string, unknown>)[part] : undefined;
  if (typeof value === "string") return value.split(" ").filter((r) => r !== "");
  if (Array.isArray(value)) return value.filter((r): r is string => typeof r === "string");
  return [];
}

/** A jose failure as the dev text of the 401 (or a 503 when the issuer's keys could not be fetched). */
function refusalOf(error: unknown): TokenRefused {
  if (error instanceof TokenRefused) return error;
  const code = (error as { code?: string }).code;
  const claim = (error as { claim?: string }).claim;
  switch (code) {
    case "ERR_JWT_EXPIRED":
      return new TokenRefused("The access token has expired; get a new one.");
    case "ERR_JWT_CLAIM_VALIDATION_FAILED":
      return new TokenRefused(claim === "nbf" ? "The access token is not valid yet (nbf)." : claim === "aud" ? "The access token is for another audience." : claim === "iss" ? "The access token is from another issuer." : claim === "typ" ? "The token is not an access token (typ)." : `The access token's ${claim ?? "claims"} claim is not acceptable.`);
    case "ERR_JOSE_ALG_NOT_ALLOWED":
      return new TokenRefused("The token is signed with an algorithm this service does not accept.");
    case "ERR_JWKS_NO_MATCHING_KEY":
    case "ERR_JWKS_MULTIPLE_MATCHING_KEYS":
      return new TokenRefused("The token names a key the issuer does not publish.");
    case "ERR_JWS_SIGNATURE_VERIFICATION_FAILED":
      return new TokenRefused("The token's signature is not valid.");
    case "ERR_JWKS_TIMEOUT":
    case "ERR_JWKS_INVALID":
      return new TokenRefused("The issuer's keys could not be fetched; retry shortly.", true);
  }
  if (error instanceof TypeError || (error as { name?: string }).name === "TypeError" || code === undefined) {
    return new TokenRefused("The issuer's keys could not be fetched; retry shortly.", true);
  }
  return new TokenRefused("The access token is not valid.");
}

/** An RFC 6749 §5.2 error with the service's error body beside it. */
function tokenError(catalog: Catalog, key: "invalidTokenRequest" | "invalidClient", error: string, description: string, headers: Record<string, string> = {}): ApiError {
  return new ApiError(entry(catalog, key), "", { dev: description, headers: { "cache-control": "no-store", pragma: "no-cache", ...headers }, fields: { error, error_description: description } });
}

/**
 * The token endpoint (`POST <prefix>/oauth/token`, a form body, when `oauth.issues`), the JWKS and the
 * authorization server metadata (both outside the base path, public, cacheable for five minutes).
 */
export function registerOAuth2(app: FastifyInstance, oauth: OAuth2, keys: KeyRing, spec: ServiceSpec, catalog: Catalog, prefix: string): void {
  const origin = new URL(oauth.issuer + "/").origin;
  const open = { config: { access: "public" as const, outsideBase: true } };
  app.get("/.well-known/jwks.json", open, async (_req, reply) => reply.header("cache-control", "public, max-age=300").send(await oauth.jwks()));
  const metadata = {
    issuer: oauth.issuer,
    ...(oauth.issues ? { token_endpoint: `${oauth.issuer}/oauth/token`, jwks_uri: `${origin}/.well-known/jwks.json` } : {}),
    grant_types_supported: oauth.issues ? ["client_credentials"] : [],
    token_endpoint_auth_methods_supported: ["client_secret_basic", "client_secret_post"],
    response_types_supported: [],
    scopes_supported: [...new Set(spec.resources.flatMap((r) => Object.values(r.access).flatMap((roles) => roles ?? [])).concat(spec.actions.flatMap((a) => a.roles)))].sort(),
  };
  const basePath = new URL(oauth.issuer + "/").pathname.replace(/\/+$/, "");
  for (const url of new Set(["/.well-known/oauth-authorization-server", `/.well-known/oauth-authorization-server${basePath}`])) {
    app.get(url, open, async (_req, reply) => reply.header("cache-control", "public, max-age=300").send(metadata));
  }
  if (!oauth.issues) return;
  void app.register(async function tokenEndpoint(scope) {
    scope.addContentTypeParser("application/x-www-form-urlencoded", { parseAs: "string", bodyLimit: 16_384 }, (_req, body, done) => done(null, body));
    scope.post(`${prefix}/oauth/token`, { config: { access: "public" } }, async (req, reply) => answerToken(req, reply, oauth, keys, spec, catalog));
  });
}

async function answerToken(req: FastifyRequest, reply: FastifyReply, oauth: OAuth2, keys: KeyRing, spec: ServiceSpec, catalog: Catalog): Promise<FastifyReply> {
  const type = String(req.headers["content-type"] ?? "").split(";")[0]!.trim().toLowerCase();
  if (type !== "application/x-www-form-urlencoded" || typeof req.body !== "string") {
    throw tokenError(catalog, "invalidTokenRequest", "invalid_request", "Send the token request as a form: Content-Type application/x-www-form-urlencoded.");
  }
  const form = new URLSearchParams(req.body);
  const one = (name: string): string | undefined => {
    const values = form.getAll(name);
    if (values.length > 1) throw tokenError(catalog, "invalidTokenRequest", "invalid_request", `The parameter ${name} is given more than once.`);
    return values[0];
  };
  const grant = one("grant_type");
  const scopeText = one("scope");
  const formId = one("client_id");
  const formSecret = one("client_secret");
  const credentials = parseAuthorization(req.headers.authorization);
  // The Basic challenge as every 401 of the service writes it (keys.ts quotes the realm for a header).
  const basicChallenge = challenges(["basic"], spec.auth.realm)[0]!;
  let id: string;
  let secret: string;
  if (credentials.scheme === "basic") {
    if (formSecret !== undefined) throw tokenError(catalog, "invalidTokenRequest", "invalid_request", "Authenticate the client one way: HTTP Basic or client_id and client_secret in the form, not both.");
    if (req.protocol !== "https") throw tokenError(catalog, "invalidClient", "invalid_client", "Basic credentials are accepted over TLS only; use https, or send client_id and client_secret in the form.", { "www-authenticate": basicChallenge });
    // RFC 6749 §2.3.1: the id and secret are form-encoded before they are put in the Basic credentials.
    id = decodeForm(credentials.id);
    secret = decodeForm(credentials.secret);
  } else if (credentials.scheme === "none") {
    if (formId === undefined || formSecret === undefined) throw tokenError(catalog, "invalidClient", "invalid_client", "The client is not authenticated: send the API key's id and secret as client_id and client_secret, or as HTTP Basic credentials over TLS.");
    id = formId;
    secret = formSecret;
  } else {
    throw tokenError(catalog, "invalidClient", "invalid_client", "The token endpoint authenticates clients with HTTP Basic or client_id and client_secret in the form.", { "www-authenticate": basicChallenge });
  }
  const key = keys.verifyBasic(id, secret);
  if (key === undefined) {
    throw tokenError(catalog, "invalidClient", "invalid_client", "The client id and secret are not a valid API key.", credentials.scheme === "basic" ? { "www-authenticate": basicChallenge } : {});
  }
  if (grant === undefined) throw tokenError(catalog, "invalidTokenRequest", "invalid_request", "The form lacks grant_type; send grant_type=client_credentials.");
  if (grant !== "client_credentials") throw tokenError(catalog, "invalidTokenRequest", "unsupported_grant_type", `The grant type ${JSON.stringify(grant)} is not supported: only client_credentials.`);
  // No scope (or an empty one): the key's roles (RFC 6749 §3.3 lets the server choose a default).
  const named = scopeText === undefined ? [] : scopeText.split(" ").filter((s) => s !== "");
  const asked = named.length === 0 ? undefined : [...new Set(named)];
  const unknown = asked?.filter((s) => !key.roles.includes(s)) ?? [];
  if (unknown.length > 0) throw tokenError(catalog, "invalidTokenRequest", "invalid_scope", `The scope asks for ${unknown.map((s) => JSON.stringify(s)).join(", ")}, which the key does not hold; its roles are: ${key.roles.join(" ") || "(none)"}.`);
  const issued = await oauth.issue(key.id, asked ?? key.roles);
  return reply.code(200).header("cache-control", "no-store").header("pragma", "no-cache").send(issued);
}

/** application/x-www-form-urlencoded decoding (the form of a client id or secret in Basic credentials, RFC 6749 §2.3.1). */
function decodeForm(text: string): string {
  try {
    return decodeURIComponent(text.replace(/\+/g, " "));
  } catch {
    return text;
  }
}
