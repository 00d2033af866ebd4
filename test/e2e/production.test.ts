/**
 * CONTRACT §10 over real HTTP, against a package generated from definitions written here, built with tsc and
 * started with `node` (CORS_ORIGINS and RATE_LIMIT set): request ids, health, CORS preflight, ETags with 304
 * and 412, OAuth 2.0 (the token endpoint, the service's tokens, an external issuer whose JWKS server this test
 * runs and whose tokens it signs, the signing key rotated with the keys CLI), OAuth 1.0a signed by an
 * independent implementation (oauth-1.0a) with a key made by `npm run keys -- create --oauth1`, the typed
 * client (client credentials, If-Match, PreconditionFailedError), and the rate limit's 429.
 */
import crypto from "node:crypto";
import fs from "node:fs";
import http from "node:http";
import type { AddressInfo } from "node:net";
import path from "node:path";
import { pathToFileURL } from "node:url";
import OAuth from "oauth-1.0a";
import { exportJWK, generateKeyPair, SignJWT, type JWK } from "jose";
import { Ajv2020 } from "ajv/dist/2020.js";
import formatsPlugin from "ajv-formats";
import { test } from "uvu";
import * as assert from "uvu/assert";
import { run } from "../helpers/package.js";
import { serve, serviceJson, type Served } from "../helpers/served.js";

const BOOK = {
  $schema: "https://json-schema.org/draft/2020-12/schema",
  title: "Book",
  type: "object",
  "x-collection": "books",
  "x-access": { create: ["writer"], update: ["writer"], delete: ["writer"] },
  required: ["title"],
  properties: { title: { type: "string", minLength: 1 }, pages: { type: "integer", minimum: 1 } },
};
const ISSUER = "https://login.example.com/";
const ORIGIN = "https://app.example.com";
const RATE = 60;

let s: Served;
let jwks: http.Server;
let signExternal: (claims: Record<string, unknown>) => Promise<string>;

test.before(async () => {
  const { privateKey, publicKey } = await generateKeyPair("ES256");
  const jwk: JWK = { ...(await exportJWK(publicKey)), kid: "ext-1", alg: "ES256" };
  jwks = http.createServer((_req, res) => res.writeHead(200, { "content-type": "application/json" }).end(JSON.stringify({ keys: [jwk] })));
  await new Promise<void>((r) => jwks.listen(0, "127.0.0.1", r));
  const jwksUri = `http://127.0.0.1:${(jwks.address() as AddressInfo).port}/keys`;
  signExternal = (claims) => {
    const now = Math.floor(Date.now() / 1000);
    return new SignJWT({ iss: ISSUER, aud: "books-api", sub: "person-1", iat: now, exp: now + 120, ...claims }).setProtectedHeader({ alg: "ES256", kid: "ext-1", typ: "JWT" }).sign(privateKey);
  };
  const auth = { schemes: ["apiKey", "oauth2", "oauth1"], oauth2: { issuer: ISSUER, audience: "books-api", jwksUri, rolesClaim: "roles" } };
  s = await serve("production", { "service.json": serviceJson("shelfware", { auth }), "resources/book.json": BOOK }, { roles: ["writer"], env: { CORS_ORIGINS: ORIGIN, RATE_LIMIT: String(RATE) } });
});

test.after(async () => {
  await s?.close();
  await new Promise((r) => jwks?.close(r));
});

/** A key made by the package's own keys CLI, as its user would make it; the running service reads the keys file again within a second. */
async function makeKey(args: readonly string[]): Promise<{ id: string; secret: string; oauth1Secret?: string }> {
  const made = run("npm", ["run", "--silent", "keys", "--", "create", ...args], s.out, { KEYS_FILE: s.keysFile });
  assert.is(made.code, 0, made.output);
  await new Promise((r) => setTimeout(r, 1100));
  return JSON.parse(made.output.trim());
}

