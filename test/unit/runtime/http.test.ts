/**
 * The HTTP layer of a built app, through inject(): who may call a route and when that is decided (before
 * the body is read), config.access on a route the user adds, 405/404 for any method, bodies that are no
 * bodies and encoded bodies, the headers of authenticated answers, errors no code path expected, and the
 * request log's URL. Over real sockets: http-limits.test.ts.
 */
import { gzipSync } from "node:zlib";
import { test } from "uvu";
import * as assert from "uvu/assert";
import type { FastifyError, FastifyInstance, LightMyRequestResponse } from "fastify";
import { Ajv } from "ajv";
import { pino } from "pino";
import { buildApp, type AppOptions } from "../../../templates/runtime/app.js";
import { ServiceContext } from "../../../templates/runtime/context.js";
import { fromFastifyError } from "../../../templates/runtime/error-handler.js";
import { MAX_BODY_DEPTH, nestingExceeds } from "../../../templates/runtime/json-body.js";
import { KeyRing, type NewKey } from "../../../templates/runtime/keys.js";
import { redactUrl } from "../../../templates/runtime/request-log.js";
import type { ResourceSpec, ServiceSpec } from "../../../templates/runtime/spec.js";
import { openSqliteStore } from "../../../templates/runtime/sqlite-store.js";
import { notesSpec } from "../../helpers/notes-service.js";

type Json = Record<string, any>;

const notes = notesSpec.resources[0]!;
/** Memos: only writers (and admins) create them. */
const memos: ResourceSpec = { ...notes, name: "memo", collection: "memos", mediaType: "application/vnd.acme.v1.memo+json", collectionMediaType: "application/vnd.acme.v1.memos+json", access: { create: ["writer"], admin: ["admin"] } };
const spec: ServiceSpec = {
  ...notesSpec,
  resources: [notes, memos],
  actions: [
    {
      name: "lookup",
      method: "GET",
      query: { type: "object", properties: { q: { type: "string" }, apiKey: { type: "string" } } },
      roles: [],
      mediaType: "application/vnd.acme.v1.lookup+json",
    },
  ],
};
const codeOf = (key: string) => spec.errors.find((e) => e.key === key)!.code;

interface Harness {
  readonly app: FastifyInstance;
  readonly reader: NewKey;
  readonly writer: NewKey;
}

async function withApp(fn: (h: Harness) => Promise<void>, options: Partial<AppOptions> = {}): Promise<void> {
  const store = openSqliteStore(spec, ":memory:");
  const keys = KeyRing.memory();
  const h = { reader: keys.create([]), writer: keys.create(["writer"]), app: await buildApp({ spec, store, keys, actions: { lookup: () => ({ ok: true }) }, ...options }) };
  try {
    await fn(h);
  } finally {
    await h.app.close();
    await store.close();
  }
}

/** One request to /v1 + path with the reader's Bearer key (`key` null: none), a raw payload and headers. */
function call(h: Harness, method: string, path: string, c: { key?: NewKey | null; raw?: string | Buffer; headers?: Record<string, string> } = {}): Promise<LightMyRequestResponse> {
  const key = c.key === undefined ? h.reader : c.key;
  const headers: Record<string, string> = { ...(key ? { authorization: `Bearer ${key.secret}` } : {}), ...(c.raw !== undefined ? { "content-type": "application/json" } : {}), ...c.headers };
  return h.app.inject({ method: method as "GET", url: `/v1${path}`, headers, ...(c.raw !== undefined ? { payload: c.raw } : {}) });
}

/** Asserts the error body of catalog entry `key`, with a JSON Content-Type. */
function assertError(res: LightMyRequestResponse, key: string): Json {
  const entry = spec.errors.find((e) => e.key === key)!;
  assert.is(res.statusCode, entry.status, `${key}: ${res.body}`);
  assert.ok(String(res.headers["content-type"]).startsWith("application/json"), String(res.headers["content-type"]));
  const body = JSON.parse(res.body) as Json;
  assert.equal(Object.keys(body).sort(), ["code", "dev", "info", "message", "property", "status"]);
  assert.is(body.code, entry.code, res.body);
  return body;
}

