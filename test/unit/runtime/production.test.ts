/**
 * What a service needs in production (CONTRACT §10), through inject() on the library app of the runtime's
 * unit tests: request ids on every answer (a 500's dev names it), health endpoints, CORS with preflight,
 * rate limits with the error body, ETags with 304 and 412, and Basic behind a trusted TLS-terminating proxy.
 */
import { test } from "uvu";
import * as assert from "uvu/assert";
import { ApiError } from "../../../templates/runtime/errors.js";
import { noneMatch, preconditionsHold } from "../../../templates/runtime/etag.js";
import { corsOriginsFrom } from "../../../templates/runtime/production.js";
import { settingsFrom } from "../../../templates/runtime/server.js";
import type { Store } from "../../../templates/runtime/store.js";
import { assertError, call, createAuthor, createBook, json, P, spec, withApp } from "../../helpers/library-app.js";

test("every answer carries X-Request-Id: the client's when well-formed, else a UUID; a 500's dev names it", () =>
  withApp(
    async (h) => {
      const own = await call(h, "GET", "/authors", { headers: { "x-request-id": "trace-42.a:b" } });
      assert.is(own.headers["x-request-id"], "trace-42.a:b");
      const made = await call(h, "GET", "/authors", { headers: { "x-request-id": "has space\"quote" } });
      assert.match(String(made.headers["x-request-id"]), /^[0-9a-f-]{36}$/);
      const none = await call(h, "GET", "/nowhere", { key: null });
      assert.is(none.statusCode, 404);
      assert.match(String(none.headers["x-request-id"]), /^[0-9a-f-]{36}$/);
      const unauthenticated = await call(h, "GET", "/authors", { key: null, headers: { "x-request-id": "r-401" } });
      assert.is(unauthenticated.statusCode, 401);
      assert.is(unauthenticated.headers["x-request-id"], "r-401");
      const failed = await call(h, "POST", "/authors", { body: { name: "Boom" }, headers: { "x-request-id": "r-500" } });
      assertError(failed, "internal");
      assert.is(failed.headers["x-request-id"], "r-500");
      assert.match(json(failed).dev, "Request id: r-500.");
    },
    { hooks: { authors: { beforeCreate: () => { throw new Error("database exploded: secret detail"); } } } },
  ));

test("/health/live and /health/ready answer without credentials outside the base path; ready is 503 when the store fails", async () => {
  await withApp(async (h) => {
    for (const [url, status] of [["/health/live", "live"], ["/health/ready", "ready"]] as const) {
      const res = await h.app.inject({ method: "GET", url });
      assert.is(res.statusCode, 200, res.body);
      assert.equal(json(res), { status });
      assert.is(res.headers["cache-control"], "no-store");
    }
    assert.is((await h.app.inject({ method: "HEAD", url: "/health/ready" })).statusCode, 200);
    assert.is((await h.app.inject({ method: "GET", url: `${P}/health/live` })).statusCode, 404, "not under the base path");
    const store = h.store as Store & { ping?: () => Promise<void> };
    const ping = store.ping;
    store.ping = async () => {
      throw new Error("disk gone");
    };
    try {
      const res = await h.app.inject({ method: "GET", url: "/health/ready" });
      assertError(res, "notReady");
      assert.match(json(res).dev, "disk gone");
      assert.is((await h.app.inject({ method: "GET", url: "/health/live" })).statusCode, 200, "live while the store is down");
    } finally {
      store.ping = ping;
    }
  });
});

