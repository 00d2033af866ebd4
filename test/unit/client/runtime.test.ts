/**
 * The generated client's transport (templates/client/runtime.ts and collection.ts) against a small HTTP
 * server written here to the wire contract of OAuth 2.0 client credentials and conditional writes: the
 * token endpoint (form body, one token shared by concurrent calls, renewed before it expires, a 401
 * invalid_token answered by one new token and one retry, refusals as TokenError without the secret), and
 * ETags (If-Match from the instance last seen, ifMatch and conditionalWrites overrides, 412 as
 * PreconditionFailedError, never retried; etagOf and the instance's equality with its JSON).
 */
import { deepStrictEqual } from "node:assert";
import http from "node:http";
import type { AddressInfo } from "node:net";
import { test } from "uvu";
import * as assert from "uvu/assert";
import { collectionApi } from "../../../templates/client/collection.js";
import {
  ApiError,
  ETAG_MEMORY,
  EtagMemory,
  etagMemory,
  etagOf,
  PreconditionFailedError,
  send,
  TokenError,
  type CallOptions,
  type ClientOptions,
} from "../../../templates/client/runtime.js";

type Json = Record<string, any>;

/** One request as the server saw it. */
interface Seen {
  method: string;
  path: string;
  headers: http.IncomingHttpHeaders;
  body: string;
}

/** What the test server does at the token endpoint: issue tokens (after `delayMs`), or refuse with `status` and `body`. */
interface TokenBehaviour {
  expiresIn?: number;
  delayMs?: number;
  refuse?: { status: number; body: Json }[];
}

const ID = "key id+&=/ü";
const SECRET = "s3cr3t +%&=ünïcode";
const errorBody = (status: number, code: number, message: string) => ({ status, code, property: "", message, dev: `dev of ${code}`, info: `http://localhost/docs/errors/${code}` });

/** A minimal service: /v1/oauth/token and /v1/books[/id] with strong ETags, If-Match and Bearer tokens. */
class TestService {
  readonly seen: Seen[] = [];
  readonly valid = new Set<string>();
  readonly books = new Map<string, { body: Json; version: number }>();
  token: TokenBehaviour = {};
  /** Every token is refused as invalid_token (the service's keys were rotated, say). */
  refuseAllTokens = false;
  /** Answers with these statuses, in turn, to the next book requests. */
  failures: number[] = [];
  private issued = 0;
  private nextId = 1;
  private server = http.createServer((req, res) => {
    let body = "";
    req.setEncoding("utf8").on("data", (d: string) => (body += d)).on("end", () => void this.handle(req, res, body));
  });
  port = 0;

  async start(): Promise<void> {
    await new Promise<void>((resolve) => this.server.listen(0, "127.0.0.1", resolve));
    this.port = (this.server.address() as AddressInfo).port;
  }

  close(): Promise<void> {
    this.server.closeAllConnections();
    return new Promise((resolve) => this.server.close(() => resolve()));
  }

  get baseUrl(): string {
    return `http://127.0.0.1:${this.port}/v1`;
  }

  requests(path: string): Seen[] {
    return this.seen.filter((s) => s.path === path || (path.endsWith("*") && s.path.startsWith(path.slice(0, -1))));
  }

  /** Revokes every token issued so far. */
  revoke(): void {
    this.valid.clear();
  }

  /** Changes a book behind the client's back (another client's write). */
  touch(id: string): void {
    this.books.get(id)!.version++;
  }