// ---------------------------------------------------------------------------------------------------
// Access, before the body
// ---------------------------------------------------------------------------------------------------

test("credentials and roles are checked before the body is read: 401 and 403 whatever the body, 404 and 405 too", () =>
  withApp(async (h) => {
    const huge = `{"text": "${"x".repeat(spec.bodyLimit + 10)}"}`;
    for (const raw of ["{", huge, '{"__proto__": {}}']) {
      assertError(await call(h, "POST", "/notes", { key: null, raw }), "unauthenticated");
      assertError(await call(h, "POST", "/notes", { key: null, raw, headers: { "content-type": "text/plain" } }), "unauthenticated");
      assertError(await call(h, "POST", "/memos", { raw }), "forbidden");
      assertError(await call(h, "POST", "/nothing", { key: null, raw }), "routeNotFound");
      assertError(await call(h, "PUT", "/notes", { key: null, raw }), "methodNotAllowed");
    }
    // With the role, the same bodies are read and refused for what they are.
    assertError(await call(h, "POST", "/memos", { key: h.writer, raw: "{" }), "malformedJson");
    assertError(await call(h, "POST", "/memos", { key: h.writer, raw: huge }), "payloadTooLarge");
  }));

test("config.access on a route the user adds: public needs no credentials, a role list answers 401/403, request.caller is the key", () =>
  withApp(async (h) => {
    h.app.get("/v1/open", { config: { access: "public" } }, async (req) => ({ caller: req.caller ?? null }));
    h.app.get("/v1/mine", async (req) => ({ caller: req.caller?.id }));
    h.app.post("/v1/write", { config: { access: ["writer"] } }, async (req) => ({ caller: req.caller?.id, body: req.body }));
    const open = await call(h, "GET", "/open", { key: null });
    assert.is(open.statusCode, 200);
    assert.equal(JSON.parse(open.body), { caller: null });
    assert.is(open.headers["cache-control"], undefined, "a public answer may be cached");
    assertError(await call(h, "GET", "/mine", { key: null }), "unauthenticated");
    assert.equal(JSON.parse((await call(h, "GET", "/mine")).body), { caller: h.reader.id });
    assertError(await call(h, "POST", "/write", { raw: "{" }), "forbidden");
    const written = await call(h, "POST", "/write", { key: h.writer, raw: '{"a":1}' });
    assert.equal(JSON.parse(written.body), { caller: h.writer.id, body: { a: 1 } });
    // Their other methods answer 405 with Allow, like generated routes.
    const other = await call(h, "DELETE", "/write", { key: null });
    assertError(other, "methodNotAllowed");
    assert.is(other.headers.allow, "POST");
  }));

test("a route the user adds sits under the base path unless it is already there or says outsideBase; a public one still names a valid caller", () =>
  withApp(async (h) => {
    h.app.get("/report", async (req) => ({ caller: req.caller?.id }));
    h.app.get("/v1/already", { config: { access: "public" } }, async (req) => ({ caller: req.caller?.id ?? null }));
    h.app.get("/health", { config: { access: "public", outsideBase: true } }, async () => ({ ok: true }));
    await h.app.register(async (scope) => void scope.get("/ping", async () => ({ pong: true })), { prefix: "/tools" });
    assert.equal(JSON.parse((await call(h, "GET", "/report")).body), { caller: h.reader.id });
    assertError(await h.app.inject({ method: "GET", url: "/report" }), "routeNotFound");
    assert.equal(JSON.parse((await call(h, "GET", "/already", { key: null })).body), { caller: null });
    const named = await call(h, "GET", "/already");
    assert.equal(JSON.parse(named.body), { caller: h.reader.id });
    assert.is(named.headers.vary, "Authorization");
    assert.equal(JSON.parse((await call(h, "GET", "/already", { key: null, headers: { authorization: "Bearer nonsense" } })).body), { caller: null });
    assert.equal(JSON.parse((await h.app.inject({ method: "GET", url: "/health" })).body), { ok: true });
    assert.is((await call(h, "GET", "/tools/ping")).statusCode, 200);
    assertError(await call(h, "GET", "/tools/ping", { key: null }), "unauthenticated");
  }));

