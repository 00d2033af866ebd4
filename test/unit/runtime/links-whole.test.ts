/**
 * Links stay whole (CONTRACT §6) and writes are transactions (§5), through inject() on an app over the SQLite
 * store: a delete that links refuse (409 stillLinked), cascades (recursive, cycles, hooks, a refusal deep
 * down undoing everything), cleared links, stored lists dropping a deleted member, the members of a stored
 * list edited one at a time, hooks inside the write's transaction (after* throws undo, ctx.store is the
 * transaction's), the read hook (hidden instances and changed representations everywhere a caller reads),
 * and the same routes over a store without transactions.
 */
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { test } from "uvu";
import * as assert from "uvu/assert";
import type { FastifyInstance, LightMyRequestResponse } from "fastify";
import { BUILTIN_ERRORS } from "../../../src/model/builtin-errors.js";
import { buildApp } from "../../../templates/runtime/app.js";
import type { ResourceHooks } from "../../../templates/runtime/context.js";
import type { ApiError } from "../../../templates/runtime/errors.js";
import { KeyRing, type NewKey } from "../../../templates/runtime/keys.js";
import type { FieldSpec, JsonSchema, ResourceSpec, ServiceSpec } from "../../../templates/runtime/spec.js";
import { openSqliteStore } from "../../../templates/runtime/sqlite-store.js";
import type { Store } from "../../../templates/runtime/store.js";
import { requiredOnly } from "../../helpers/stores.js";

type Json = Record<string, any>;

const BASE = "https://api.example.com/v1";
const DOCS = "https://docs.example.com/errors";
const LINK = { type: "object", required: ["meta"], properties: { meta: { type: "object", required: ["href"], properties: { href: { type: "string", minLength: 1 } } } } };

interface Def {
  readonly name: string;
  readonly collection: string;
  /** Field name → its spec without the name, and the body schema of a plain field. */
  readonly fields: Record<string, { spec: Omit<FieldSpec, "name">; schema?: Json }>;
  readonly required?: string[];
  readonly access?: ResourceSpec["access"];
  readonly owner?: string;
}

const text = { spec: { kind: "string" as const }, schema: { type: "string" } };
const linkTo = (target: string, onDelete?: "cascade" | "clear") => ({ spec: { kind: "link" as const, link: { kind: "instance" as const, target, ...(onDelete ? { onDelete } : {}) } } });
const listOf = (target: string, inverse?: string, bounds: Json = {}) => ({
  spec: { kind: "links" as const, link: { kind: "collection" as const, target, ...(inverse ? { inverse } : {}) } },
  schema: bounds,
});

/**
 * authors ← books.author (required, refuses), books.editor (clear); books ← reviews.book (cascade) ← comments.review
 * (refuses); shelves.books (a stored list of books, at most 3, at least 1); notes.parent → notes (cascade, cycles);
 * memos (x-owner) with a stored list of books.
 */
const DEFS: Def[] = [
  { name: "author", collection: "authors", fields: { name: text, books: listOf("books", "author") }, required: ["name"] },
  { name: "book", collection: "books", fields: { title: text, author: linkTo("authors"), editor: linkTo("authors", "clear") }, required: ["title", "author"] },
  { name: "review", collection: "reviews", fields: { text, book: linkTo("books", "cascade") }, required: ["book"] },
  { name: "comment", collection: "comments", fields: { text, review: linkTo("reviews") }, required: ["review"] },
  {
    name: "shelf",
    collection: "shelves",
    fields: { label: text, books: listOf("books", undefined, { maxItems: 3, minItems: 1 }) },
    required: ["label"],
    access: { update: ["librarian"], admin: ["admin"] },
  },
  { name: "note", collection: "notes", fields: { text, parent: linkTo("notes", "cascade") } },
  { name: "memo", collection: "memos", fields: { text, owner: text, books: listOf("books") }, owner: "owner", access: { admin: ["admin"] } },
];

function resourceOf(def: Def): ResourceSpec {
  const properties: Json = {};
  for (const [name, f] of Object.entries(def.fields)) {
    if (name === def.owner || f.spec.link?.inverse) continue;
    properties[name] = f.spec.kind === "link" ? LINK : f.spec.kind === "links" ? { type: "array", items: LINK, ...f.schema } : f.schema;
  }
  const bodySchema: JsonSchema = { type: "object", additionalProperties: false, ...(def.required ? { required: def.required } : {}), properties };
  return {
    name: def.name,
    collection: def.collection,
    fields: Object.entries(def.fields).map(([name, f]) => ({ name, ...f.spec }) as FieldSpec),
    required: def.required ?? [],
    unique: [],
    access: def.access ?? {},
    owner: def.owner,
    mediaType: `application/vnd.acme.v1.${def.name}+json`,
    collectionMediaType: `application/vnd.acme.v1.${def.collection}+json`,
    bodySchema,
  };
}