  private async handle(req: http.IncomingMessage, res: http.ServerResponse, body: string): Promise<void> {
    const path = req.url!;
    this.seen.push({ method: req.method!, path, headers: req.headers, body });
    const json = (status: number, value: unknown, headers: Record<string, string> = {}) => {
      res.writeHead(status, { "content-type": "application/json", ...headers }).end(value === undefined ? undefined : JSON.stringify(value));
    };
    if (path === "/v1/oauth/token") {
      if (this.token.delayMs) await new Promise((r) => setTimeout(r, this.token.delayMs));
      const refusal = this.token.refuse?.shift();
      if (refusal) return json(refusal.status, refusal.body, { "cache-control": "no-store" });
      const form = new URLSearchParams(body);
      if (form.get("grant_type") !== "client_credentials" || form.get("client_id") !== ID || form.get("client_secret") !== SECRET) {
        return json(401, { error: "invalid_client", error_description: "unknown key", ...errorBody(401, 40102, "The key id or secret is wrong.") });
      }
      const token = `t${++this.issued}`;
      this.valid.add(token);
      return json(200, { access_token: token, token_type: "Bearer", expires_in: this.token.expiresIn ?? 900, scope: form.get("scope") ?? "reader writer" }, { "cache-control": "no-store" });
    }
    const bearer = /^Bearer (.+)$/.exec(req.headers.authorization ?? "")?.[1];
    if (bearer === undefined || this.refuseAllTokens || !this.valid.has(bearer)) {
      return json(401, errorBody(401, 40100, "The access token is expired or revoked."), { "www-authenticate": 'Bearer realm="test", error="invalid_token"' });
    }
    const failure = this.failures.shift();
    if (failure !== undefined) return json(failure, errorBody(failure, failure * 100, `HTTP ${failure}`));
    const etag = (id: string) => `"${id}-v${this.books.get(id)!.version}"`;
    const instance = (id: string) => ({ meta: { href: `${this.baseUrl}/books/${id}`, mediaType: "application/vnd.test.v1.book+json" }, id, ...this.books.get(id)!.body });
    if (path === "/v1/books" && req.method === "POST") {
      const id = String(this.nextId++);
      this.books.set(id, { body: JSON.parse(body), version: 1 });
      return json(201, instance(id), { etag: etag(id), location: `${this.baseUrl}/books/${id}` });
    }
    const id = /^\/v1\/books\/([^/?]+)/.exec(path)?.[1];
    if (id === undefined || !this.books.has(id)) return json(404, errorBody(404, 40400, "No such book."));
    const ifMatch = req.headers["if-match"];
    if (req.method !== "GET" && ifMatch !== undefined && ifMatch !== etag(id)) return json(412, errorBody(412, 41200, "The book has changed since its ETag was read."));
    const book = this.books.get(id)!;
    if (req.method === "GET") return json(200, instance(id), { etag: etag(id) });
    if (req.method === "DELETE") {
      this.books.delete(id);
      return json(204, undefined);
    }
    book.body = req.method === "PATCH" ? { ...book.body, ...JSON.parse(body) } : JSON.parse(body);
    book.version++;
    return json(200, instance(id), { etag: etag(id) });
  }
}

/** The untyped calls of the books collection (the generated index types them). */
interface Books {
  create(body: Json, call?: CallOptions): Promise<Json>;
  get(id: string | number, params?: Json, call?: CallOptions): Promise<Json>;
  update(id: string | number, patch: Json, call?: CallOptions): Promise<Json>;
  replace(id: string | number, body: Json, call?: CallOptions): Promise<Json>;
  delete(id: string | number, call?: CallOptions): Promise<void>;
}

const service = new TestService();

function books(options: Partial<ClientOptions> = {}): Books {
  const all: ClientOptions = { baseUrl: service.baseUrl, auth: { clientCredentials: { id: ID, secret: SECRET } }, ...options };
  const spec = { collection: "books", mediaType: "application/vnd.test.v1.book+json", collectionMediaType: "application/vnd.test.v1.books+json", subCollections: {} };
  return collectionApi(all, spec) as unknown as Books;
}

const tokenRequests = () => service.requests("/v1/oauth/token");
const ifMatchOf = (s: Seen | undefined) => s?.headers["if-match"];
const last = (path: string) => service.requests(path).at(-1);

test.before(() => service.start());
test.before.each(() => {
  service.seen.length = 0;
  service.token = {};
  service.refuseAllTokens = false;
  service.failures = [];
  service.revoke();
});
test.after(() => service.close());

