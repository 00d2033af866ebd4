/**
 * Several versions served at once (CONTRACT §7) by the runtime, in process: the spec resourcery emits for a
 * library whose version 3 renamed, added and retired properties of version 2 (served until its sunset),
 * over an in-memory SQLite store, through inject(). What one version writes the other reads; names,
 * hrefs, media types, fields/expand, errors and headers are each version's own.
 */
import fs from "node:fs";
import { test } from "uvu";
import * as assert from "uvu/assert";
import type { FastifyInstance, LightMyRequestResponse } from "fastify";
import { checkProject } from "../../../src/pipeline.js";
import { catalogOf } from "../../../src/emit/errors.js";
import { specOf } from "../../../src/emit/spec.js";
import { buildApp } from "../../../templates/runtime/app.js";
import { KeyRing, type NewKey } from "../../../templates/runtime/keys.js";
import type { ServiceSpec } from "../../../templates/runtime/spec.js";
import { openSqliteStore } from "../../../templates/runtime/sqlite-store.js";
import type { Store } from "../../../templates/runtime/store.js";
import { VERSIONED_DEFS, writeDefs } from "../../helpers/versioned-library.js";

type Json = Record<string, any>;

function specFrom(defs: Record<string, unknown>): ServiceSpec {
  const dir = writeDefs(defs);
  try {
    const result = checkProject(dir);
    assert.equal(result.diagnostics.filter((d) => d.severity === "error"), [], "the definitions check clean");
    const model = result.model!;
    return { ...(specOf(model) as unknown as ServiceSpec), errors: catalogOf(model), mediaTypes: model.mediaTypes } as ServiceSpec;
  } finally {
    fs.rmSync(dir, { recursive: true, force: true });
  }
}

const spec = specFrom(VERSIONED_DEFS);
const ORIGIN = "http://localhost:3000";
const V2 = "application/vnd.library.v2.book+json";
const V3 = "application/vnd.library.v3.book+json";

interface Harness {
  readonly app: FastifyInstance;
  readonly store: Store;
  readonly key: NewKey;
}

async function withApp(fn: (h: Harness) => Promise<void>, baseUrl?: string): Promise<void> {
  const store = openSqliteStore(spec, ":memory:");
  const keys = KeyRing.memory();
  const h = { app: await buildApp({ spec, store, keys, baseUrl }), store, key: keys.create([]) };
  try {
    await fn(h);
  } finally {
    await h.app.close();
    await store.close();
  }
}

async function call(h: Harness, method: string, url: string, body?: unknown, headers: Record<string, string> = {}): Promise<LightMyRequestResponse> {
  return h.app.inject({
    method: method as "GET",
    url,
    headers: { authorization: `Bearer ${h.key.secret}`, ...(body === undefined ? {} : { "content-type": "application/json" }), ...headers },
    ...(body === undefined ? {} : { payload: JSON.stringify(body) }),
  });
}
const json = (r: LightMyRequestResponse): Json => JSON.parse(r.body);