const ERRORS = BUILTIN_ERRORS.map((e) => ({ ...e, info: `${DOCS}/${e.code}` }));
const spec: ServiceSpec = {
  name: "links",
  title: "Links",
  vendor: "acme",
  version: 1,
  baseUrl: BASE,
  errorDocsUrl: DOCS,
  auth: { schemes: ["apiKey"], realm: "Links" },
  paging: { defaultLimit: 25, maxLimit: 100 },
  bodyLimit: 1 << 20,
  resources: DEFS.map(resourceOf),
  actions: [],
  errors: ERRORS,
  mediaTypes: [
    { name: "application/vnd.acme.v1.error+json", alias: "application/acme.v1.error.json", subject: "error", kind: "error", version: 1 },
    ...DEFS.flatMap((d) => [
      { name: `application/vnd.acme.v1.${d.name}+json`, alias: `application/acme.v1.${d.name}.json`, subject: d.name, kind: "instance" as const, version: 1 },
      { name: `application/vnd.acme.v1.${d.collection}+json`, alias: `application/acme.v1.${d.collection}.json`, subject: d.collection, kind: "collection" as const, version: 1 },
    ]),
  ],
};

interface Harness {
  readonly app: FastifyInstance;
  readonly store: Store;
  readonly reader: NewKey;
  readonly other: NewKey;
  readonly librarian: NewKey;
  readonly admin: NewKey;
}

type Hooks = Record<string, ResourceHooks<any, any>>;

/** An app over a fresh SQLite file (`transactions: false`: the same store without its transaction capability). */
async function withApp(fn: (h: Harness) => Promise<void>, options: { hooks?: Hooks; transactions?: boolean } = {}): Promise<void> {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), "rsc-links-"));
  const sqlite = openSqliteStore(spec, path.join(dir, "db.sqlite"));
  const store: Store =
    options.transactions === false
      ? { ...requiredOnly(sqlite), immediate: sqlite.immediate }
      : sqlite;
  const keys = KeyRing.memory();
  const h: Harness = {
    store,
    reader: keys.create([]),
    other: keys.create([]),
    librarian: keys.create(["librarian"]),
    admin: keys.create(["admin"]),
    app: await buildApp({ spec, store, keys, hooks: options.hooks ?? {} }),
  };
  try {
    await fn(h);
  } finally {
    await h.app.close();
    await store.close();
    fs.rmSync(dir, { recursive: true, force: true });
  }
}

function call(h: Harness, method: string, p: string, c: { key?: NewKey; body?: unknown } = {}): Promise<LightMyRequestResponse> {
  const headers: Record<string, string> = { authorization: `Bearer ${(c.key ?? h.librarian).secret}` };
  if (c.body !== undefined) headers["content-type"] = "application/json";
  return h.app.inject({ method: method as "GET", url: `/v1${p}`, headers, ...(c.body !== undefined ? { payload: JSON.stringify(c.body) } : {}) });
}

const json = (res: LightMyRequestResponse): Json => JSON.parse(res.body) as Json;
const href = (collection: string, id: string) => `${BASE}/${collection}/${id}`;
const link = (collection: string, id: string) => ({ meta: { href: href(collection, id) } });

function assertError(res: LightMyRequestResponse, key: string, property = ""): Json {
  const e = ERRORS.find((x) => x.key === key)!;
  const body = json(res);
  assert.is(res.statusCode, e.status, `${key}: ${res.body}`);
  assert.equal([body.code, body.property, body.info], [e.code, property, `${DOCS}/${e.code}`], res.body);
  return body;
}

async function create(h: Harness, collection: string, body: Json, key?: NewKey): Promise<Json> {
  const res = await call(h, "POST", `/${collection}`, { body, ...(key ? { key } : {}) });
  assert.is(res.statusCode, 201, res.body);
  return json(res);
}

const exists = async (h: Harness, collection: string, id: string) => (await h.store.get(collection, id)) !== undefined;