test("the token is requested on first need, once for concurrent calls, and reused", async () => {
  const api = books();
  const { id } = await api.create({ title: "Kindred" });
  service.seen.length = 0;
  service.token.delayMs = 50;
  const read = await Promise.all(Array.from({ length: 6 }, () => books().get(id)));
  assert.is(read.length, 6);
  assert.is(tokenRequests().length, 6, "each client has its own token");
  service.seen.length = 0;
  const one = books();
  await Promise.all(Array.from({ length: 6 }, () => one.get(id)));
  assert.is(tokenRequests().length, 1, "one request for the token, shared by concurrent calls");
  const bearers = new Set(service.requests("/v1/books/*").map((s) => s.headers.authorization));
  assert.is(bearers.size, 1, [...bearers].join());
  await one.get(id);
  await one.update(id, { pages: 587 });
  assert.is(tokenRequests().length, 1, "reused until it nears its expiry");
  const token = tokenRequests()[0]!;
  assert.is(token.method, "POST");
  assert.is(token.headers["content-type"], "application/x-www-form-urlencoded");
  assert.is(token.headers.accept, "application/json");
});

test("the form body: every field percent-encoded, the scope space-joined from a list or as given, absent when not asked", async () => {
  await books({ auth: { clientCredentials: { id: ID, secret: SECRET, scope: ["reader", "writer"] } } }).create({ title: "A" });
  await books({ auth: { clientCredentials: { id: ID, secret: SECRET, scope: "reader writer" } } }).create({ title: "B" });
  await books().create({ title: "C" });
  const [listed, spaced, none] = tokenRequests().map((s) => s.body);
  const expected = "grant_type=client_credentials&client_id=key%20id%2B%26%3D%2F%C3%BC&client_secret=s3cr3t%20%2B%25%26%3D%C3%BCn%C3%AFcode";
  assert.is(listed, `${expected}&scope=reader%20writer`);
  assert.is(spaced, listed);
  assert.is(none, expected);
  const form = new URLSearchParams(listed);
  assert.equal([form.get("client_id"), form.get("client_secret"), form.get("scope")], [ID, SECRET, "reader writer"]);
});

test("a token is renewed when a tenth of its lifetime is left (at most 30 s before it expires)", async () => {
  service.token.expiresIn = 1;
  const api = books();
  const { id } = await api.create({ title: "Parable of the Sower" });
  await api.get(id);
  assert.is(tokenRequests().length, 1, "fresh: reused");
  await new Promise((r) => setTimeout(r, 950));
  await api.get(id);
  assert.is(tokenRequests().length, 2, "renewed 0.1 s before its 1 s ran out");
  assert.is(last(`/v1/books/${id}`)!.headers.authorization, `Bearer ${[...service.valid].at(-1)}`);
});

test("an aborted call asks for no token; a call timing out while the token comes leaves it to the others", async () => {
  const api = books();
  const stop = new AbortController();
  stop.abort(new Error("stop"));
  const stopped = await api.get("1", {}, { signal: stop.signal }).catch((e: Error) => e.message);
  assert.is(stopped, "stop");
  await new Promise((r) => setTimeout(r, 50));
  assert.is(tokenRequests().length, 0);
  service.token.delayMs = 200;
  const slow = api.get("none", {}, { timeoutMs: 20 }).catch((e: Error) => e.message);
  const patient = api.get("none").catch((e: ApiError) => e.status);
  assert.is(await slow, "timed out after 20 ms");
  assert.is(await patient, 404, "the token came, and the call went through");
  assert.is(tokenRequests().length, 1);
});

test("a 401 invalid_token drops the token, gets one new token and sends the call once more, a POST too", async () => {
  const api = books();
  const { id } = await api.create({ title: "Dawn" });
  service.revoke();
  service.seen.length = 0;
  const created = await api.create({ title: "Adulthood Rites" });
  assert.is(created.title, "Adulthood Rites");
  assert.equal(service.seen.map((s) => `${s.method} ${s.path}`), ["POST /v1/books", "POST /v1/oauth/token", "POST /v1/books"]);
  // Refused again with the new token: one renewal only, then the 401 is thrown.
  service.refuseAllTokens = true;
  service.seen.length = 0;
  const refused = await api.update(id, { pages: 1 }).catch((e: unknown) => e);
  assert.instance(refused, ApiError);
  assert.equal([(refused as ApiError).status, (refused as ApiError).code], [401, 40100]);
  assert.equal(service.seen.map((s) => `${s.method} ${s.path}`), [`PATCH /v1/books/${id}`, "POST /v1/oauth/token", `PATCH /v1/books/${id}`]);
  assert.not.ok(refused instanceof TokenError);
});