async function token(form: Record<string, string>): Promise<{ status: number; body: any }> {
  const res = await fetch(`${s.base}/oauth/token`, { method: "POST", headers: { "content-type": "application/x-www-form-urlencoded" }, body: new URLSearchParams(form) });
  return { status: res.status, body: await res.json() };
}

test("X-Request-Id on every answer, the client's kept; health outside the base path without credentials", async () => {
  const own = await s.call("GET", "/books", undefined, { "x-request-id": "client-trace-1" });
  assert.is(own.headers.get("x-request-id"), "client-trace-1");
  const made = await fetch(`${s.base}/books`);
  assert.is(made.status, 401);
  assert.match(String(made.headers.get("x-request-id")), /^[0-9a-f-]{36}$/);
  const origin = new URL(s.base).origin;
  for (const [url, status] of [["/health/live", "live"], ["/health/ready", "ready"]]) {
    const res = await fetch(origin + url);
    assert.is(res.status, 200);
    assert.equal(await res.json(), { status });
  }
});

test("CORS: a preflight from the allowed origin is answered without credentials; answers expose the ETag", async () => {
  const pre = await fetch(`${s.base}/books`, { method: "OPTIONS", headers: { origin: ORIGIN, "access-control-request-method": "POST", "access-control-request-headers": "authorization,content-type" } });
  assert.is(pre.status, 204);
  assert.is(pre.headers.get("access-control-allow-origin"), ORIGIN);
  assert.is(pre.headers.get("access-control-allow-methods"), "GET, HEAD, POST");
  const get = await s.call("GET", "/books", undefined, { origin: ORIGIN });
  assert.is(get.headers.get("access-control-allow-origin"), ORIGIN);
  assert.match(String(get.headers.get("access-control-expose-headers")), "ETag");
  assert.is((await s.call("GET", "/books", undefined, { origin: "https://other.example" })).headers.get("access-control-allow-origin"), null);
});

test("ETags: 304 for If-None-Match; a stale If-Match is a 412 and writes nothing", async () => {
  const book = await s.call("POST", "/books", { title: "Dune" });
  assert.is(book.status, 201);
  const url = `/books/${book.body.id}`;
  const etag = String((await s.call("GET", url)).headers.get("etag"));
  assert.is(book.headers.get("etag"), etag);
  assert.is((await s.call("GET", url, undefined, { "if-none-match": etag })).status, 304);
  const changed = await s.call("PATCH", url, { pages: 412 }, { "if-match": etag });
  assert.is(changed.status, 200);
  const stale = await s.call("PATCH", url, { pages: 1 }, { "if-match": etag });
  assert.is(stale.status, 412);
  assert.is(stale.body.code, 41200);
  assert.is((await s.call("GET", url)).body.pages, 412);
  assert.is((await s.call("DELETE", url, undefined, { "if-match": etag })).status, 412);
  assert.is((await s.call("DELETE", url, undefined, { "if-match": String(changed.headers.get("etag")) })).status, 204);
});