test("CORS_ORIGINS: allowed origins get the CORS headers with credentials, preflights 204 with the path's methods before any credentials; others nothing", () =>
  withApp(
    async (h) => {
      const origin = "https://app.example.com";
      const pre = await h.app.inject({ method: "OPTIONS", url: `${P}/authors`, headers: { origin, "access-control-request-method": "POST", "access-control-request-headers": "authorization, content-type" } });
      assert.is(pre.statusCode, 204, pre.body);
      assert.is(pre.headers["access-control-allow-origin"], origin);
      assert.is(pre.headers["access-control-allow-credentials"], "true");
      assert.is(pre.headers["access-control-allow-methods"], "GET, HEAD, POST");
      assert.match(String(pre.headers["access-control-allow-headers"]), "If-Match");
      assert.match(String(pre.headers.vary), "Origin");
      const get = await call(h, "GET", "/authors", { headers: { origin } });
      assert.is(get.statusCode, 200);
      assert.is(get.headers["access-control-allow-origin"], origin);
      assert.match(String(get.headers["access-control-expose-headers"]), "ETag");
      assert.match(String(get.headers.vary), /Origin.*Authorization|Authorization.*Origin/);
      const denied = await call(h, "GET", "/authors", { headers: { origin: "https://evil.example" } });
      assert.is(denied.headers["access-control-allow-origin"], undefined);
      const deniedPre = await h.app.inject({ method: "OPTIONS", url: `${P}/authors`, headers: { origin: "https://evil.example", "access-control-request-method": "GET" } });
      assert.is(deniedPre.headers["access-control-allow-origin"], undefined);
      const nowhere = await h.app.inject({ method: "OPTIONS", url: `${P}/nowhere`, headers: { origin, "access-control-request-method": "GET" } });
      assertError(nowhere, "routeNotFound");
      const plainOptions = await h.app.inject({ method: "OPTIONS", url: `${P}/authors` });
      assert.is(plainOptions.statusCode, 204);
      assert.is(plainOptions.headers.allow, "GET, HEAD, POST, OPTIONS");
      assert.is((await h.app.inject({ method: "DELETE", url: `${P}/authors` })).statusCode, 405, "405 still answered");
    },
    { cors: { origins: ["https://app.example.com"] } },
  ));

test("CORS_ORIGINS=*: any origin, never with credentials; bad values are refused with the variable named", async () => {
  await withApp(
    async (h) => {
      const get = await call(h, "GET", "/authors", { headers: { origin: "https://any.example" } });
      assert.is(get.headers["access-control-allow-origin"], "*");
      assert.is(get.headers["access-control-allow-credentials"], undefined);
    },
    { cors: { origins: ["*"] } },
  );
  assert.equal(corsOriginsFrom(" https://a.example , http://localhost:5173 "), ["https://a.example", "http://localhost:5173"]);
  assert.is(corsOriginsFrom(""), undefined);
  assert.throws(() => corsOriginsFrom("https://a.example/path"), /CORS_ORIGINS: "https:\/\/a.example\/path" is not an origin/);
  assert.throws(() => corsOriginsFrom("*, https://a.example"), /either \*/);
  assert.equal(settingsFrom({ CORS_ORIGINS: "https://a.example", RATE_LIMIT: "120", TRUST_PROXY: "1" }, spec).corsOrigins, ["https://a.example"]);
  assert.is(settingsFrom({ RATE_LIMIT: "120" }, spec).rateLimit, 120);
  assert.is(settingsFrom({}, spec).rateLimit, undefined);
  assert.throws(() => settingsFrom({ RATE_LIMIT: "lots" }, spec), /RATE_LIMIT must be a whole number/);
  assert.is(settingsFrom({ TRUST_PROXY: "1" }, spec).trustProxy, 1);
  assert.throws(() => settingsFrom({ TRUST_PROXY: "yes please" }, spec), /TRUST_PROXY/);
});

test("RATE_LIMIT: per key, then 429 with Retry-After and the error body; another key and the health checks are not counted against it", () =>
  withApp(
    async (h) => {
      for (let i = 0; i < 3; i++) assert.is((await call(h, "GET", "/authors")).statusCode, 200);
      const over = await call(h, "GET", "/authors");
      assertError(over, "tooManyRequests");
      assert.ok(Number(over.headers["retry-after"]) >= 1 && Number(over.headers["retry-after"]) <= 60, String(over.headers["retry-after"]));
      assert.is((await call(h, "GET", "/authors", { key: h.other })).statusCode, 200, "another key has its own count");
      for (let i = 0; i < 5; i++) assert.is((await h.app.inject({ method: "GET", url: "/health/live" })).statusCode, 200);
    },
    { rateLimit: 3 },
  ));