test("a 401 without invalid_token, and any 401 under a fixed bearer, is thrown as it is", async () => {
  const seen: string[] = [];
  const challenge = (status: number, header: string): typeof fetch => async (url) => {
    seen.push(String(url));
    if (String(url).endsWith("/oauth/token")) return new Response(JSON.stringify({ access_token: "x", token_type: "bearer", expires_in: 900 }), { status: 200 });
    return new Response(JSON.stringify(errorBody(status, 40101, "no")), { status, headers: { "www-authenticate": header } });
  };
  const plain = await books({ fetch: challenge(401, 'Bearer realm="test"') }).get("1").catch((e: unknown) => e);
  assert.is((plain as ApiError).status, 401);
  assert.is(seen.length, 2, "token, call: no renewal");
  seen.length = 0;
  const fixed = await books({ auth: { bearer: "secret" }, fetch: challenge(401, 'Bearer error="invalid_token"') }).get("1").catch((e: unknown) => e);
  assert.is((fixed as ApiError).status, 401);
  assert.is(seen.length, 1);
});

test("a refusal by the token endpoint is a TokenError with the OAuth error, the error body, and never the secret", async () => {
  const echo = `client_secret=${encodeURIComponent(SECRET)}`;
  service.token.refuse = [
    { status: 401, body: { error: "invalid_client", error_description: `bad secret ${SECRET}`, ...errorBody(401, 40102, `The secret ${SECRET} is wrong (${echo}).`) } },
  ];
  const api = books();
  const calls = await Promise.all(Array.from({ length: 3 }, () => api.get("1").catch((e: unknown) => e)));
  assert.is(tokenRequests().length, 1, "one request for all three");
  for (const e of calls) {
    assert.instance(e, TokenError);
    assert.instance(e, ApiError);
    const error = e as TokenError;
    assert.equal([error.name, error.error, error.status, error.code, error.info], ["TokenError", "invalid_client", 401, 40102, "http://localhost/docs/errors/40102"]);
    assert.is(error.errorDescription, "bad secret [secret]");
    for (const text of [error.message, error.errorDescription, error.dev, String(error), JSON.stringify(error)]) {
      assert.not.ok(text.includes(SECRET) || text.includes(encodeURIComponent(SECRET)), text);
    }
    assert.match(error.message, "The secret [secret] is wrong");
  }
  // The failure is not cached: the next call asks again (and the default server issues a token).
  const { id } = await api.create({ title: "Xenogenesis" });
  assert.ok(id);
  assert.is(tokenRequests().length, 2);
  // A plain RFC 6749 answer (no error body) and an answer without a token.
  service.token.refuse = [{ status: 400, body: { error: "invalid_scope", error_description: "no such role: admin" } }];
  const scope = (await books().get("1").catch((e: unknown) => e)) as TokenError;
  assert.equal([scope.status, scope.code, scope.error, scope.errorDescription], [400, 0, "invalid_scope", "no such role: admin"]);
  assert.match(scope.message, "HTTP 400): invalid_scope: no such role: admin");
  service.token.refuse = [{ status: 200, body: { token_type: "Bearer" } }];
  const empty = (await books().get("1").catch((e: unknown) => e)) as TokenError;
  assert.instance(empty, TokenError);
  assert.match(empty.message, "without a Bearer access_token");
});

test("a token endpoint at 503 is retried with the call's retries (GET); at 4xx never", async () => {
  const api = books({ retry: { retries: 2, minDelayMs: 1 } });
  const { id } = await api.create({ title: "Wild Seed" });
  service.revoke();
  service.seen.length = 0;
  service.token.refuse = [{ status: 503, body: errorBody(503, 50300, "busy") }];
  assert.is((await api.get(id)).title, "Wild Seed");
  assert.is(tokenRequests().length, 2);
  service.revoke();
  service.seen.length = 0;
  service.token.refuse = [{ status: 400, body: { error: "invalid_request", error_description: "" } }];
  assert.instance(await api.get(id).catch((e: unknown) => e), TokenError);
  assert.is(tokenRequests().length, 1);
});