test("config.produces negotiates Accept in the access hook: request.negotiated, or 406 before the body is read", () =>
  withApp(async (h) => {
    h.app.post("/export", { config: { produces: ["application/json", "text/csv"] } }, async (req, reply) => reply.type(req.negotiated!).send(req.negotiated === "text/csv" ? "a,b" : { a: "b" }));
    const csv = await call(h, "POST", "/export", { raw: "{}", headers: { accept: "text/csv, application/json;q=0.5" } });
    assert.is(csv.body, "a,b");
    assert.match(String(csv.headers["content-type"]), /^text\/csv/);
    assert.equal(JSON.parse((await call(h, "POST", "/export", { raw: "{}" })).body), { a: "b" });
    assertError(await call(h, "POST", "/export", { raw: "{", headers: { accept: "image/png" } }), "notAcceptable");
    assertError(await call(h, "POST", "/export", { key: null, raw: "{}", headers: { accept: "image/png" } }), "unauthenticated");
  }));

test("a user route's own schema refuses a request with the error body: body failures as the generated routes name them, others invalidParameter", () =>
  withApp(async (h) => {
    const body = { type: "object", required: ["n"], properties: { n: { type: "integer" }, tags: { type: "array", items: { type: "string" } } } };
    h.app.post("/typed", { schema: { body, querystring: { type: "object", properties: { page: { type: "integer" } } } } }, async (req) => req.body);
    const failed = (res: LightMyRequestResponse, key: string, property: string) => assert.is(assertError(res, key).property, property);
    failed(await call(h, "POST", "/typed", { raw: '{"n":"x"}' }), "invalidProperty", "n");
    failed(await call(h, "POST", "/typed", { raw: '{"n":1,"tags":[{}]}' }), "invalidProperty", "tags.0");
    failed(await call(h, "POST", "/typed", { raw: "{}" }), "missingProperty", "n");
    failed(await call(h, "POST", "/typed?page=x", { raw: '{"n":1}' }), "invalidParameter", "page");
    assert.is((await call(h, "POST", "/typed?page=2", { raw: '{"n":1}' })).statusCode, 200);
  }));

test("a user route whose validator reports every unknown body property (allErrors) answers one unknownProperty naming them all, sorted", () =>
  withApp(async (h) => {
    const ajv = new Ajv({ allErrors: true });
    const body = { type: "object", additionalProperties: false, properties: { n: { type: "integer" } } };
    h.app.post("/strict", { schema: { body }, validatorCompiler: ({ schema }) => ajv.compile(schema) }, async (req) => req.body);
    const res = await call(h, "POST", "/strict", { raw: '{"n":1,"zz":1,"aa":2}' });
    const error = assertError(res, "unknownProperty");
    assert.is(error.property, "zz");
    assert.is(error.dev, '"aa" and "zz" are not properties of this body.');
    const one = assertError(await call(h, "POST", "/strict", { raw: '{"n":1,"zz":1}' }), "unknownProperty");
    assert.is(one.dev, '"zz" is not a property of this body.');
  }));

test("authenticated answers carry Cache-Control: no-store and Vary: Authorization, errors included", () =>
  withApp(async (h) => {
    for (const res of [await call(h, "GET", "/notes"), await call(h, "GET", "/notes/none"), await call(h, "GET", "/notes", { key: null }), await call(h, "POST", "/memos", { raw: "{}" })]) {
      assert.is(res.headers["cache-control"], "no-store", `${res.statusCode} ${res.body}`);
      assert.is(res.headers.vary, "Authorization");
    }
  }));

test("a Bearer token that is refused is challenged with error=\"invalid_token\"; a request without one is not", () =>
  withApp(async (h) => {
    const bad = await call(h, "GET", "/notes", { key: null, headers: { authorization: "Bearer not-a-key" } });
    assertError(bad, "unauthenticated");
    assert.equal(bad.headers["www-authenticate"], ['Bearer realm="Notes", error="invalid_token"', 'Basic realm="Notes"']);
    const none = await call(h, "GET", "/notes", { key: null });
    assert.equal(none.headers["www-authenticate"], ['Bearer realm="Notes"', 'Basic realm="Notes"']);
  }));