test("OAuth 2.0: tokens from the token endpoint, narrowed by scope; insufficient_scope; an external issuer's tokens; rotation", async () => {
  const key = await makeKey(["--roles", "writer,reader"]);
  const issued = await token({ grant_type: "client_credentials", client_id: key.id, client_secret: key.secret, scope: "reader" });
  assert.is(issued.status, 200, JSON.stringify(issued.body));
  assert.is(issued.body.token_type, "Bearer");
  assert.is(issued.body.scope, "reader");
  const bearer = { authorization: `Bearer ${issued.body.access_token}` };
  assert.is((await fetch(`${s.base}/books`, { headers: bearer })).status, 200);
  const denied = await fetch(`${s.base}/books`, { method: "POST", headers: { ...bearer, "content-type": "application/json" }, body: JSON.stringify({ title: "No" }) });
  assert.is(denied.status, 403);
  assert.match(String(denied.headers.get("www-authenticate")), /error="insufficient_scope", scope="writer"/);
  const bad = await token({ grant_type: "client_credentials", client_id: key.id, client_secret: "nope" });
  assert.is(bad.status, 401);
  assert.is(bad.body.error, "invalid_client");
  assert.is(bad.body.code, 40102);

  const external = await signExternal({ roles: ["writer"] });
  const created = await fetch(`${s.base}/books`, { method: "POST", headers: { authorization: `Bearer ${external}`, "content-type": "application/json" }, body: JSON.stringify({ title: "External" }) });
  assert.is(created.status, 201, await created.clone().text());
  const expired = await signExternal({ exp: Math.floor(Date.now() / 1000) - 300 });
  const refused = await fetch(`${s.base}/books`, { headers: { authorization: `Bearer ${expired}` } });
  assert.is(refused.status, 401);
  assert.match(String(refused.headers.get("www-authenticate")), 'error="invalid_token"');

  const origin = new URL(s.base).origin;
  const before = (await (await fetch(`${origin}/.well-known/jwks.json`)).json()) as { keys: JWK[] };
  assert.is(before.keys.length, 1);
  const rotated = run("npm", ["run", "--silent", "keys", "--", "rotate-signing-key"], s.out, { KEYS_FILE: s.keysFile });
  assert.is(rotated.code, 0, rotated.output);
  const kid = JSON.parse(rotated.output.trim()).signingKey as string;
  await new Promise((r) => setTimeout(r, 1100)); // the service reads the signing keys file again within a second
  const after = (await (await fetch(`${origin}/.well-known/jwks.json`)).json()) as { keys: JWK[] };
  assert.equal(after.keys.map((k) => k.kid), [kid, before.keys[0]!.kid]);
  assert.is((await fetch(`${s.base}/books`, { headers: bearer })).status, 200, "a token signed before the rotation still works");
  const fresh = await token({ grant_type: "client_credentials", client_id: key.id, client_secret: key.secret });
  const header = JSON.parse(Buffer.from(String(fresh.body.access_token).split(".")[0]!, "base64url").toString());
  assert.is(header.kid, kid, "new tokens are signed with the new key");
});

test("OAuth 1.0a: a request signed by oauth-1.0a with the key's signing secret; its replay is a 401", async () => {
  const key = await makeKey(["--roles", "writer", "--oauth1"]);
  assert.type(key.oauth1Secret, "string");
  const oauth = new OAuth({
    consumer: { key: key.id, secret: key.oauth1Secret! },
    signature_method: "HMAC-SHA256",
    hash_function: (base: string, k: string) => crypto.createHmac("sha256", k).update(base).digest("base64"),
  });
  const url = `${s.base}/books?limit=3`;
  const authorization = oauth.toHeader(oauth.authorize({ url, method: "GET" })).Authorization;
  const ok = await fetch(url, { headers: { authorization } });
  assert.is(ok.status, 200, await ok.clone().text());
  const replay = await fetch(url, { headers: { authorization } });
  assert.is(replay.status, 401);
  assert.match(String(replay.headers.get("www-authenticate")), /OAuth realm=/);
});

test("the typed client: client credentials fetch a token; update sends If-Match and a stale one is a PreconditionFailedError", async () => {
  const key = await makeKey(["--roles", "writer"]);
  const client = await import(pathToFileURL(path.join(s.out, "dist/client/index.js")).href);
  const api = client.createClient({ baseUrl: s.base, auth: { clientCredentials: { id: key.id, secret: key.secret } } });
  const book = await api.books.create({ title: "Typed" });
  const read = await api.books.get(book.id);
  assert.ok(client.etagOf(read));
  await s.call("PATCH", `/books/${book.id}`, { pages: 7 }); // another client's write
  try {
    await api.books.update(book.id, { pages: 8 });
    assert.unreachable("a stale If-Match must fail");
  } catch (error) {
    assert.instance(error, client.PreconditionFailedError);
    assert.is((error as { status: number }).status, 412);
  }
  await api.books.get(book.id);
  const updated = await api.books.update(book.id, { pages: 8 });
  assert.is(updated.pages, 8);
});