// ---------------------------------------------------------------------------------------------------
// Deleting what others link to
// ---------------------------------------------------------------------------------------------------

test("DELETE of an instance another links to: 409 stillLinked naming <collection>.<field>, nothing deleted; 204 once the link is gone", () =>
  withApp(async (h) => {
    const a = await create(h, "authors", { name: "Ann" });
    const b = await create(h, "books", { title: "One", author: link("authors", a.id) });
    const refused = assertError(await call(h, "DELETE", `/authors/${a.id}`), "stillLinked", "books.author");
    assert.is(refused.status, 409);
    assert.is(refused.code, 40901);
    assert.match(refused.message, /author cannot be deleted: books link to it/);
    assert.match(refused.dev, /"x-on-delete"/);
    assert.ok(await exists(h, "authors", a.id));
    assert.is((await call(h, "DELETE", `/books/${b.id}`)).statusCode, 204);
    assert.is((await call(h, "DELETE", `/authors/${a.id}`)).statusCode, 204);
    assertError(await call(h, "GET", `/authors/${a.id}`), "notFound");
  }));

test("x-on-delete clear removes the link from the linking instances (a new modifiedAt); the linking instance stays", () =>
  withApp(async (h) => {
    const a = await create(h, "authors", { name: "Ann" });
    const e = await create(h, "authors", { name: "Ed" });
    const b = await create(h, "books", { title: "One", author: link("authors", a.id), editor: link("authors", e.id) });
    await new Promise((r) => setTimeout(r, 5));
    assert.is((await call(h, "DELETE", `/authors/${e.id}`)).statusCode, 204);
    const after = json(await call(h, "GET", `/books/${b.id}`));
    assert.not.ok("editor" in after, JSON.stringify(after));
    assert.is(after.author.meta.href, href("authors", a.id));
    assert.ok(after.modifiedAt > b.modifiedAt, "the cleared instance changed");
    assert.not.ok("editor" in (await h.store.get("books", b.id))!.data, "the stored data lost the link");
  }));

test("x-on-delete cascade deletes the linking instances, recursively, with their own links' rules; a refusal deep down undoes everything", () =>
  withApp(async (h) => {
    const a = await create(h, "authors", { name: "Ann" });
    const b = await create(h, "books", { title: "One", author: link("authors", a.id) });
    const r1 = await create(h, "reviews", { text: "good", book: link("books", b.id) });
    const r2 = await create(h, "reviews", { text: "bad", book: link("books", b.id) });
    const c = await create(h, "comments", { text: "agreed", review: link("reviews", r2.id) });
    const shelf = await create(h, "shelves", { label: "s", books: [link("books", b.id)] });
    // Deleting the book cascades to its reviews, and a comment on one of them refuses: nothing is deleted.
    assertError(await call(h, "DELETE", `/books/${b.id}`), "stillLinked", "comments.review");
    for (const [collection, id] of [["books", b.id], ["reviews", r1.id], ["reviews", r2.id]] as const) assert.ok(await exists(h, collection, id), `${collection}/${id} is still there`);
    assert.is((await call(h, "DELETE", `/comments/${c.id}`)).statusCode, 204);
    assert.is((await call(h, "DELETE", `/books/${b.id}`)).statusCode, 204);
    for (const [collection, id] of [["books", b.id], ["reviews", r1.id], ["reviews", r2.id]] as const) assert.not.ok(await exists(h, collection, id), `${collection}/${id} is gone`);
    assert.equal((await h.store.get("shelves", shelf.id))!.data.books, [], "the stored list dropped the deleted member");
  }));

test("a cascade through a cycle ends: notes whose parents link round in a ring, and a note that is its own parent", () =>
  withApp(async (h) => {
    const n1 = await create(h, "notes", { text: "1" });
    const n2 = await create(h, "notes", { text: "2", parent: link("notes", n1.id) });
    const n3 = await create(h, "notes", { text: "3", parent: link("notes", n2.id) });
    assert.is((await call(h, "PATCH", `/notes/${n1.id}`, { body: { parent: link("notes", n3.id) } })).statusCode, 200);
    const self = await create(h, "notes", { text: "self" });
    assert.is((await call(h, "PATCH", `/notes/${self.id}`, { body: { parent: link("notes", self.id) } })).statusCode, 200);
    const keep = await create(h, "notes", { text: "keep" });
    assert.is((await call(h, "DELETE", `/notes/${n2.id}`)).statusCode, 204);
    for (const n of [n1, n2, n3]) assert.not.ok(await exists(h, "notes", n.id));
    assert.is((await call(h, "DELETE", `/notes/${self.id}`)).statusCode, 204);
    assert.ok(await exists(h, "notes", keep.id));
  }));