// ---------------------------------------------------------------------------------------------------
// Methods
// ---------------------------------------------------------------------------------------------------

test("any method a path has no route for is 405 with Allow (QUERY without Content-Type included), on an unknown path 404, never 5xx", () =>
  withApp(async (h) => {
    for (const method of ["TRACE", "PROPFIND", "QUERY", "SEARCH", "LOCK", "MKCOL", "PURGE", "LINK"]) {
      for (const key of [null, h.reader]) {
        const res = await call(h, method, "/notes", { key });
        assertError(res, "methodNotAllowed");
        assert.is(res.headers.allow, "GET, HEAD, POST", method);
        assertError(await call(h, method, "/notes/x", { key, raw: "{" }), "methodNotAllowed");
        assertError(await call(h, method, "/nothing", { key }), "routeNotFound");
      }
    }
    const query = await call(h, "QUERY", "/notes", { raw: '{"text":"a"}' });
    assertError(query, "methodNotAllowed");
    assert.is((await call(h, "OPTIONS", "/notes/x")).headers.allow, "DELETE, GET, HEAD, PATCH, POST, PUT, OPTIONS");
    assertError(await call(h, "OPTIONS", "/nothing"), "routeNotFound");
  }));

// ---------------------------------------------------------------------------------------------------
// Bodies
// ---------------------------------------------------------------------------------------------------

test("a DELETE or GET with Content-Type: application/json and no body just works (and anonymously is a 401)", () =>
  withApp(async (h) => {
    const created = JSON.parse((await call(h, "POST", "/notes", { raw: '{"text":"a"}' })).body) as Json;
    const json = { "content-type": "application/json" };
    assertError(await call(h, "DELETE", `/notes/${created.id}`, { key: null, headers: json }), "unauthenticated");
    assert.is((await call(h, "GET", `/notes/${created.id}`, { headers: json })).statusCode, 200);
    assert.is((await call(h, "DELETE", `/notes/${created.id}`, { headers: { ...json, "content-length": "0" } })).statusCode, 204);
    const again = JSON.parse((await call(h, "POST", "/notes", { raw: '{"text":"b"}' })).body) as Json;
    assert.is((await call(h, "DELETE", `/notes/${again.id}`, { headers: json })).statusCode, 204);
    // A write still needs its body.
    assertError(await call(h, "POST", "/notes", { raw: "" }), "malformedJson");
  }));

test("a body with a Content-Encoding other than identity is 415 unsupportedEncoding; identity is read", () =>
  withApp(async (h) => {
    const text = '{"text":"zipped"}';
    for (const [encoding, raw] of [["gzip", gzipSync(text)], ["gzip", text], ["br", text], ["deflate, identity", text], ["x-custom", text]] as const) {
      assertError(await call(h, "POST", "/notes", { raw, headers: { "content-encoding": encoding } }), "unsupportedEncoding");
    }
    assert.is(JSON.parse((await call(h, "GET", "/notes")).body).size, 0);
    assert.is((await call(h, "POST", "/notes", { raw: text, headers: { "content-encoding": "identity" } })).statusCode, 201);
    assert.is((await call(h, "POST", "/notes", { raw: text, headers: { "content-encoding": "IDENTITY" } })).statusCode, 201);
  }));