test("a version-2 create is read in version 3 and back: names, defaults, retired properties, hrefs, media types", async () => {
  await withApp(async (h) => {
    const author = await call(h, "POST", "/v2/authors", { name: "Le Guin" });
    assert.is(author.statusCode, 201, author.body);
    assert.is(json(author).meta.href.startsWith(`${ORIGIN}/v2/authors/`), true, "a version-2 href");
    assert.is(json(author).name, "Le Guin");
    const created = await call(h, "POST", "/v2/books", { name: "Earthsea", shelfMark: "F-12", author: { meta: { href: json(author).meta.href } } });
    assert.is(created.statusCode, 201, created.body);
    const c = json(created);
    assert.is(created.headers["content-type"], "application/json; charset=utf-8");
    assert.is(c.meta.mediaType, V2);
    assert.is(c.name, "Earthsea");
    assert.is(c.shelfMark, "F-12");
    assert.is(c.format, undefined, "version 2 has no format");
    assert.is(c.title, undefined);
    assert.ok(String(created.headers.location).startsWith(`${ORIGIN}/v2/books/`));
    assert.is(created.headers.deprecation, `@${Date.parse("2026-11-01T00:00:00Z") / 1000}`);
    assert.is(created.headers.sunset, "Wed, 30 Jun 2027 23:59:59 GMT");

    const id = c.id as string;
    const v3 = await call(h, "GET", `/v3/books/${id}`);
    assert.is(v3.statusCode, 200, v3.body);
    const b = json(v3);
    assert.is(b.title, "Earthsea");
    assert.is(b.format, "paper", "the default of a property version 2 lacks");
    assert.is(b.shelfMark, undefined, "retired after version 2: not in version 3");
    assert.is(b.meta.mediaType, V3);
    assert.is(b.author.meta.href.startsWith(`${ORIGIN}/v3/authors/`), true);
    assert.is(v3.headers.deprecation, undefined);
    assert.is(v3.headers.sunset, undefined);

    // Version 3 writes; version 2 reads its names and keeps what version 3 cannot see.
    const patched = await call(h, "PATCH", `/v3/books/${id}`, { title: "A Wizard of Earthsea", format: "ebook" }, { "content-type": "application/merge-patch+json" });
    assert.is(patched.statusCode, 200, patched.body);
    const back = json(await call(h, "GET", `/v2/books/${id}`));
    assert.is(back.name, "A Wizard of Earthsea");
    assert.is(back.shelfMark, "F-12", "a version-3 write keeps what only version 2 has");
    // A version-2 replace keeps what only version 3 has.
    const replaced = await call(h, "PUT", `/v2/books/${id}`, { name: "Tehanu", author: { meta: { href: json(author).meta.href } } });
    assert.is(replaced.statusCode, 200, replaced.body);
    assert.is(json(await call(h, "GET", `/v3/books/${id}`)).format, "ebook");
  });
});

test("the version from Accept (both shapes, version=N), the path's, and 406 when they disagree or it is unknown", async () => {
  await withApp(async (h) => {
    const author = json(await call(h, "POST", "/v3/authors", { fullName: "Banks" }));
    const id = author.id as string;
    const vnd = await call(h, "GET", `/v2/authors/${id}`, undefined, { accept: "application/vnd.library.v2.author+json" });
    assert.is(vnd.statusCode, 200, vnd.body);
    assert.is(vnd.headers["content-type"], "application/vnd.library.v2.author+json");
    assert.is(json(vnd).name, "Banks");
    const alias = await call(h, "GET", `/v2/authors/${id}`, undefined, { accept: "application/library.v2.author.json" });
    assert.is(alias.headers["content-type"], "application/library.v2.author.json");
    const param = await call(h, "GET", `/v2/authors/${id}`, undefined, { accept: "application/json; version=2" });
    assert.is(param.statusCode, 200, param.body);
    assert.is(json(param).name, "Banks");
    const disagree = await call(h, "GET", `/v3/authors/${id}`, undefined, { accept: "application/vnd.library.v2.author+json" });
    assert.is(disagree.statusCode, 406, disagree.body);
    assert.is(json(disagree).code !== undefined, true);
    const unknown = await call(h, "GET", `/v3/authors/${id}`, undefined, { accept: "application/json; version=7" });
    assert.is(unknown.statusCode, 406);
    const noPrefix = await call(h, "GET", `/v1/authors/${id}`);
    assert.is(noPrefix.statusCode, 404, "version 1 is not served");
    const later = await call(h, "GET", "/v2/reviews");
    assert.is(later.statusCode, 404, "reviews came with version 3");
    assert.is((await call(h, "GET", "/v3/reviews")).statusCode, 200);
  });
});