test("stored lists never refuse a delete: every list that holds the deleted instance drops it", () =>
  withApp(async (h) => {
    const a = await create(h, "authors", { name: "Ann" });
    const b1 = await create(h, "books", { title: "One", author: link("authors", a.id) });
    const b2 = await create(h, "books", { title: "Two", author: link("authors", a.id) });
    const s1 = await create(h, "shelves", { label: "s1", books: [link("books", b1.id), link("books", b2.id)] });
    const s2 = await create(h, "shelves", { label: "s2", books: [link("books", b2.id)] });
    const memo = await create(h, "memos", { text: "m", books: [link("books", b2.id)] }, h.other);
    assert.is((await call(h, "DELETE", `/books/${b2.id}`)).statusCode, 204);
    assert.equal((await h.store.get("shelves", s1.id))!.data.books, [b1.id]);
    assert.equal((await h.store.get("shelves", s2.id))!.data.books, [], "below minItems: a delete is never refused by a list");
    assert.equal((await h.store.get("memos", memo.id))!.data.books, [], "also another key's instance");
    assert.equal(json(await call(h, "GET", `/shelves/${s1.id}/books`)).items.map((i: Json) => i.title), ["One"]);
  }));

test("cascaded instances run their delete hooks inside the transaction: an afterDelete throw undoes the whole delete and answers its error", () => {
  const seen: string[] = [];
  let refuse = true;
  const hooks: Hooks = {
    books: { beforeDelete: (b) => void seen.push(`before book ${b.title}`), afterDelete: (b) => void seen.push(`after book ${b.title}`) },
    reviews: {
      beforeDelete: (r) => void seen.push(`before review ${r.text}`),
      afterDelete: (r, ctx) => {
        seen.push(`after review ${r.text}`);
        if (refuse) throw ctx.error("conflict", "text", "Reviews are kept.");
      },
    },
  };
  return withApp(
    async (h) => {
      const a = await create(h, "authors", { name: "Ann" });
      const b = await create(h, "books", { title: "One", author: link("authors", a.id) });
      const r = await create(h, "reviews", { text: "good", book: link("books", b.id) });
      const refused = assertError(await call(h, "DELETE", `/books/${b.id}`), "conflict", "text");
      assert.is(refused.dev, "Reviews are kept.");
      assert.equal(seen, ["before book One", "before review good", "after review good"]);
      assert.ok(await exists(h, "books", b.id));
      assert.ok(await exists(h, "reviews", r.id));
      refuse = false;
      seen.length = 0;
      assert.is((await call(h, "DELETE", `/books/${b.id}`)).statusCode, 204);
      assert.equal(seen, ["before book One", "before review good", "after review good", "after book One"]);
    },
    { hooks },
  );
});

// ---------------------------------------------------------------------------------------------------
// The members of a stored list
// ---------------------------------------------------------------------------------------------------