test("a body nested deeper than MAX_BODY_DEPTH is 400 bodyTooDeep, on POST and on a merge patch; brackets in strings do not count", () =>
  withApp(async (h) => {
    const nested = (depth: number) => `{"text":"t","x":${"[".repeat(depth - 1)}1${"]".repeat(depth - 1)}}`;
    const created = JSON.parse((await call(h, "POST", "/notes", { raw: `{"text":"${"[{".repeat(500)}"}` })).body) as Json;
    assert.type(created.id, "string");
    assertError(await call(h, "POST", "/notes", { raw: nested(MAX_BODY_DEPTH) }), "unknownProperty");
    for (const depth of [MAX_BODY_DEPTH + 1, 10_000, 100_000]) {
      assertError(await call(h, "POST", "/notes", { raw: nested(depth) }), "bodyTooDeep");
      assertError(await call(h, "PATCH", `/notes/${created.id}`, { raw: nested(depth) }), "bodyTooDeep");
    }
    assert.ok(nestingExceeds('{"a":[[1]]}', 2));
    assert.not.ok(nestingExceeds('{"a":[1]}', 2));
    assert.not.ok(nestingExceeds('{"a":"[[[\\"[[["}', 1), "escaped quotes inside a string");
  }));

// ---------------------------------------------------------------------------------------------------
// Errors nobody expected
// ---------------------------------------------------------------------------------------------------

test("Fastify's own failures: a 4xx of Fastify is a 400 malformedRequest, a broken-off body too; anything else a 500", () => {
  const svc = new ServiceContext(spec, openSqliteStore(spec, ":memory:"), KeyRing.memory(), spec.baseUrl);
  const of = (code: string | undefined, statusCode?: number) => fromFastifyError(svc, Object.assign(new Error("x"), { code, statusCode }) as FastifyError).body.code;
  assert.is(of("FST_ERR_CTP_INVALID_CONTENT_LENGTH", 400), codeOf("malformedRequest"));
  assert.is(of("FST_ERR_ROUTE_MISSING_CONTENT_TYPE", 400), codeOf("unsupportedMediaType"));
  assert.is(of("FST_ERR_SOMETHING_NEW", 400), codeOf("malformedRequest"));
  assert.is(of("ECONNRESET", 400), codeOf("malformedRequest"));
  assert.is(of("FST_ERR_BAD_STATUS_CODE", 500), codeOf("internal"));
  assert.is(of("FST_ERR_CTP_INVALID_TYPE", 500), codeOf("internal"));
  assert.is(of("EDB", 400), codeOf("internal"), "a user's error with a statusCode is still a 500");
  assert.is(of(undefined), codeOf("internal"));
});

test("an error the error handler itself cannot read, and a bad status code, still answer the contract's 500", () =>
  withApp(
    async (h) => {
      const res = await call(h, "GET", "/lookup?q=code");
      assertError(res, "internal");
      assert.not.match(res.body, /statusCode|FST_ERR|boom/);
    },
    {
      actions: {
        lookup: (p: Json) => {
          if (p.q === "code") throw Object.defineProperty(new Error("boom"), "code", { get: () => { throw new Error("boom"); } });
          return { ok: true };
        },
      },
    },
  ).then(() =>
    withApp(async (h) => {
      h.app.get("/v1/status", async (_req, reply) => reply.code(999).send("x"));
      assertError(await call(h, "GET", "/status"), "internal");
    }),
  ));

// ---------------------------------------------------------------------------------------------------
// The request log
// ---------------------------------------------------------------------------------------------------

test("a credential in the query never reaches the request log; the service's own parameters do", async () => {
  const lines: string[] = [];
  const logger = pino({ level: "info" }, { write: (line: string) => void lines.push(line) });
  await withApp(
    async (h) => {
      await call(h, "GET", "/notes?limit=5&access_token=SECRET-1&fields=text");
      await call(h, "GET", "/lookup?q=find&apiKey=SECRET-2&api_key=SECRET-3&SECRET-4");
      await call(h, "GET", "/nothing?access%5Ftoken=SECRET-5", { key: null });
    },
    { logger },
  );
  const log = lines.join("");
  assert.not.match(log, /SECRET/);
  assert.match(log, /limit=5&access_token=\[redacted\]&fields=text/);
  assert.match(log, /q=find&apiKey=\[redacted\]&api_key=\[redacted\]&\[redacted\]/);
  assert.is(redactUrl("/v1/notes", new Set()), "/v1/notes");
  assert.is(redactUrl("/v1/notes?&limit=1&", new Set(["limit"])), "/v1/notes?&limit=1&");
});

test.run();
