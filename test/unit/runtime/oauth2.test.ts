/**
 * OAuth 2.0 on the library app of the runtime's unit tests: the token endpoint of the client-credentials
 * grant and every failure class of RFC 6749 §5.2, the service's own tokens (scope narrowing roles, revocation,
 * rotation of the signing key, the JWKS and the metadata), and an external issuer's tokens through a JWKS
 * server of the test's own (node:http), signed by the test with jose: iss, aud, exp, nbf, alg, typ, kid.
 */
import http from "node:http";
import type { AddressInfo } from "node:net";
import { test } from "uvu";
import * as assert from "uvu/assert";
import { exportJWK, generateKeyPair, SignJWT, jwtVerify, createLocalJWKSet, type JWK } from "jose";
import type { LightMyRequestResponse } from "fastify";
import { SigningKeys } from "../../../templates/runtime/signing-keys.js";
import type { ServiceSpec } from "../../../templates/runtime/spec.js";
import { assertError, BASE, call, createAuthor, json, P, REALM, spec as librarySpec, withApp, type Harness } from "../../helpers/library-app.js";

const ISSUER = "https://login.example.com/";
const AUDIENCE = "library-api";

/** A JWKS server of the test's own: one ES256 key (kid "k1"), and how often it was asked. */
async function issuerServer(): Promise<{ url: string; sign: (claims: Record<string, unknown>, header?: Record<string, unknown>) => Promise<string>; fetches: () => number; close: () => Promise<void> }> {
  const { privateKey, publicKey } = await generateKeyPair("ES256", { extractable: true });
  const jwk: JWK = { ...(await exportJWK(publicKey)), kid: "k1", alg: "ES256", use: "sig" };
  let fetches = 0;
  const server = http.createServer((_req, res) => {
    fetches++;
    res.writeHead(200, { "content-type": "application/json" }).end(JSON.stringify({ keys: [jwk] }));
  });
  await new Promise<void>((r) => server.listen(0, "127.0.0.1", r));
  const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/jwks`;
  const sign = (claims: Record<string, unknown>, header: Record<string, unknown> = {}) => {
    const now = Math.floor(Date.now() / 1000);
    return new SignJWT({ iss: ISSUER, aud: AUDIENCE, sub: "user-7", iat: now, exp: now + 300, scope: "librarian", ...claims })
      .setProtectedHeader({ alg: "ES256", kid: "k1", typ: "at+jwt", ...header })
      .sign(privateKey);
  };
  return { url, sign, fetches: () => fetches, close: () => new Promise((r) => server.close(() => r())) };
}

function withOAuth(schemes: ServiceSpec["auth"]["schemes"], oauth2: ServiceSpec["auth"]["oauth2"] | undefined, fn: (h: Harness, signing: SigningKeys) => Promise<void>): Promise<void> {
  const spec: ServiceSpec = { ...librarySpec, auth: { schemes, realm: REALM, ...(oauth2 === undefined ? {} : { oauth2 }) } };
  const signing = SigningKeys.memory();
  return withApp((h) => fn(h, signing), { spec, signingKeys: signing });
}

function token(h: Harness, form: Record<string, string>, headers: Record<string, string> = {}): Promise<LightMyRequestResponse> {
  return h.app.inject({ method: "POST", url: `${P}/oauth/token`, headers: { "content-type": "application/x-www-form-urlencoded", ...headers }, payload: new URLSearchParams(form).toString() });
}

function oauthError(res: LightMyRequestResponse, status: number, error: string, key: string): void {
  assertErrorLoose(res, key);
  assert.is(res.statusCode, status, res.body);
  assert.is(json(res).error, error, res.body);
  assert.type(json(res).error_description, "string");
  assert.is(res.headers["cache-control"], "no-store");
}

/** The catalog error body plus the RFC 6749 members. */
function assertErrorLoose(res: LightMyRequestResponse, key: string): void {
  const { error: _e, error_description: _d, ...rest } = json(res);
  assertError({ ...res, body: JSON.stringify(rest), json: () => rest } as LightMyRequestResponse, key);
}

test("client credentials: a token for the key's roles, narrowed by scope; it authenticates until its key is revoked", () =>
  withOAuth(["apiKey", "oauth2"], undefined, async (h) => {
    const res = await token(h, { grant_type: "client_credentials", client_id: h.librarian.id, client_secret: h.librarian.secret });
    assert.is(res.statusCode, 200, res.body);
    assert.is(res.headers["cache-control"], "no-store");
    const issued = json(res);
    assert.equal(Object.keys(issued).sort(), ["access_token", "expires_in", "scope", "token_type"]);
    assert.is(issued.token_type, "Bearer");
    assert.is(issued.expires_in, 900);
    assert.is(issued.scope, "librarian");
    const bearer = { authorization: `Bearer ${issued.access_token}` };
    const shelf = await h.app.inject({ method: "POST", url: `${P}/shelves`, headers: { ...bearer, "content-type": "application/json" }, payload: JSON.stringify({ label: "A" }) });
    assert.is(shelf.statusCode, 201, "the librarian role of the key, through the token");

    const narrowed = json(await token(h, { grant_type: "client_credentials", client_id: h.librarian.id, client_secret: h.librarian.secret, scope: "" }));
    assert.is(narrowed.scope, "librarian", "an empty scope is the key's roles");
    const none = json(await token(h, { grant_type: "client_credentials", client_id: h.reader.id, client_secret: h.reader.secret }));
    const refused = await h.app.inject({ method: "POST", url: `${P}/shelves`, headers: { authorization: `Bearer ${none.access_token}`, "content-type": "application/json" }, payload: JSON.stringify({ label: "B" }) });
    assertError(refused, "forbidden");
    assert.match(String(refused.headers["www-authenticate"]), /^Bearer realm="Library API", error="insufficient_scope", scope="librarian admin"$/);

    // The verified token is remembered; a revoked key's token is refused at once all the same.
    assert.is((await h.app.inject({ method: "GET", url: `${P}/authors`, headers: bearer })).statusCode, 200);
    h.keys.revoke(h.librarian.id);
    const revoked = await h.app.inject({ method: "GET", url: `${P}/authors`, headers: bearer });
    assertError(revoked, "unauthenticated");
    assert.match(String(revoked.headers["www-authenticate"]), 'error="invalid_token"');
    assert.match(json(revoked).dev, "revoked");
  }));

test("the token endpoint's failures, each per RFC 6749 §5.2 with the error body beside", () =>
  withOAuth(["apiKey", "oauth2"], undefined, async (h) => {
    const id = h.librarian.id;
    const secret = h.librarian.secret;
    oauthError(await token(h, { grant_type: "client_credentials", client_id: id, client_secret: "wrong" }), 401, "invalid_client", "invalidClient");
    oauthError(await token(h, { grant_type: "client_credentials" }), 401, "invalid_client", "invalidClient");
    oauthError(await token(h, { grant_type: "password", client_id: id, client_secret: secret }), 400, "unsupported_grant_type", "invalidTokenRequest");
    oauthError(await token(h, { client_id: id, client_secret: secret }), 400, "invalid_request", "invalidTokenRequest");
    oauthError(await token(h, { grant_type: "client_credentials", client_id: id, client_secret: secret, scope: "librarian admin" }), 400, "invalid_scope", "invalidTokenRequest");
    const twice = await h.app.inject({ method: "POST", url: `${P}/oauth/token`, headers: { "content-type": "application/x-www-form-urlencoded" }, payload: `grant_type=client_credentials&grant_type=client_credentials&client_id=${id}&client_secret=${secret}` });
    oauthError(twice, 400, "invalid_request", "invalidTokenRequest");
    const asJson = await h.app.inject({ method: "POST", url: `${P}/oauth/token`, headers: { "content-type": "application/json" }, payload: JSON.stringify({ grant_type: "client_credentials", client_id: id, client_secret: secret }) });
    oauthError(asJson, 400, "invalid_request", "invalidTokenRequest");
    const basic = `Basic ${Buffer.from(`${id}:${secret}`).toString("base64")}`;
    const overHttp = await token(h, { grant_type: "client_credentials" }, { authorization: basic });
    oauthError(overHttp, 401, "invalid_client", "invalidClient");
    assert.match(String(overHttp.headers["www-authenticate"]), /^Basic realm=/);
    assert.not.match(JSON.stringify(json(overHttp)), secret, "no secret in any answer");
  }));

test("the JWKS publishes the signing key; a rotation keeps the old tokens valid and signs new ones with the new key; the metadata names the endpoints", () =>
  withOAuth(["apiKey", "oauth2"], undefined, async (h, signing) => {
    const before = json(await token(h, { grant_type: "client_credentials", client_id: h.reader.id, client_secret: h.reader.secret })).access_token as string;
    const jwks = json(await h.app.inject({ method: "GET", url: "/.well-known/jwks.json" }));
    assert.is(jwks.keys.length, 1);
    assert.is(jwks.keys[0].kty, "EC");
    assert.is(jwks.keys[0].d, undefined, "never the private part");
    const verified = await jwtVerify(before, createLocalJWKSet(jwks as { keys: JWK[] }), { issuer: BASE, audience: BASE, typ: "at+jwt" });
    assert.is(verified.payload.sub, h.reader.id);
    const kid = await signing.rotate();
    const after = json(await token(h, { grant_type: "client_credentials", client_id: h.reader.id, client_secret: h.reader.secret })).access_token as string;
    const rotated = json(await h.app.inject({ method: "GET", url: "/.well-known/jwks.json" }));
    assert.equal(rotated.keys.map((k: JWK) => k.kid), [kid, jwks.keys[0].kid]);
    for (const t of [before, after]) assert.is((await h.app.inject({ method: "GET", url: `${P}/authors`, headers: { authorization: `Bearer ${t}` } })).statusCode, 200);
    const meta = json(await h.app.inject({ method: "GET", url: "/.well-known/oauth-authorization-server" }));
    assert.is(meta.issuer, BASE);
    assert.is(meta.token_endpoint, `${BASE}/oauth/token`);
    assert.is(meta.jwks_uri, "https://api.example.com/.well-known/jwks.json");
    assert.equal(meta.grant_types_supported, ["client_credentials"]);
    assert.equal(json(await h.app.inject({ method: "GET", url: "/.well-known/oauth-authorization-server/v1" })), meta);
  }));

test("an external issuer's tokens through its JWKS: roles from the configured claim; every failure a 401 invalid_token; no error= without credentials", async () => {
  const issuer = await issuerServer();
  try {
    await withOAuth(["apiKey", "oauth2"], { issuer: ISSUER, audience: [AUDIENCE], jwksUri: issuer.url, rolesClaim: "realm_access.roles" }, async (h) => {
      const ok = await issuer.sign({ scope: undefined, realm_access: { roles: ["librarian"] } });
      const shelf = await h.app.inject({ method: "POST", url: `${P}/shelves`, headers: { authorization: `Bearer ${ok}`, "content-type": "application/json" }, payload: JSON.stringify({ label: "Ext" }) });
      assert.is(shelf.statusCode, 201, shelf.body);
      assert.is((await h.app.inject({ method: "GET", url: `${P}/authors`, headers: { authorization: `Bearer ${ok}` } })).statusCode, 200);
      assert.is(issuer.fetches(), 1, "the JWKS is fetched once and cached");
      const now = Math.floor(Date.now() / 1000);
      const cases: [string, Promise<string>][] = [
        ["expired", issuer.sign({ exp: now - 120 })],
        ["not yet valid", issuer.sign({ nbf: now + 600 })],
        ["another audience", issuer.sign({ aud: "other-api" })],
        ["another issuer", issuer.sign({ iss: "https://evil.example.com/" })],
        ["an unknown kid", issuer.sign({}, { kid: "k9" })],
        ["an id token", issuer.sign({}, { typ: "id+jwt" })],
        ["a tampered payload", issuer.sign({}).then((t) => { const [a, b, c] = t.split("."); const body = JSON.parse(Buffer.from(b!, "base64url").toString()); body.sub = "admin"; return `${a}.${Buffer.from(JSON.stringify(body)).toString("base64url")}.${c}`; })],
        ["alg none", Promise.resolve(`${Buffer.from(JSON.stringify({ alg: "none", typ: "JWT" })).toString("base64url")}.${Buffer.from(JSON.stringify({ iss: ISSUER, aud: AUDIENCE, sub: "x", exp: now + 60 })).toString("base64url")}.`)],
      ];
      for (const [what, made] of cases) {
        const res = await h.app.inject({ method: "GET", url: `${P}/authors`, headers: { authorization: `Bearer ${await made}` } });
        assertError(res, "unauthenticated");
        assert.match(String(res.headers["www-authenticate"]), 'error="invalid_token"', what);
      }
      const bare = await call(h, "GET", "/authors", { key: null });
      assert.not.match(String(bare.headers["www-authenticate"]), "error=", "no error= when no credentials were sent");
      assert.ok(issuer.fetches() <= 2, `an unknown kid fetches the JWKS again at most once per cooldown (${issuer.fetches()})`);
      const lacking = await h.app.inject({ method: "POST", url: `${P}/shelves`, headers: { authorization: `Bearer ${await issuer.sign({ realm_access: { roles: [] } })}`, "content-type": "application/json" }, payload: "{}" });
      assertError(lacking, "forbidden");
      assert.match(String(lacking.headers["www-authenticate"]), 'error="insufficient_scope"');
      // The service's own tokens still work beside the external issuer's.
      const own = json(await token(h, { grant_type: "client_credentials", client_id: h.reader.id, client_secret: h.reader.secret })).access_token;
      assert.is((await h.app.inject({ method: "GET", url: `${P}/authors`, headers: { authorization: `Bearer ${own}` } })).statusCode, 200);
      const author = await createAuthor(h, "Ext Author");
      assert.ok(author.id);
    });
  } finally {
    await issuer.close();
  }
});

test("tokenEndpoint: false issues no tokens; a service without oauth2 refuses JWTs as key secrets", async () => {
  const issuer = await issuerServer();
  try {
    await withOAuth(["oauth2"], { issuer: ISSUER, audience: [AUDIENCE], jwksUri: issuer.url, tokenEndpoint: false }, async (h) => {
      const res = await token(h, { grant_type: "client_credentials", client_id: h.reader.id, client_secret: h.reader.secret });
      assert.is(res.statusCode, 404);
      assert.is((await h.app.inject({ method: "GET", url: `${P}/authors`, headers: { authorization: `Bearer ${await issuer.sign({})}` } })).statusCode, 200);
    });
    await withOAuth(["apiKey"], undefined, async (h) => {
      const res = await h.app.inject({ method: "GET", url: `${P}/authors`, headers: { authorization: `Bearer ${await issuer.sign({})}` } });
      assertError(res, "unauthenticated");
      assert.is((await token(h, { grant_type: "client_credentials", client_id: h.reader.id, client_secret: h.reader.secret })).statusCode, 404);
    });
  } finally {
    await issuer.close();
  }
});

test.run();