test("If-Match: the ETag of the instance's create, get, update and replace; none for an unseen one; a delete forgets it", async () => {
  const api = books();
  const created = await api.create({ title: "Bloodchild" });
  const id = created.id as string;
  const path = `/v1/books/${id}`;
  assert.is(etagOf(created), `"${id}-v1"`);
  await api.update(id, { pages: 10 });
  assert.is(ifMatchOf(last(path)), `"${id}-v1"`, "after create");
  await api.update(id, { pages: 11 });
  assert.is(ifMatchOf(last(path)), `"${id}-v2"`, "after an update");
  const replaced = await api.replace(id, { title: "Bloodchild and Other Stories" });
  assert.is(ifMatchOf(last(path)), `"${id}-v3"`);
  assert.is(etagOf(replaced), `"${id}-v4"`);
  service.touch(id);
  await api.get(id);
  await api.update(id, { pages: 12 });
  assert.is(ifMatchOf(last(path)), `"${id}-v5"`, "after a get");
  // Another client of the same service has seen nothing: no If-Match.
  await books().update(id, { pages: 13 });
  assert.is(ifMatchOf(last(path)), undefined);
  await api.get(id);
  await api.delete(id);
  assert.is(ifMatchOf(last(path)), `"${id}-v7"`);
  assert.is((await api.replace(id, { title: "gone" }).catch((e: ApiError) => e.status)), 404);
  assert.is(ifMatchOf(last(path)), undefined, "forgotten by the delete");
  // A numeric id and its string are the same instance.
  const other = await api.create({ title: "Fledgling" });
  await api.update(Number(other.id), { pages: 1 });
  assert.is(ifMatchOf(last(`/v1/books/${other.id}`)), `"${other.id}-v1"`);
});

test("ifMatch overrides per call (an ETag, or false for none); conditionalWrites: false sends none", async () => {
  const api = books();
  const { id } = await api.create({ title: "Survivor" });
  const path = `/v1/books/${id}`;
  await api.update(id, { pages: 1 }, { ifMatch: false });
  assert.is(ifMatchOf(last(path)), undefined);
  const stale = await api.update(id, { pages: 2 }, { ifMatch: '"stale"' }).catch((e: unknown) => e);
  assert.is(ifMatchOf(last(path)), '"stale"');
  assert.instance(stale, PreconditionFailedError);
  const loose = books({ conditionalWrites: false });
  const book = await loose.get(id);
  assert.ok(etagOf(book), "the ETag is still kept on the instance");
  service.touch(id);
  await loose.update(id, { pages: 3 });
  await loose.delete(id);
  assert.equal(service.requests(path).slice(-2).map(ifMatchOf), [undefined, undefined]);
  // An explicit ETag is sent even then.
  const again = await loose.create({ title: "Patternmaster" });
  await loose.replace(again.id, { title: "Mind of My Mind" }, { ifMatch: etagOf(again) });
  assert.is(ifMatchOf(last(`/v1/books/${again.id}`)), etagOf(again));
});

test("a 412 is a PreconditionFailedError (an ApiError), never retried, and the stale ETag stays until the instance is read again", async () => {
  const api = books({ retry: { retries: 3, minDelayMs: 1 } });
  const { id } = await api.create({ title: "Lilith's Brood" });
  const path = `/v1/books/${id}`;
  service.touch(id);
  for (const write of [() => api.replace(id, { title: "x" }), () => api.delete(id), () => api.update(id, { pages: 1 })]) {
    const before = service.requests(path).length;
    const e = await write().catch((error: unknown) => error);
    assert.instance(e, PreconditionFailedError);
    assert.instance(e, ApiError);
    const error = e as PreconditionFailedError;
    assert.equal([error.name, error.status, error.code, error.dev], ["PreconditionFailedError", 412, 41200, "dev of 41200"]);
    assert.match(error.message, "The book has changed since its ETag was read: ");
    assert.match(error.message, "get it again, reapply the change and send it again");
    assert.is(service.requests(path).length - before, 1, "sent once");
  }
  assert.is(service.books.get(id)!.body.title, "Lilith's Brood", "nothing written");
  const fresh = await api.get(id);
  const updated = await api.update(id, { title: "Lilith's Brood (2000)" });
  assert.is(updated.title, "Lilith's Brood (2000)");
  assert.is(ifMatchOf(last(path)), etagOf(fresh));
});