test("docs/openapi.json documents the service's own endpoints as they answer over HTTP: health, the JWKS, the metadata, the token endpoint", async () => {
  const doc = JSON.parse(fs.readFileSync(path.join(s.out, "docs/openapi.json"), "utf8"));
  const ajv = new Ajv2020({ strict: false, validateSchema: false });
  type Plugin = (a: Ajv2020) => unknown;
  ((formatsPlugin as unknown as { default?: Plugin }).default ?? (formatsPlugin as unknown as Plugin))(ajv);
  const id = "https://openapi.test/doc.json";
  ajv.addSchema({ $id: id, components: doc.components });
  /** The answer against the documented one: its status documented, its body valid against the documented schema. */
  const check = async (method: string, p: string, res: Response) => {
    const documented = doc.paths[p]?.[method]?.responses?.[String(res.status)];
    assert.ok(documented, `${method.toUpperCase()} ${p} → ${res.status} is documented`);
    if (method === "head") return assert.is(await res.text(), "");
    const schema = JSON.parse(JSON.stringify(documented.content["application/json"].schema).replace(/"\$ref":"#\//g, `"$ref":"${id}#/`));
    const validate = ajv.compile(schema);
    const body = await res.json();
    assert.ok(validate(body), `${method.toUpperCase()} ${p} → ${res.status} ${JSON.stringify(body).slice(0, 200)}: ${JSON.stringify(validate.errors?.[0])}`);
  };
  const origin = new URL(s.base).origin;
  const basePath = new URL(s.base).pathname.replace(/\/+$/, "");
  for (const p of ["/health/live", "/health/ready", "/.well-known/jwks.json", "/.well-known/oauth-authorization-server", `/.well-known/oauth-authorization-server${basePath}`]) {
    // On the origin of the document's base URL (the running service's is another port: BASE_URL).
    assert.equal(doc.paths[p]?.servers?.map((x: { url: string }) => x.url), [new URL(doc.servers[0].url).origin], `${p} is documented on the origin`);
    for (const method of ["get", "head"]) {
      const res = await fetch(origin + p, { method: method.toUpperCase() });
      assert.is(res.status, 200, `${method.toUpperCase()} ${p}`);
      await check(method, p, res);
    }
  }
  // The token endpoint, under the base URL as the document's servers say.
  const key = await makeKey(["--roles", "writer"]);
  const tokenAnswer = (form: Record<string, string>) => fetch(`${s.base}/oauth/token`, { method: "POST", headers: { "content-type": "application/x-www-form-urlencoded" }, body: new URLSearchParams(form) });
  const granted = await tokenAnswer({ grant_type: "client_credentials", client_id: key.id, client_secret: key.secret });
  assert.is(granted.status, 200);
  await check("post", "/oauth/token", granted);
  const refused = await tokenAnswer({ grant_type: "client_credentials", client_id: key.id, client_secret: "wrong" });
  assert.is(refused.status, 401);
  await check("post", "/oauth/token", refused);
});

test("RATE_LIMIT: over it, 429 with Retry-After and the error body; the health checks are not limited", async () => {
  const key = await makeKey(["--roles", "reader"]);
  let status = 0;
  let res: Response | undefined;
  for (let i = 0; i <= RATE && status !== 429; i++) {
    res = await fetch(`${s.base}/books`, { headers: { authorization: `Bearer ${key.secret}` } });
    status = res.status;
  }
  assert.is(status, 429);
  const body = (await res!.json()) as { code: number };
  assert.is(body.code, 42900);
  assert.ok(Number(res!.headers.get("retry-after")) >= 1);
  assert.is((await fetch(`${new URL(s.base).origin}/health/ready`)).status, 200);
});

test.run();