test("POST <instance>/<list> adds a member (201, Location, the member), again 200; DELETE <instance>/<list>/<id> removes it (204), again 404", () =>
  withApp(async (h) => {
    const a = await create(h, "authors", { name: "Ann" });
    const b1 = await create(h, "books", { title: "One", author: link("authors", a.id) });
    const b2 = await create(h, "books", { title: "Two", author: link("authors", a.id) });
    const shelf = await create(h, "shelves", { label: "s", books: [link("books", b1.id)] });
    const added = await call(h, "POST", `/shelves/${shelf.id}/books`, { body: link("books", b2.id) });
    assert.is(added.statusCode, 201, added.body);
    assert.is(added.headers.location, href("books", b2.id));
    assert.is(added.headers["content-type"], "application/json; charset=utf-8");
    assert.equal(json(added), b2);
    const again = await call(h, "POST", `/shelves/${shelf.id}/books`, { body: { meta: { href: `/v1/books/${b2.id}` } } });
    assert.is(again.statusCode, 200, again.body);
    assert.is(again.headers.location, undefined);
    assert.equal(json(await call(h, "GET", `/shelves/${shelf.id}/books`)).items.map((i: Json) => i.title), ["One", "Two"]);
    const modified = json(await call(h, "GET", `/shelves/${shelf.id}`)).modifiedAt;
    assert.ok(modified > shelf.modifiedAt || modified === shelf.modifiedAt);

    assert.is((await call(h, "DELETE", `/shelves/${shelf.id}/books/${b1.id}`)).statusCode, 204);
    assert.equal(json(await call(h, "GET", `/shelves/${shelf.id}/books`)).items.map((i: Json) => i.title), ["Two"]);
    const notMember = assertError(await call(h, "DELETE", `/shelves/${shelf.id}/books/${b1.id}`), "notFound");
    assert.match(notMember.dev, /is not one of the books of this shelf/);
    assertError(await call(h, "DELETE", `/shelves/nope/books/${b1.id}`), "notFound");
    // minItems and maxItems of the list hold as for any update.
    assertError(await call(h, "DELETE", `/shelves/${shelf.id}/books/${b2.id}`), "invalidProperty", "books");
    const b3 = await create(h, "books", { title: "Three", author: link("authors", a.id) });
    const b4 = await create(h, "books", { title: "Four", author: link("authors", a.id) });
    const b5 = await create(h, "books", { title: "Five", author: link("authors", a.id) });
    for (const b of [b3, b4]) assert.is((await call(h, "POST", `/shelves/${shelf.id}/books`, { body: link("books", b.id) })).statusCode, 201);
    assertError(await call(h, "POST", `/shelves/${shelf.id}/books`, { body: link("books", b5.id) }), "invalidProperty", "books");
    assert.equal((await h.store.get("shelves", shelf.id))!.data.books, [b2.id, b3.id, b4.id]);
  }));

test("a member POST checks its link like any write: shape, host, collection, existence; the same access as an update", () =>
  withApp(async (h) => {
    const a = await create(h, "authors", { name: "Ann" });
    const b = await create(h, "books", { title: "One", author: link("authors", a.id) });
    const shelf = await create(h, "shelves", { label: "s", books: [link("books", b.id)] });
    const at = `/shelves/${shelf.id}/books`;
    assertError(await call(h, "POST", at, { body: {} }), "missingProperty", "meta");
    assertError(await call(h, "POST", at, { body: { meta: {} } }), "missingProperty", "meta.href");
    assertError(await call(h, "POST", at, { body: { meta: { href: 5 } } }), "invalidProperty", "meta.href");
    assertError(await call(h, "POST", at, { body: [] }), "invalidProperty");
    assert.match(assertError(await call(h, "POST", at, { body: { meta: { href: `https://elsewhere.example/v1/books/${b.id}` } } }), "invalidLink", "books").dev, /another host/);
    assert.match(assertError(await call(h, "POST", at, { body: link("authors", a.id) }), "invalidLink", "books").dev, /not the href of an instance of books/);
    assert.match(assertError(await call(h, "POST", at, { body: link("books", "nope") }), "invalidLink", "books").dev, /names no existing book/);
    const raw = await h.app.inject({ method: "POST", url: `/v1${at}`, headers: { authorization: `Bearer ${h.librarian.secret}`, "content-type": "text/plain" }, payload: "x" });
    assertError(raw, "unsupportedMediaType");
    // x-access update: librarian or admin.
    assertError(await call(h, "POST", at, { key: h.reader, body: link("books", b.id) }), "forbidden");
    assertError(await call(h, "DELETE", `${at}/${b.id}`, { key: h.reader }), "forbidden");
    // x-owner: another key's memo is refused, the owner's and an admin's accepted.
    const memo = await create(h, "memos", { text: "m" }, h.other);
    assertError(await call(h, "POST", `/memos/${memo.id}/books`, { key: h.reader, body: link("books", b.id) }), "forbidden");
    assert.is((await call(h, "POST", `/memos/${memo.id}/books`, { key: h.other, body: link("books", b.id) })).statusCode, 201);
    assert.is((await call(h, "DELETE", `/memos/${memo.id}/books/${b.id}`, { key: h.admin })).statusCode, 204);
    // An inverse collection stays read-only.
    const inverse = await call(h, "POST", `/authors/${a.id}/books`, { body: link("books", b.id) });
    assertError(inverse, "methodNotAllowed");
    assert.is(inverse.headers.allow, "GET, HEAD");
    assertError(await call(h, "DELETE", `/authors/${a.id}/books/${b.id}`), "routeNotFound");
  }));