test("RATE_LIMIT: failed credentials count per client address (401 up to the limit, then 429); a valid key from that address keeps its own count; a client failing at the token endpoint counts too", () =>
  withApp(
    async (h) => {
      const wrong = { key: null, headers: { authorization: "Bearer not-a-key-of-this-service" } };
      for (let i = 0; i < 3; i++) assertError(await call(h, "GET", "/authors", wrong), "unauthenticated");
      const over = await call(h, "GET", "/authors", wrong);
      assertError(over, "tooManyRequests");
      assert.ok(Number(over.headers["retry-after"]) >= 1 && Number(over.headers["retry-after"]) <= 60, String(over.headers["retry-after"]));
      assert.match(json(over).dev, "credentials that failed");
      // No credentials at all is a failed authentication too.
      assertError(await call(h, "GET", "/authors", { key: null }), "tooManyRequests");
      assert.is((await call(h, "GET", "/authors")).statusCode, 200, "a valid key is counted as itself");
      const token = (secret: string) =>
        h.app.inject({ method: "POST", url: `${P}/oauth/token`, headers: { "content-type": "application/x-www-form-urlencoded" }, payload: new URLSearchParams({ grant_type: "client_credentials", client_id: h.reader.id, client_secret: secret }).toString() });
      // The address is over the limit at the token endpoint as well.
      assertError(await token("wrong"), "tooManyRequests");
      assert.is((await token(h.reader.secret)).statusCode, 200, "the right secret still gets a token");
    },
    { rateLimit: 3, spec: { ...spec, auth: { ...spec.auth, schemes: ["apiKey", "oauth2"] } } },
  ));

test("RATE_LIMIT: a client failing at the token endpoint counts against its address, then 429", () =>
  withApp(
    async (h) => {
      const token = (secret: string) =>
        h.app.inject({ method: "POST", url: `${P}/oauth/token`, headers: { "content-type": "application/x-www-form-urlencoded" }, payload: new URLSearchParams({ grant_type: "client_credentials", client_id: h.reader.id, client_secret: secret }).toString() });
      for (let i = 0; i < 2; i++) {
        const refused = await token("wrong");
        assert.is(refused.statusCode, 401, refused.body);
        assert.is(json(refused).error, "invalid_client");
      }
      assertError(await token("wrong"), "tooManyRequests");
    },
    { rateLimit: 2, spec: { ...spec, auth: { ...spec.auth, schemes: ["apiKey", "oauth2"] } } },
  ));

test("ETag on an instance GET: 304 for If-None-Match, changed by a write; 412 for a stale If-Match on PATCH, PUT and DELETE, nothing written", () =>
  withApp(async (h) => {
    const author = await createAuthor(h, "Ursula");
    const url = `/authors/${author.id}`;
    const first = await call(h, "GET", url);
    const etag = String(first.headers.etag);
    assert.is(first.statusCode, 200, first.body);
    assert.match(etag, /^"[A-Za-z0-9_-]{22}"$/);
    assert.is((await call(h, "GET", url)).headers.etag, etag, "stable while nothing changes");
    const cached = await call(h, "GET", url, { headers: { "if-none-match": `W/"x", ${etag}` } });
    assert.is(cached.statusCode, 304);
    assert.is(cached.body, "");
    assert.is(cached.headers.etag, etag);
    const vendor = await call(h, "GET", url, { headers: { accept: "application/vnd.acme.v1.author+json" } });
    assert.not.equal(vendor.headers.etag, etag, "another media type, another tag");
    const shaped = await call(h, "GET", `${url}?fields=name`);
    assert.match(String(shaped.headers.etag), /^"[A-Za-z0-9_-]{22}\.[A-Za-z0-9_-]{16}"$/);
    assert.is((await call(h, "GET", `${url}?fields=name`, { headers: { "if-none-match": String(shaped.headers.etag) } })).statusCode, 304);

    const patched = await call(h, "PATCH", url, { body: { born: 1929 }, headers: { "if-match": etag, "content-type": "application/merge-patch+json" } });
    assert.is(patched.statusCode, 200, patched.body);
    const next = String(patched.headers.etag);
    assert.not.equal(next, etag);
    assert.is((await call(h, "GET", url)).headers.etag, next, "the write's answer carries the tag a GET then answers");
    const stale = await call(h, "PATCH", url, { body: { born: 1930 }, headers: { "if-match": etag, "content-type": "application/merge-patch+json" } });
    assertError(stale, "preconditionFailed");
    assertError(await call(h, "PUT", url, { body: { name: "Ursula K." }, headers: { "if-match": etag } }), "preconditionFailed");
    assertError(await call(h, "DELETE", url, { headers: { "if-match": etag } }), "preconditionFailed");
    assertError(await call(h, "PUT", url, { body: { name: "Ursula K." }, headers: { "if-none-match": "*" } }), "preconditionFailed");
    assert.is(json(await call(h, "GET", url)).born, 1929, "nothing written by the refused writes");
    const byShaped = await call(h, "PATCH", url, { body: { born: 1931 }, headers: { "if-match": `"${next.slice(1, 23)}.v"`, "content-type": "application/merge-patch+json" } });
    assert.is(byShaped.statusCode, 200, "the tag of another representation of the same state matches");
    assert.is((await call(h, "DELETE", url, { headers: { "if-match": String(byShaped.headers.etag) } })).statusCode, 204);
    const created = await call(h, "POST", "/authors", { body: { name: "Tove" } });
    assert.is(created.headers.etag, (await call(h, "GET", `/authors/${json(created).id}`)).headers.etag, "a create's answer carries the instance's tag");
  }));