test("the retries of idempotent calls still work: 503 on GET and PUT retried, POST and PATCH not", async () => {
  const api = books({ retry: { retries: 2, minDelayMs: 1 } });
  const { id } = await api.create({ title: "Kindred" });
  const path = `/v1/books/${id}`;
  service.failures = [503, 503];
  assert.is((await api.get(id)).title, "Kindred");
  assert.is(service.requests(path).length, 3);
  service.failures = [503];
  await api.replace(id, { title: "Kindred (1979)" });
  assert.equal(service.requests(path).slice(-2).map(ifMatchOf), [`"${id}-v1"`, `"${id}-v1"`], "the same If-Match on the retry");
  service.failures = [503];
  const patched = await api.update(id, { pages: 1 }).catch((e: ApiError) => e.status);
  assert.is(patched, 503);
});

test("etagOf: the ETag a returned instance came with, off its properties; the instance equals its JSON", async () => {
  const api = books();
  const created = await api.create({ title: "Clay's Ark", tags: ["sf"] });
  const read = await api.get(created.id);
  const raw = JSON.parse(JSON.stringify({ meta: read.meta, id: read.id, title: "Clay's Ark", tags: ["sf"] }));
  assert.equal(read, raw);
  deepStrictEqual(read, raw);
  assert.is(JSON.stringify(read), JSON.stringify(raw));
  assert.equal(Object.keys(read), ["meta", "id", "title", "tags"]);
  assert.equal(Object.getOwnPropertySymbols(read).map((s) => Object.getOwnPropertyDescriptor(read, s)!.enumerable), [false]);
  assert.is(etagOf(read), `"${created.id}-v1"`);
  assert.is(etagOf({ ...read }), undefined, "a copy does not carry it");
  assert.is(etagOf(null), undefined);
  assert.is(etagOf("x"), undefined);
  assert.is(etagOf(raw), undefined);
});

test("the ETag memory keeps the 1 000 most recent instances, forgetting the oldest", () => {
  const memory = new EtagMemory(3);
  for (const n of [1, 2, 3]) memory.set(`/books/${n}`, `"${n}"`);
  memory.set("/books/1", '"1b"');
  memory.set("/books/4", '"4"');
  assert.equal([1, 2, 3, 4].map((n) => memory.get(`/books/${n}`)), ['"1b"', undefined, '"3"', '"4"']);
  memory.set("/books/3", undefined);
  assert.is(memory.get("/books/3"), undefined);
  assert.is(ETAG_MEMORY, 1000);
  const options: ClientOptions = { baseUrl: "http://x" };
  const shared = etagMemory(options);
  assert.is(etagMemory(options), shared, "one memory per client");
  for (let n = 0; n <= ETAG_MEMORY; n++) shared.set(`/books/${n}`, `"${n}"`);
  assert.is(shared.get("/books/0"), undefined);
  assert.is(shared.get("/books/1"), '"1"');
  assert.is(shared.get(`/books/${ETAG_MEMORY}`), `"${ETAG_MEMORY}"`);
});

test("bearer and basic are sent as before, with no token request", async () => {
  const headers: string[] = [];
  const spy: typeof fetch = async (url, init) => {
    headers.push(`${String(url)} ${(init!.headers as Record<string, string>).authorization}`);
    return new Response("{}", { status: 200 });
  };
  await send({ baseUrl: "http://h/v1/", auth: { bearer: "abc" }, fetch: spy }, { method: "GET", path: "/books", accept: "application/json" });
  await send({ baseUrl: "http://h/v1", auth: { basic: { id: "k", secret: "ü" } }, fetch: spy }, { method: "GET", path: "/books", accept: "application/json" });
  assert.equal(headers, ["http://h/v1/books Bearer abc", `http://h/v1/books Basic ${Buffer.from("k:ü").toString("base64")}`]);
});

test.run();