test("a member added or removed is an update: beforeUpdate sees the whole new input and may refuse, afterUpdate the result", () => {
  const seen: Json[] = [];
  const hooks: Hooks = {
    shelves: {
      beforeUpdate: (input, current, ctx) => {
        seen.push({ before: input.books.length, current: current.label });
        if (input.books.length > 2) throw ctx.error("invalidProperty", "books", "Two books per shelf.");
      },
      afterUpdate: (instance) => void seen.push({ after: instance.label }),
    },
  };
  return withApp(
    async (h) => {
      const a = await create(h, "authors", { name: "Ann" });
      const [b1, b2, b3] = [await create(h, "books", { title: "1", author: link("authors", a.id) }), await create(h, "books", { title: "2", author: link("authors", a.id) }), await create(h, "books", { title: "3", author: link("authors", a.id) })];
      const shelf = await create(h, "shelves", { label: "s", books: [link("books", b1!.id)] });
      assert.is((await call(h, "POST", `/shelves/${shelf.id}/books`, { body: link("books", b2!.id) })).statusCode, 201);
      assert.is(assertError(await call(h, "POST", `/shelves/${shelf.id}/books`, { body: link("books", b3!.id) }), "invalidProperty", "books").dev, "Two books per shelf.");
      assert.is((await call(h, "DELETE", `/shelves/${shelf.id}/books/${b1!.id}`)).statusCode, 204);
      assert.equal(seen, [{ before: 2, current: "s" }, { after: "s" }, { before: 3, current: "s" }, { before: 1, current: "s" }, { after: "s" }]);
      assert.equal((await h.store.get("shelves", shelf.id))!.data.books, [b2!.id]);
    },
    { hooks },
  );
});

// ---------------------------------------------------------------------------------------------------
// Hooks in the write's transaction
// ---------------------------------------------------------------------------------------------------

test("after* hooks run inside the write's transaction: a throw undoes the write and answers the error (ApiError: its body; else 500)", () => {
  const fail: { on?: string; with?: "api" | "plain" } = {};
  const thrower = (on: string) => (_x: unknown, ctx: { error: (k: string, p?: string, d?: string) => ApiError }) => {
    if (fail.on !== on) return;
    if (fail.with === "api") throw ctx.error("conflict", "name", `refused in ${on}`);
    throw new Error(`secret detail of ${on}`);
  };
  const hooks: Hooks = { authors: { afterCreate: thrower("afterCreate"), afterUpdate: thrower("afterUpdate"), afterDelete: thrower("afterDelete") } };
  return withApp(
    async (h) => {
      fail.on = "afterCreate";
      fail.with = "api";
      assert.is(assertError(await call(h, "POST", "/authors", { body: { name: "Ann" } }), "conflict", "name").dev, "refused in afterCreate");
      assert.is((await h.store.list("authors", { offset: 0, limit: 10 })).size, 0, "the create was undone");
      fail.with = "plain";
      const internal = await call(h, "POST", "/authors", { body: { name: "Ann" } });
      assertError(internal, "internal");
      assert.not.match(internal.body, /secret detail/);
      assert.is((await h.store.list("authors", { offset: 0, limit: 10 })).size, 0);
      fail.on = undefined;
      const a = await create(h, "authors", { name: "Ann" });
      fail.on = "afterUpdate";
      assertError(await call(h, "PATCH", `/authors/${a.id}`, { body: { name: "Changed" } }), "internal");
      assert.is((await h.store.get("authors", a.id))!.data.name, "Ann", "the update was undone");
      fail.on = "afterDelete";
      fail.with = "api";
      assertError(await call(h, "DELETE", `/authors/${a.id}`), "conflict", "name");
      assert.ok(await exists(h, "authors", a.id), "the delete was undone");
    },
    { hooks },
  );
});

test("ctx.store in a write's hooks is the transaction's: what hooks write commits with the write or rolls back with it", () => {
  let refuse = false;
  const hooks: Hooks = {
    books: {
      beforeCreate: async (input, ctx) => {
        // A hook reads through the transaction: it sees what the write has not committed yet.
        await ctx.store.insert("notes", { id: `note-${input.title}`, createdAt: "2024-01-01T00:00:00.000Z", modifiedAt: "2024-01-01T00:00:00.000Z", data: { text: `about ${input.title}` } });
        assert.ok(await ctx.store.get("notes", `note-${input.title}`));
      },
      afterCreate: (_book, ctx) => {
        if (refuse) throw ctx.error("invalidProperty", "title");
      },
    },
  };
  return withApp(
    async (h) => {
      const a = await create(h, "authors", { name: "Ann" });
      await create(h, "books", { title: "kept", author: link("authors", a.id) });
      assert.ok(await exists(h, "notes", "note-kept"));
      refuse = true;
      assertError(await call(h, "POST", "/books", { body: { title: "undone", author: link("authors", a.id) } }), "invalidProperty", "title");
      assert.not.ok(await exists(h, "notes", "note-undone"), "the hook's write rolled back with the create");
    },
    { hooks },
  );
});