test("shaped ETags: a fields selection has its own tag and follows the instance; an expansion's follows the expanded instance too", () =>
  withApp(async (h) => {
    const author = await createAuthor(h, "Ursula");
    const book = await createBook(h, "The Dispossessed", author.id);
    const tag = async (path: string) => String((await call(h, "GET", path)).headers.etag);
    const byName = await tag(`/authors/${author.id}?fields=name`);
    assert.match(byName, /^"[A-Za-z0-9_-]{22}\.[A-Za-z0-9_-]{16}"$/);
    assert.not.equal(await tag(`/authors/${author.id}?fields=born`), byName, "another selection, another tag");
    assert.is(await tag(`/authors/${author.id}?fields=name`), byName, "stable while nothing changes");
    const expanded = await tag(`/books/${book.id}?expand=author`);
    const plainBook = await tag(`/books/${book.id}`);
    const patched = await call(h, "PATCH", `/authors/${author.id}`, { body: { name: "Ursula K. Le Guin" }, headers: { "content-type": "application/merge-patch+json" } });
    assert.is(patched.statusCode, 200, patched.body);
    assert.not.equal(await tag(`/authors/${author.id}?fields=name`), byName, "the instance changed");
    assert.is(await tag(`/books/${book.id}`), plainBook, "the book itself did not change");
    assert.not.equal(await tag(`/books/${book.id}?expand=author`), expanded, "but its expansion did: the expanded author is in the bytes");
  }));

test("etag helpers: If-None-Match is a weak comparison; If-Match compares the state part of strong tags only", () => {
  assert.ok(noneMatch('W/"a", "b"', '"b"'));
  assert.ok(noneMatch("*", '"b"'));
  assert.not.ok(noneMatch('"c"', '"b"'));
  assert.not.ok(noneMatch(undefined, '"b"'));
  assert.ok(preconditionsHold({ "if-match": '"abc.v"' }, "abc"));
  assert.ok(preconditionsHold({ "if-match": '"x", "abc.a.q"' }, "abc"));
  assert.not.ok(preconditionsHold({ "if-match": 'W/"abc"' }, "abc"), "a weak tag never matches If-Match");
  assert.not.ok(preconditionsHold({ "if-match": "garbage" }, "abc"));
  assert.ok(preconditionsHold({ "if-match": "*" }, "abc"));
  assert.ok(preconditionsHold({}, "abc"));
  assert.not.ok(preconditionsHold({ "if-none-match": '"abc"' }, "abc"));
});

test("Basic over plain HTTP is refused, unless a trusted proxy says the client came over https (TRUST_PROXY)", async () => {
  await withApp(async (h) => {
    const basic = `Basic ${Buffer.from(`${h.reader.id}:${h.reader.secret}`).toString("base64")}`;
    const direct = await h.app.inject({ method: "GET", url: `${P}/authors`, headers: { authorization: basic, "x-forwarded-proto": "https" } });
    assertError(direct, "basicNeedsTls");
  });
  await withApp(
    async (h) => {
      const basic = `Basic ${Buffer.from(`${h.reader.id}:${h.reader.secret}`).toString("base64")}`;
      const proxied = await h.app.inject({ method: "GET", url: `${P}/authors`, headers: { authorization: basic, "x-forwarded-proto": "https" }, remoteAddress: "127.0.0.1" });
      assert.is(proxied.statusCode, 200, proxied.body);
      const plain = await h.app.inject({ method: "GET", url: `${P}/authors`, headers: { authorization: basic, "x-forwarded-proto": "http" }, remoteAddress: "127.0.0.1" });
      assertError(plain, "basicNeedsTls");
    },
    { trustProxy: "127.0.0.1" },
  );
});

test("an ApiError thrown by a user's hook keeps its own status (not a 500), and carries the request id header", () =>
  withApp(
    async (h) => {
      const res = await call(h, "POST", "/authors", { body: { name: "X" } });
      assertError(res, "conflict");
      assert.ok(res.headers["x-request-id"]);
    },
    { hooks: { authors: { beforeCreate: () => { throw new ApiError(spec.errors.find((e) => e.key === "conflict")!); } } } },
  ));

test.run();