test("fields and expand in the version's names; expanded links and pages converted; errors name the version's properties", async () => {
  await withApp(async (h) => {
    const author = json(await call(h, "POST", "/v2/authors", { name: "Pratchett" }));
    const book = json(await call(h, "POST", "/v2/books", { name: "Mort", isbn: "1", author: { meta: { href: author.meta.href } } }));
    const got = await call(h, "GET", `/v2/books/${book.id}?fields=name,author(name)`);
    assert.is(got.statusCode, 200, got.body);
    assert.equal(Object.keys(json(got)).sort(), ["author", "meta", "name"]);
    assert.is(json(got).author.name, "Pratchett");
    assert.is(json(got).author.meta.mediaType, "application/vnd.library.v2.author+json");
    assert.is((await call(h, "GET", `/v2/books/${book.id}?fields=title`)).statusCode, 400, "title is version 3's name");
    assert.is((await call(h, "GET", `/v3/books/${book.id}?fields=shelfMark`)).statusCode, 400, "shelfMark is gone in version 3");
    const page = json(await call(h, "GET", `/v2/authors/${author.id}?expand=books`));
    assert.is(page.books.meta.mediaType, "application/vnd.library.v2.books+json");
    assert.is(page.books.items[0].name, "Mort");
    const list = json(await call(h, "GET", "/v2/books"));
    assert.is(list.meta.href, `${ORIGIN}/v2/books`);
    assert.is(list.meta.mediaType, "application/vnd.library.v2.books+json");
    assert.is(list.items[0].name, "Mort");
    // A renamed stored list of links: its sub-collection and members under version 2's name.
    assert.is(json(await call(h, "GET", `/v2/authors/${author.id}`)).liked.meta.href, `${author.meta.href}/liked`);
    const member = await call(h, "POST", `/v2/authors/${author.id}/liked`, { meta: { href: author.meta.href } });
    assert.is(member.statusCode, 201, member.body);
    assert.is(json(member).name, "Pratchett");
    assert.is(json(await call(h, "GET", `/v2/authors/${author.id}?fields=liked`)).liked.meta.href, `${author.meta.href}/liked`);
    const liked = json(await call(h, "GET", `/v2/authors/${author.id}/liked`));
    assert.is(liked.items.length, 1);
    assert.is(liked.meta.href, `${author.meta.href}/liked`);
    assert.is((await call(h, "GET", `/v3/authors/${author.id}/liked`)).statusCode, 404, "version 3 calls it favourites");
    assert.is(json(await call(h, "GET", `/v3/authors/${author.id}/favourites`)).items.length, 1);
    // Errors: a validation error and a conflict, each under version 2's name.
    const bad = await call(h, "POST", "/v2/books", { name: "", author: { meta: { href: author.meta.href } } });
    assert.is(bad.statusCode, 400);
    assert.is(json(bad).property, "name");
    const taken = await call(h, "POST", "/v2/books", { name: "Other", isbn: "1", author: { meta: { href: author.meta.href } } });
    assert.is(taken.statusCode, 409, taken.body);
    assert.is(json(taken).property, "isbn");
    const v3Error = await call(h, "POST", "/v2/books", { title: "Mort", author: { meta: { href: author.meta.href } } });
    assert.is(v3Error.statusCode, 400, "title is not a version-2 property");
  });
});

test("a base URL without a version segment: one set of paths, the version from Accept alone, hrefs alike", async () => {
  await withApp(async (h) => {
    const created = await call(h, "POST", "/api/authors", { name: "Jemisin" }, { accept: "application/vnd.library.v2.author+json" });
    assert.is(created.statusCode, 201, created.body);
    const a = json(created);
    assert.is(a.meta.href.startsWith(`${ORIGIN}/api/authors/`), true);
    assert.is(a.name, "Jemisin");
    assert.is(created.headers["content-type"], "application/vnd.library.v2.author+json");
    const current = json(await call(h, "GET", `/api/authors/${a.id}`));
    assert.is(current.fullName, "Jemisin");
    assert.is(current.meta.mediaType, "application/vnd.library.v3.author+json");
    const asked = json(await call(h, "GET", `/api/authors/${a.id}`, undefined, { accept: "application/json; version=2" }));
    assert.is(asked.name, "Jemisin");
    assert.is((await call(h, "GET", `/v2/authors/${a.id}`)).statusCode, 404, "no version prefixes");
  }, `${ORIGIN}/api`);
});

test.run();