test("a before* hook's throw writes nothing", () =>
  withApp(
    async (h) => {
      assertError(await call(h, "POST", "/authors", { body: { name: "Ann" } }), "forbidden");
      assert.is((await h.store.list("authors", { offset: 0, limit: 1 })).size, 0);
    },
    { hooks: { authors: { beforeCreate: (_i, ctx) => { throw ctx.error("forbidden"); } } } },
  ));

// ---------------------------------------------------------------------------------------------------
// The read hook
// ---------------------------------------------------------------------------------------------------

/** Books titled "secret…" are the librarian's only; everyone else sees titles in capitals, and no editor. */
const readHooks: Hooks = {
  books: {
    read: (book, ctx) => {
      if (String(book.title).startsWith("secret") && !ctx.caller.roles.includes("librarian")) return false;
      if (ctx.caller.roles.includes("librarian")) return;
      const { editor: _hidden, ...shown } = book;
      return { ...shown, title: String(book.title).toUpperCase(), meta: { href: "https://evil.example/" } };
    },
  },
};

test("a read hook: a hidden instance answers 403 as another key's x-owner instance does, to reads and writes alike", () =>
  withApp(
    async (h) => {
      const a = await create(h, "authors", { name: "Ann" });
      const secret = await create(h, "books", { title: "secret plans", author: link("authors", a.id) });
      const forbidden = assertError(await call(h, "GET", `/books/${secret.id}`, { key: h.reader }), "forbidden");
      assert.match(forbidden.dev, /not visible to this key/);
      assertError(await call(h, "GET", `/books/${secret.id}?fields=title`, { key: h.reader }), "forbidden");
      assertError(await call(h, "PATCH", `/books/${secret.id}`, { key: h.reader, body: { title: "x" } }), "forbidden");
      assertError(await call(h, "DELETE", `/books/${secret.id}`, { key: h.reader }), "forbidden");
      assert.is(json(await call(h, "GET", `/books/${secret.id}`)).title, "secret plans", "the librarian sees it");
      // A body may not link to what its caller cannot see.
      const shelf = await create(h, "memos", { text: "mine" }, h.reader);
      assertError(await call(h, "POST", `/memos/${shelf.id}/books`, { key: h.reader, body: link("books", secret.id) }), "invalidLink", "books");
      assertError(await call(h, "POST", "/reviews", { key: h.reader, body: { book: link("books", secret.id) } }), "invalidLink", "book");
      assert.is((await call(h, "POST", "/reviews", { body: { book: link("books", secret.id) } })).statusCode, 201);
    },
    { hooks: readHooks },
  ));

test("a read hook: changed representations, meta kept; hidden instances left out of pages (offset, limit, size count shown ones), sub-collections and expansions", () =>
  withApp(
    async (h) => {
      const a = await create(h, "authors", { name: "Ann" });
      const e = await create(h, "authors", { name: "Ed" });
      const books: Json[] = [];
      for (const title of ["one", "secret two", "three", "secret four", "five"]) books.push(await create(h, "books", { title, author: link("authors", a.id), editor: link("authors", e.id) }));
      const one = json(await call(h, "GET", `/books/${books[0]!.id}`, { key: h.reader }));
      assert.equal(one, { meta: books[0]!.meta, id: books[0]!.id, createdAt: books[0]!.createdAt, modifiedAt: books[0]!.modifiedAt, title: "ONE", author: books[0]!.author });
      assert.equal(json(await call(h, "GET", `/books/${books[0]!.id}?fields=title,editor`, { key: h.reader })), { meta: books[0]!.meta, title: "ONE" });
      assert.equal(json(await call(h, "GET", `/books/${books[0]!.id}?expand=editor`, { key: h.reader })).editor, undefined, "a link the hook left out is not expanded back");

      const page = json(await call(h, "GET", "/books?limit=2", { key: h.reader }));
      assert.equal([page.size, page.items.map((i: Json) => i.title)], [3, ["ONE", "THREE"]]);
      const next = json(await call(h, "GET", "/books?limit=2&offset=2", { key: h.reader }));
      assert.equal([next.size, next.items.map((i: Json) => i.title)], [3, ["FIVE"]]);
      assert.equal(json(await call(h, "GET", "/books?limit=2&offset=2")).size, 5, "the librarian sees all");

      const sub = json(await call(h, "GET", `/authors/${a.id}/books?fields=title`, { key: h.reader }));
      assert.equal([sub.size, sub.items.map((i: Json) => i.title)], [3, ["ONE", "THREE", "FIVE"]]);
      const expanded = json(await call(h, "GET", `/authors/${a.id}?expand=books`, { key: h.reader }));
      assert.equal([expanded.books.size, expanded.books.items.map((i: Json) => i.title)], [3, ["ONE", "THREE", "FIVE"]]);
      const review = await create(h, "reviews", { text: "r", book: link("books", books[1]!.id) });
      const viaReview = json(await call(h, "GET", `/reviews/${review.id}?expand=book`, { key: h.reader }));
      assert.equal(viaReview.book, { meta: books[1]!.meta }, "a hidden instance expands to its plain link");
      const shown = json(await call(h, "GET", `/reviews/${review.id}?expand=book`));
      assert.is(shown.book.title, "secret two");

      // The answer of a write goes through the hook too.
      const made = await create(h, "books", { title: "six", author: link("authors", a.id) }, h.reader);
      assert.is(made.title, "SIX");
      const hiddenMade = await call(h, "POST", "/books", { key: h.reader, body: { title: "secret seven", author: link("authors", a.id) } });
      assert.is(hiddenMade.statusCode, 201);
      assert.equal(Object.keys(json(hiddenMade)), ["meta"], "only the href of what the caller may not see");
    },
    { hooks: readHooks },
  ));

test("a read hook that answers later (async) or throws: the same rules; a throw answers its error", () =>
  withApp(
    async (h) => {
      const a = await create(h, "authors", { name: "Ann" });
      const visible = await create(h, "books", { title: "one", author: link("authors", a.id) });
      const secret = await create(h, "books", { title: "secret", author: link("authors", a.id) });
      const boom = await create(h, "books", { title: "boom", author: link("authors", a.id) });
      assert.is(json(await call(h, "GET", `/books/${visible.id}`, { key: h.reader })).title, "one!");
      assertError(await call(h, "GET", `/books/${secret.id}`, { key: h.reader }), "forbidden");
      assert.is(assertError(await call(h, "GET", `/books/${boom.id}`, { key: h.reader }), "invalidProperty", "title").dev, "no booms");
      assertError(await call(h, "GET", "/books", { key: h.reader }), "invalidProperty", "title");
    },
    {
      hooks: {
        books: {
          read: async (book, ctx) => {
            await new Promise((r) => setTimeout(r, 1));
            if (ctx.caller.roles.includes("librarian")) return;
            if (book.title === "boom") throw ctx.error("invalidProperty", "title", "no booms");
            return book.title === "secret" ? false : { ...book, title: `${book.title}!` };
          },
        },
      },
    },
  ));

// ---------------------------------------------------------------------------------------------------
// A store without transactions
// ---------------------------------------------------------------------------------------------------

test("over a store without transactions the same routes answer the same (each write standing on its own)", () =>
  withApp(
    async (h) => {
      const a = await create(h, "authors", { name: "Ann" });
      const b = await create(h, "books", { title: "One", author: link("authors", a.id) });
      const r = await create(h, "reviews", { text: "good", book: link("books", b.id) });
      const shelf = await create(h, "shelves", { label: "s", books: [link("books", b.id)] });
      assertError(await call(h, "DELETE", `/authors/${a.id}`), "stillLinked", "books.author");
      assert.is((await call(h, "DELETE", `/books/${b.id}`)).statusCode, 204);
      assert.not.ok(await exists(h, "reviews", r.id));
      assert.equal((await h.store.get("shelves", shelf.id))!.data.books, []);
      const b2 = await create(h, "books", { title: "Two", author: link("authors", a.id) });
      assert.is((await call(h, "POST", `/shelves/${shelf.id}/books`, { body: link("books", b2.id) })).statusCode, 201);
    },
    { transactions: false },
  ));

test.run();
