/**
 * The Fastify application of a generated service (templates/runtime/app.ts), built from a hand-written
 * ServiceSpec of a small library (authors, books, shelves, notes, the convert action) over an in-memory
 * SQLite store and key ring, and exercised through inject() row by row of CONTRACT.md section 3: routes,
 * representations, expand and fields, media types, errors, authentication and authorization; plus runs
 * over a real socket (HTTP, and HTTPS for Basic) and a BASE_URL-style base URL override.
 */
import fs from "node:fs";
import https from "node:https";
import os from "node:os";
import path from "node:path";
import Database from "better-sqlite3";
import { test } from "uvu";
import * as assert from "uvu/assert";
import type { FastifyInstance, LightMyRequestResponse } from "fastify";
import { pino } from "pino";
import { buildApp, type AppOptions } from "../../../templates/runtime/app.js";
import { newId } from "../../../templates/runtime/ids.js";
import { ApiError } from "../../../templates/runtime/errors.js";
import { KeyRing, type NewKey } from "../../../templates/runtime/keys.js";
import type { ResourceSpec, ServiceSpec } from "../../../templates/runtime/spec.js";
import { openSqliteStore } from "../../../templates/runtime/sqlite-store.js";
import type { Store } from "../../../templates/runtime/store.js";
import { requiredOnly } from "../../helpers/stores.js";
import { assertError, BASE, call, createAuthor, createBook, DOCS, ERROR_KEYS, ERRORS, href, json, link, P, REALM, spec, withApp, type Harness, type Json } from "../../helpers/library-app.js";

// ---------------------------------------------------------------------------------------------------
// Routes
// ---------------------------------------------------------------------------------------------------

test("POST to a collection: 201, Location, the new instance with meta { href, mediaType }", () =>
  withApp(async (h) => {
    const res = await call(h, "POST", "/authors", { body: { name: "Ursula", born: 1929 } });
    assert.is(res.statusCode, 201);
    assert.ok(String(res.headers["content-type"]).startsWith("application/json"));
    const body = json(res);
    assert.type(body.id, "string");
    assert.is(res.headers.location, href("authors", body.id));
    assert.equal(body.meta, { href: href("authors", body.id), mediaType: "application/vnd.acme.v1.author+json" });
    assert.is(body.name, "Ursula");
    assert.is(body.born, 1929);
    assert.ok(!Number.isNaN(Date.parse(body.createdAt)));
    assert.is(body.modifiedAt, body.createdAt);
    assert.equal(body.books, { meta: { href: `${href("authors", body.id)}/books`, mediaType: "application/vnd.acme.v1.books+json" } });

    const book = await createBook(h, "Earthsea", body.id, { isbn: "978-0547773742", pages: 183 });
    assert.equal(book.author, { meta: { href: href("authors", body.id), mediaType: "application/vnd.acme.v1.author+json" } });
  }));

test("GET an instance and a collection: shapes { meta, offset, limit, size, items }", () =>
  withApp(async (h) => {
    const a = await createAuthor(h, "Ann");
    await createAuthor(h, "Bob");
    const one = await call(h, "GET", `/authors/${a.id}`);
    assert.is(one.statusCode, 200);
    assert.equal(json(one), a);

    const list = await call(h, "GET", "/authors");
    assert.is(list.statusCode, 200);
    const page = json(list);
    assert.equal(Object.keys(page).sort(), ["items", "limit", "meta", "offset", "size"]);
    assert.equal(page.meta, { href: href("authors"), mediaType: "application/vnd.acme.v1.authors+json" });
    assert.is(page.offset, 0);
    assert.is(page.limit, 25);
    assert.is(page.size, 2);
    assert.equal(
      page.items.map((i: Json) => i.name),
      ["Ann", "Bob"],
    );
    assert.equal(page.items[0], a);
  }));

test("paging: default and maximum limit, offset, and 400 invalidPaging naming offset or limit", () =>
  withApp(async (h) => {
    for (let i = 0; i < 105; i++) await h.store.insert("authors", { id: `a${String(i).padStart(3, "0")}`, createdAt: new Date(1e12 + i).toISOString(), modifiedAt: new Date(1e12 + i).toISOString(), data: { name: `n${i}` } });
    const def = json(await call(h, "GET", "/authors"));
    assert.is(def.limit, 25);
    assert.is(def.items.length, 25);
    assert.is(def.size, 105);
    const max = json(await call(h, "GET", "/authors?limit=100&offset=0"));
    assert.is(max.items.length, 100);
    const tail = json(await call(h, "GET", "/authors?offset=100&limit=10"));
    assert.is(tail.offset, 100);
    assert.is(tail.limit, 10);
    assert.equal(
      tail.items.map((i: Json) => i.id),
      ["a100", "a101", "a102", "a103", "a104"],
    );
    const beyond = json(await call(h, "GET", "/authors?offset=500"));
    assert.equal(beyond.items, []);
    assert.is(beyond.size, 105);

    for (const [query, property] of [
      ["limit=101", "limit"],
      ["limit=0", "limit"],
      ["limit=-1", "limit"],
      ["limit=abc", "limit"],
      ["limit=1.5", "limit"],
      ["offset=-1", "offset"],
      ["offset=x", "offset"],
      ["offset=99999999999", "offset"],
    ] as const) {
      assertError(await call(h, "GET", `/authors?${query}`), "invalidPaging", property);
    }
  }));

test("GET, PATCH, PUT, DELETE of an instance that does not exist: 404 notFound with the error body", () =>
  withApp(async (h) => {
    assertError(await call(h, "GET", "/authors/nope"), "notFound");
    assertError(await call(h, "PATCH", "/authors/nope", { body: { name: "x" } }), "notFound");
    assertError(await call(h, "PUT", "/authors/nope", { body: { name: "x" } }), "notFound");
    assertError(await call(h, "DELETE", "/authors/nope"), "notFound");
    assertError(await call(h, "GET", "/authors/nope/books"), "notFound");
  }));

test("POST and PATCH on an instance are a JSON merge patch; null removes an optional field; removing a required one is 400", () =>
  withApp(async (h) => {
    const a = await createAuthor(h, "Ann");
    const b = await createBook(h, "Draft", a.id, { pages: 10, isbn: "123-4567890123" });
    await new Promise((r) => setTimeout(r, 5));

    const patched = await call(h, "PATCH", `/books/${b.id}`, { body: { title: "Final" } });
    assert.is(patched.statusCode, 200, patched.body);
    const p = json(patched);
    assert.is(p.title, "Final");
    assert.is(p.pages, 10);
    assert.is(p.isbn, "123-4567890123");
    assert.equal(p.author, b.author);
    assert.is(p.createdAt, b.createdAt);
    assert.ok(p.modifiedAt > b.modifiedAt);

    const posted = json(await call(h, "POST", `/books/${b.id}`, { body: { pages: 12 } }));
    assert.is(posted.pages, 12);
    assert.is(posted.title, "Final");

    const merge = await call(h, "PATCH", `/books/${b.id}`, { raw: JSON.stringify({ pages: null }), headers: { "content-type": "application/merge-patch+json" } });
    assert.is(merge.statusCode, 200, merge.body);
    assert.not.ok("pages" in json(merge));
    assert.not.ok("pages" in json(await call(h, "GET", `/books/${b.id}`)));

    assertError(await call(h, "PATCH", `/books/${b.id}`, { body: { title: null } }), "missingProperty", "title");
    assertError(await call(h, "POST", `/books/${b.id}`, { body: { author: null } }), "missingProperty", "author");
    assertError(await call(h, "PATCH", `/books/${b.id}`, { body: { pages: "12" } }), "invalidProperty", "pages");
    assertError(await call(h, "PATCH", `/books/${b.id}`, { body: { colour: "red" } }), "unknownProperty", "colour");
    assertError(await call(h, "PATCH", `/books/${b.id}`, { body: [1] }), "invalidProperty");
    // Nothing of the failed patches was stored.
    assert.is(json(await call(h, "GET", `/books/${b.id}`)).title, "Final");

    const b2 = await createAuthor(h, "Ben");
    const moved = json(await call(h, "PATCH", `/books/${b.id}`, { body: { author: link("authors", b2.id) } }));
    assert.is(moved.author.meta.href, href("authors", b2.id));
  }));

test("PUT replaces the whole instance: omitted optional fields are gone, required ones must be there", () =>
  withApp(async (h) => {
    const a = await createAuthor(h, "Ann", { born: 1950 });
    const put = await call(h, "PUT", `/authors/${a.id}`, { body: { name: "Anne" } });
    assert.is(put.statusCode, 200, put.body);
    const body = json(put);
    assert.is(body.name, "Anne");
    assert.not.ok("born" in body);
    assert.is(body.id, a.id);
    assert.is(body.createdAt, a.createdAt);
    assertError(await call(h, "PUT", `/authors/${a.id}`, { body: { born: 1 } }), "missingProperty", "name");
    assertError(await call(h, "PUT", `/authors/${a.id}`, { body: { name: "x", id: "y" } }), "readOnlyProperty", "id");
  }));

test("DELETE: 204 with no body, then 404", () =>
  withApp(async (h) => {
    const a = await createAuthor(h, "Ann");
    const del = await call(h, "DELETE", `/authors/${a.id}`);
    assert.is(del.statusCode, 204);
    assert.is(del.body, "");
    assertError(await call(h, "GET", `/authors/${a.id}`), "notFound");
    assertError(await call(h, "DELETE", `/authors/${a.id}`), "notFound");
    assert.is(json(await call(h, "GET", "/authors")).size, 0);
  }));

test("sub-collections: an inverse link and a stored link, paged", () =>
  withApp(async (h) => {
    const a = await createAuthor(h, "Ann");
    const other = await createAuthor(h, "Bob");
    const b1 = await createBook(h, "One", a.id);
    const b2 = await createBook(h, "Two", a.id);
    await createBook(h, "Elsewhere", other.id);

    const inv = await call(h, "GET", `/authors/${a.id}/books`);
    assert.is(inv.statusCode, 200);
    const page = json(inv);
    assert.equal(page.meta, { href: `${href("authors", a.id)}/books`, mediaType: "application/vnd.acme.v1.books+json" });
    assert.is(page.size, 2);
    assert.equal(
      page.items.map((i: Json) => i.title),
      ["One", "Two"],
    );
    const paged = json(await call(h, "GET", `/authors/${a.id}/books?limit=1&offset=1`));
    assert.equal([paged.offset, paged.limit, paged.size, paged.items.length], [1, 1, 2, 1]);
    assert.is(paged.items[0].title, "Two");
    assertError(await call(h, "GET", `/authors/${a.id}/books?limit=0`), "invalidPaging", "limit");

    const shelf = await call(h, "POST", "/shelves", { key: h.librarian, body: { label: "New", books: [link("books", b2.id), link("books", b1.id)] } });
    assert.is(shelf.statusCode, 201, shelf.body);
    const s = json(shelf);
    assert.equal(s.books, { meta: { href: `${href("shelves", s.id)}/books`, mediaType: "application/vnd.acme.v1.books+json" } });
    const stored = json(await call(h, "GET", `/shelves/${s.id}/books`));
    assert.is(stored.size, 2);
    assert.equal(
      stored.items.map((i: Json) => i.title),
      ["Two", "One"],
    );
    assert.is(stored.meta.href, `${href("shelves", s.id)}/books`);
    // A deleted book drops out of the stored list.
    assert.is((await call(h, "DELETE", `/books/${b2.id}`)).statusCode, 204);
    const after = json(await call(h, "GET", `/shelves/${s.id}/books`));
    assert.equal(
      after.items.map((i: Json) => i.title),
      ["One"],
    );
  }));

test("links on write must name existing instances of the target: 400 invalidLink with property = the link", () =>
  withApp(async (h) => {
    const a = await createAuthor(h, "Ann");
    const b = await createBook(h, "One", a.id);
    assertError(await call(h, "POST", "/books", { body: { title: "x", author: link("authors", "missing") } }), "invalidLink", "author");
    assertError(await call(h, "POST", "/books", { body: { title: "x", author: link("books", b.id) } }), "invalidLink", "author");
    assertError(await call(h, "POST", "/books", { body: { title: "x", author: { meta: { href: "https://api.example.com/v2/authors/" + a.id } } } }), "invalidLink", "author");
    assertError(await call(h, "PATCH", `/books/${b.id}`, { body: { author: link("authors", "gone") } }), "invalidLink", "author");
    assertError(await call(h, "POST", "/shelves", { key: h.librarian, body: { label: "s", books: [link("books", b.id), link("books", "nope")] } }), "invalidLink", "books");
    // A link of the wrong shape fails its schema.
    assertError(await call(h, "POST", "/books", { body: { title: "x", author: href("authors", a.id) } }), "invalidProperty", "author");
    assertError(await call(h, "POST", "/books", { body: { title: "x", author: { meta: {} } } }), "missingProperty", "author.meta.href");
    assertError(await call(h, "POST", "/books", { body: { title: "x", author: { meta: { href: 5 } } } }), "invalidProperty", "author.meta.href");
    // An href names an instance of this service: under its base URL (scheme, host, port and path), else a 400
    // that says why; a path under the base path is read against the base URL; a full representation is accepted.
    for (const [other, why] of [
      [`http://internal:8080/v1/authors/${a.id}`, /on another host/],
      [`http://api.example.com/v1/authors/${a.id}`, /on another host/],
      [`https://api.example.com:8443/v1/authors/${a.id}`, /on another host/],
      [`//evil.example/v1/authors/${a.id}`, /on another host/],
      [`https://api.example.com/v2/authors/${a.id}`, /not under this service's base URL/],
      [`/v2/authors/${a.id}`, /not under this service's base URL/],
      [`https://api.example.com/v1/books/${b.id}`, /not the href of an instance of authors/],
      [`https://api.example.com/v1/authors/${a.id}?x=1`, /query or a fragment/],
      [`https://user:pw@api.example.com/v1/authors/${a.id}`, /credentials/],
      ["not a url at all::", /not under this service's base URL|not the href/],
    ] as const) {
      const res = await call(h, "POST", "/books", { body: { title: "y", author: { meta: { href: other } } } });
      const body = assertError(res, "invalidLink", "author");
      assert.match(body.dev, why, `${other}: ${body.dev}`);
    }
    const missing = assertError(await call(h, "POST", "/books", { body: { title: "x", author: link("authors", "missing") } }), "invalidLink", "author");
    assert.match(missing.dev, /names no existing author/);
    for (const relative of [`/v1/authors/${a.id}`, `authors/${a.id}`, `${href("authors", a.id)}/`]) {
      const res = await call(h, "POST", "/books", { body: { title: "y", author: { meta: { href: relative } } } });
      assert.is(res.statusCode, 201, `${relative}: ${res.body}`);
      assert.is(json(res).author.meta.href, a.meta.href, "stored as the instance, read back absolute");
    }
    const full = await call(h, "POST", "/books", { body: { title: "z", author: a } });
    assert.is(full.statusCode, 201, full.body);
    assert.is(json(full).author.meta.href, a.meta.href);
  }));

test("an update keeps a link it does not write as it is; a link it writes must exist; one the instance holds need not be visible to the caller", () =>
  withApp(async (h) => {
    const a = await createAuthor(h, "Ann");
    const b = await createBook(h, "One", a.id);
    const gone = await createBook(h, "Gone", a.id);
    const shelf = json(await call(h, "POST", "/shelves", { key: h.librarian, body: { label: "s", books: [link("books", b.id), link("books", gone.id)] } }));
    // Links dangling from a store written before links stayed whole (or by other means than the routes).
    assert.ok(await h.store.delete("books", gone.id));
    assert.ok(await h.store.delete("authors", a.id));

    const patched = await call(h, "PATCH", `/books/${b.id}`, { body: { title: "Renamed" } });
    assert.is(patched.statusCode, 200, patched.body);
    assert.is(json(patched).author.meta.href, href("authors", a.id), "a link the patch does not write is kept");
    assertError(await call(h, "PUT", `/books/${b.id}`, { body: { title: "Again", author: link("authors", a.id) } }), "invalidLink", "author");
    assertError(await call(h, "PATCH", `/books/${b.id}`, { body: { author: link("authors", a.id) } }), "invalidLink", "author");
    assert.is((await call(h, "PATCH", `/shelves/${shelf.id}`, { key: h.librarian, body: { label: "t" } })).statusCode, 200);
    assertError(await call(h, "PATCH", `/shelves/${shelf.id}`, { key: h.librarian, body: { books: [link("books", b.id), link("books", gone.id)] } }), "invalidLink", "books");
    const other = await createAuthor(h, "Bob");
    const moved = await call(h, "PATCH", `/books/${b.id}`, { body: { author: link("authors", other.id) } });
    assert.is(moved.statusCode, 200, moved.body);

    // A note of the admin's, which the reader may not see, linked from the reader's note by the admin.
    const mine = json(await call(h, "POST", "/notes", { body: { text: "mine" } }));
    const theirs = json(await call(h, "POST", "/notes", { key: h.admin, body: { text: "theirs" } }));
    const hidden = json(await call(h, "POST", "/notes", { key: h.admin, body: { text: "hidden" } }));
    assertError(await call(h, "PATCH", `/notes/${mine.id}`, { body: { replyTo: link("notes", theirs.id) } }), "invalidLink", "replyTo");
    assert.is((await call(h, "PATCH", `/notes/${mine.id}`, { key: h.admin, body: { replyTo: link("notes", theirs.id) } })).statusCode, 200);
    assert.is((await call(h, "PATCH", `/notes/${mine.id}`, { body: { text: "edited" } })).statusCode, 200);
    const kept = await call(h, "PUT", `/notes/${mine.id}`, { body: { text: "replaced", replyTo: link("notes", theirs.id) } });
    assert.is(kept.statusCode, 200, kept.body);
    assertError(await call(h, "PATCH", `/notes/${mine.id}`, { body: { replyTo: link("notes", hidden.id) } }), "invalidLink", "replyTo");
  }));

test("instance ids are UUIDv7 and increase strictly, so lists keep the order of creation", () => {
  const ids = Array.from({ length: 5000 }, () => newId());
  for (const id of ids) assert.match(id, /^[0-9a-f]{8}-[0-9a-f]{4}-7[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/);
  for (let i = 1; i < ids.length; i++) assert.ok(ids[i - 1]! < ids[i]!, `${ids[i - 1]} < ${ids[i]}`);
  const t = Date.now();
  assert.ok(Math.abs(parseInt(newId(t + 50).replace(/-/g, "").slice(0, 12), 16) - (t + 50)) <= 5);
  // A clock that goes back does not make ids go back.
  const later = newId(t + 100);
  assert.ok(newId(t) > later);
});

// ---------------------------------------------------------------------------------------------------
// expand and fields
// ---------------------------------------------------------------------------------------------------

test("expand: an instance link, a nested author(books), a collection link inlines a page", () =>
  withApp(async (h) => {
    const a = await createAuthor(h, "Ann", { born: 1950 });
    const b1 = await createBook(h, "One", a.id);
    await createBook(h, "Two", a.id);

    const expanded = json(await call(h, "GET", `/books/${b1.id}?expand=author`));
    assert.equal(expanded.author.meta, a.meta);
    assert.is(expanded.author.name, "Ann");
    assert.is(expanded.author.born, 1950);
    assert.equal(expanded.author.books, { meta: { href: `${a.meta.href}/books`, mediaType: "application/vnd.acme.v1.books+json" } });

    const nested = json(await call(h, "GET", `/books/${b1.id}?expand=author(books)`));
    const books = nested.author.books;
    assert.equal(books.meta, { href: `${a.meta.href}/books`, mediaType: "application/vnd.acme.v1.books+json" });
    assert.equal([books.offset, books.limit, books.size], [0, 25, 2]);
    assert.equal(
      books.items.map((i: Json) => i.title),
      ["One", "Two"],
    );
    assert.equal(books.items[0].author, { meta: a.meta });

    const page = json(await call(h, "GET", `/authors/${a.id}?expand=books`));
    assert.is(page.books.size, 2);
    assert.is(page.books.items[1].title, "Two");

    const list = json(await call(h, "GET", "/books?expand=author"));
    assert.ok(list.items.every((i: Json) => i.author.name === "Ann"));
    const sub = json(await call(h, "GET", `/authors/${a.id}/books?expand=author`));
    assert.is(sub.items[0].author.name, "Ann");
  }));

test("fields: only the listed fields plus meta; selecting inside a link expands it", () =>
  withApp(async (h) => {
    const a = await createAuthor(h, "Ann", { born: 1950 });
    const b = await createBook(h, "One", a.id, { pages: 99 });

    const partial = json(await call(h, "GET", `/books/${b.id}?fields=title,author(name)`));
    assert.equal(partial, { meta: b.meta, title: "One", author: { meta: a.meta, name: "Ann" } });

    const bare = json(await call(h, "GET", `/books/${b.id}?fields=pages`));
    assert.equal(bare, { meta: b.meta, pages: 99 });
    const withLink = json(await call(h, "GET", `/books/${b.id}?fields=author`));
    assert.equal(withLink, { meta: b.meta, author: { meta: a.meta } });
    const server = json(await call(h, "GET", `/books/${b.id}?fields=id,createdAt,meta`));
    assert.equal(server, { meta: b.meta, id: b.id, createdAt: b.createdAt });

    const deep = json(await call(h, "GET", `/authors/${a.id}?fields=name,books(title)`));
    assert.equal(deep.books.items, [{ meta: b.meta, title: "One" }]);
    assert.is(deep.books.size, 1);

    const list = json(await call(h, "GET", "/books?fields=title"));
    assert.equal(list.items, [{ meta: b.meta, title: "One" }]);
    assert.is(list.size, 1);

    const both = json(await call(h, "GET", `/books/${b.id}?fields=title&expand=author`));
    assert.equal(both, { meta: b.meta, title: "One" });
  }));

test("fields: selecting inside a plain object keeps only the selected properties", () =>
  withApp(async (h) => {
    const a = await createAuthor(h, "Ann", { address: { city: "Oslo", street: "Storgata 1", geo: { lat: 59.9 } } });
    const b = await createBook(h, "One", a.id);
    assert.equal(json(await call(h, "GET", `/authors/${a.id}?fields=address(city)`)), { meta: a.meta, address: { city: "Oslo" } });
    assert.equal(json(await call(h, "GET", `/authors/${a.id}?fields=name,address(geo(lat))`)), { meta: a.meta, name: "Ann", address: { geo: { lat: 59.9 } } });
    assert.equal(json(await call(h, "GET", `/authors/${a.id}?fields=address`)), { meta: a.meta, address: { city: "Oslo", street: "Storgata 1", geo: { lat: 59.9 } } });
    // inside a link's target, and on every item of a list
    assert.equal(json(await call(h, "GET", `/books/${b.id}?fields=author(address(city))`)), { meta: b.meta, author: { meta: a.meta, address: { city: "Oslo" } } });
    assert.equal(json(await call(h, "GET", "/authors?fields=address(street)")).items, [{ meta: a.meta, address: { street: "Storgata 1" } }]);
    // a property the instance does not hold is left out, as a top-level field is
    const c = await createAuthor(h, "Cy", { address: { street: "Elm" } });
    assert.equal(json(await call(h, "GET", `/authors/${c.id}?fields=address(city,geo(lat))`)), { meta: c.meta, address: {} });
    // unknown names inside the object stay a 400 on fields
    assertError(await call(h, "GET", `/authors/${a.id}?fields=address(town)`), "unknownField", "fields");
    assertError(await call(h, "GET", `/authors/${a.id}?fields=address(geo(alt))`), "unknownField", "fields");
    assertError(await call(h, "GET", `/authors/${a.id}?fields=address(city(x))`), "unknownField", "fields");
    assertError(await call(h, "GET", `/authors/${a.id}?expand=address`), "unknownExpand", "expand");
  }));

test("unknown names in fields or expand: 400 with property fields / expand", () =>
  withApp(async (h) => {
    const a = await createAuthor(h, "Ann");
    const b = await createBook(h, "One", a.id);
    assertError(await call(h, "GET", `/books/${b.id}?fields=colour`), "unknownField", "fields");
    assertError(await call(h, "GET", `/books/${b.id}?fields=author(nme)`), "unknownField", "fields");
    assertError(await call(h, "GET", `/books/${b.id}?fields=title(x)`), "unknownField", "fields");
    assertError(await call(h, "GET", `/books/${b.id}?fields=title,,`), "unknownField", "fields");
    assertError(await call(h, "GET", `/books/${b.id}?fields=__proto__`), "unknownField", "fields");
    assertError(await call(h, "GET", `/books/${b.id}?expand=title`), "unknownExpand", "expand");
    assertError(await call(h, "GET", `/books/${b.id}?expand=publisher`), "unknownExpand", "expand");
    assertError(await call(h, "GET", `/books/${b.id}?expand=author(name)`), "unknownExpand", "expand");
    assertError(await call(h, "GET", `/books/${b.id}?expand=author(`), "unknownExpand", "expand");
    assertError(await call(h, "GET", "/books?fields=nope"), "unknownField", "fields");
    assertError(await call(h, "GET", `/authors/${a.id}/books?expand=books`), "unknownExpand", "expand");
  }));

test("fields and expand parsed once per value: the same text answers per resource and per parameter, every time", () =>
  withApp(async (h) => {
    const a = await createAuthor(h, "Ann", { born: 1950 });
    const b = await createBook(h, "One", a.id, { pages: 99 });
    for (let i = 0; i < 2; i++) {
      // "name" is a field of authors, not of books: a value accepted on one resource is not on another.
      assert.equal(json(await call(h, "GET", `/authors/${a.id}?fields=name`)), { meta: a.meta, name: "Ann" });
      assertError(await call(h, "GET", `/books/${b.id}?fields=name`), "unknownField", "fields");
      // The same letters split differently between fields and expand are different requests.
      assert.equal(json(await call(h, "GET", `/books/${b.id}?fields=author&expand=`)), { meta: b.meta, author: { meta: a.meta } });
      assert.equal(json(await call(h, "GET", `/books/${b.id}?fields=title&expand=author`)), { meta: b.meta, title: "One" });
      assert.is(json(await call(h, "GET", `/books/${b.id}?fields=titleauthor`)).status, 400);
      assert.equal(json(await call(h, "GET", `/books/${b.id}?expand=author`)).author.name, "Ann");
      // A repeated parameter joins with ",".
      assert.equal(json(await call(h, "GET", `/books/${b.id}?fields=title&fields=pages`)), { meta: b.meta, title: "One", pages: 99 });
    }
    // A cached shaping is never changed by a representation built with it.
    const first = json(await call(h, "GET", `/authors/${a.id}?fields=name,books(title)`));
    const again = json(await call(h, "GET", `/authors/${a.id}?fields=name,books(title)`));
    assert.equal(again, first);
    assert.equal(first.books.items, [{ meta: b.meta, title: "One" }]);
  }));

/** `store` with its async reads counted, and with or without its immediate reads (a networked store has none). */
function counted(store: Store, immediate: boolean): { store: Store; asyncReads: () => number } {
  let reads = 0;
  const wrapped: Store = {
    ...requiredOnly(store, { keepOpen: true }),
    get: (c, id) => (reads++, store.get(c, id)),
    list: (c, q) => (reads++, store.list(c, q)),
    ...(immediate ? { immediate: store.immediate } : {}),
  };
  return { store: wrapped, asyncReads: () => reads };
}

test("HEAD of an instance or a collection: GET's status and headers, no body", () =>
  withApp(async (h) => {
    const a = await createAuthor(h, "Ann");
    for (const path of [`/authors/${a.id}`, `/authors/${a.id}?expand=books`, "/authors", `/authors/01890a5d-ac96-774b-bcce-b302099a8057`]) {
      const get = await call(h, "GET", path);
      const head = await call(h, "HEAD", path);
      assert.is(head.statusCode, get.statusCode, path);
      assert.is(head.headers["content-type"], get.headers["content-type"], path);
      assert.is(head.headers["content-length"], get.headers["content-length"], path);
      assert.is(head.body, "", path);
    }
  }));

test("GET of an instance or a page: a store that reads and lists at once answers without its async reads, one without them the same", () =>
  withApp(async (h) => {
    const a = await createAuthor(h, "Ann", { born: 1950 });
    const b = await createBook(h, "One", a.id, { pages: 99 });
    await createBook(h, "Two", a.id);
    const note = json(await call(h, "POST", "/notes", { body: { text: "mine" } }));
    const requests: [string, NewKey][] = [
      [`/books/${b.id}`, h.reader],
      [`/books/${b.id}?fields=title,author`, h.reader],
      [`/books/${b.id}?expand=author`, h.reader],
      [`/books/${b.id}?expand=author&fields=author(name)`, h.reader],
      [`/books/${b.id}?expand=author(books)`, h.reader],
      [`/authors/${a.id}?expand=books(author)`, h.reader],
      [`/books/01890a5d-ac96-774b-bcce-b302099a8057`, h.reader],
      [`/books/${b.id}?expand=nope`, h.reader],
      [`/notes/${note.id}`, h.other],
      [`/notes/${note.id}`, h.reader],
      ["/books?limit=1&offset=1", h.reader],
      ["/books?fields=title", h.reader],
      ["/books?expand=author", h.reader],
      ["/notes", h.other],
    ];
    const answers = async (app: FastifyInstance) => {
      const out: [number, string | undefined, Json][] = [];
      for (const [path, key] of requests) {
        const res = await app.inject({ method: "GET", url: P + path, headers: { authorization: `Bearer ${key.secret}` } });
        out.push([res.statusCode, res.headers["content-type"] as string | undefined, json(res)]);
      }
      return out;
    };
    const expected = await answers(h.app);
    assert.equal(
      expected.map(([status]) => status),
      [200, 200, 200, 200, 200, 200, 404, 400, 403, 200, 200, 200, 200, 200],
    );
    assert.equal(expected[10]![2].items.map((i: Json) => i.title), ["Two"]);
    assert.is(expected[10]![2].size, 2);
    assert.equal(expected[12]![2].items.map((i: Json) => i.author.name), ["Ann", "Ann"]);
    assert.is(expected[13]![2].size, 0, "x-owner: another key's notes are not in its page");
    assert.is(expected[2]![2].author.name, "Ann");
    assert.is(expected[5]![2].books.items[1].author.name, "Ann");

    for (const immediate of [true, false]) {
      const { store, asyncReads } = counted(h.store, immediate);
      const app = await buildApp({ spec, store, keys: h.keys });
      try {
        assert.equal(await answers(app), expected, `immediate reads: ${immediate}`);
        // With immediate reads and lists nothing goes through the async methods, pages and expanded collection links included.
        if (immediate) assert.is(asyncReads(), 0);
        else assert.ok(asyncReads() > requests.length, `async reads: ${asyncReads()}`);
        // A GET without expand, or expanding an instance link, reads at once: no async read at all.
        const before = asyncReads();
        assert.is((await app.inject({ method: "GET", url: `${P}/books/${b.id}?expand=author`, headers: { authorization: `Bearer ${h.reader.secret}` } })).statusCode, 200);
        assert.is(asyncReads() - before, immediate ? 0 : 2);
      } finally {
        await app.close();
      }
    }
  }));

test("POST: a store that writes at once creates without its async transaction; one with only transactions, or neither, answers the same", async () => {
  const missing = "01890a5d-ac96-774b-bcce-b302099a8057";
  /** The creates of one service, answered: status, Location and body, with ids and times made comparable. */
  const answers = async (wrap: (store: ReturnType<typeof openSqliteStore>) => Store): Promise<{ out: string[]; transactions: number }> => {
    const inner = openSqliteStore(spec, ":memory:");
    let transactions = 0;
    const store = wrap(inner);
    const counted: Store = store.transaction ? { ...store, transaction: (work) => (transactions++, store.transaction!(work)) } : store;
    const keys = KeyRing.memory();
    const librarian = keys.create(["librarian"]);
    const other = keys.create([]);
    const app = await buildApp({ spec, store: counted, keys });
    const post = async (path: string, body: unknown, key = librarian) => {
      const res = await app.inject({ method: "POST", url: P + path, headers: { authorization: `Bearer ${key.secret}`, "content-type": "application/json" }, payload: JSON.stringify(body) });
      return { status: res.statusCode, location: res.headers.location, body: json(res) };
    };
    try {
      const results = [];
      const ann = await post("/authors", { name: "Ann" });
      results.push(ann, await post("/authors", { name: "Ann" }));
      const book = await post("/books", { title: "One", author: link("authors", ann.body.id) });
      results.push(book);
      results.push(await post("/books", { title: "Two", author: link("authors", missing) }));
      results.push(await post("/books", { title: "Two", author: link("books", book.body.id) }));
      results.push(await post("/shelves", { label: "s", books: [link("books", book.body.id), link("books", book.body.id)] }));
      results.push(await post("/shelves", { label: "s", books: [link("books", book.body.id), link("books", missing)] }));
      const mine = await post("/notes", { text: "mine" });
      results.push(mine, await post("/notes", { text: "x", replyTo: link("notes", mine.body.id) }, other));
      results.push(await post("/notes", { text: "y", replyTo: link("notes", mine.body.id) }));
      const ids = new Map<string, string>();
      const out = results.map((r) =>
        JSON.stringify(r)
          .replaceAll(librarian.id, "<librarian>")
          .replaceAll(other.id, "<other>")
          .replace(/[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}/g, (id) => (id === missing ? id : (ids.get(id) ?? (ids.set(id, `<id ${ids.size}>`), ids.get(id)!))))
          .replace(/\d{4}-\d\d-\d\dT[\d:.]+Z/g, "<time>"),
      );
      return { out, transactions };
    } finally {
      await app.close();
      await inner.close();
    }
  };
  const now = await answers((s) => s);
  assert.equal(now.out.map((o) => JSON.parse(o).status), [201, 409, 201, 400, 400, 201, 400, 201, 400, 201]);
  assert.is(now.transactions, 0, "no create here has a hook: every one was made at once");
  const methods = (s: Store): Store => ({ ...requiredOnly(s, { keepOpen: true }), immediate: s.immediate });
  const transactionsOnly = await answers((s) => ({ ...methods(s), transaction: (work) => s.transaction!(work) }));
  assert.equal(transactionsOnly.out, now.out, "a store with transactions alone");
  assert.is(transactionsOnly.transactions, 10, "every create ran in the async transaction");
  assert.equal((await answers(methods)).out, now.out, "a store with neither");
});

// ---------------------------------------------------------------------------------------------------
// Bodies
// ---------------------------------------------------------------------------------------------------

test("body validation: no coercion, required, unknown, pattern, server-owned properties", () =>
  withApp(async (h) => {
    const a = await createAuthor(h, "Ann");
    const author = link("authors", a.id);
    const book = { title: "T", author };
    assertError(await call(h, "POST", "/books", { body: { ...book, pages: "12" } }), "invalidProperty", "pages");
    assertError(await call(h, "POST", "/books", { body: { ...book, pages: 1.5 } }), "invalidProperty", "pages");
    assertError(await call(h, "POST", "/books", { body: { ...book, pages: 0 } }), "invalidProperty", "pages");
    assertError(await call(h, "POST", "/books", { body: { ...book, isbn: "12-3" } }), "invalidProperty", "isbn");
    assertError(await call(h, "POST", "/books", { body: { ...book, title: 5 } }), "invalidProperty", "title");
    assertError(await call(h, "POST", "/books", { body: { author } }), "missingProperty", "title");
    assertError(await call(h, "POST", "/books", { body: { title: "T" } }), "missingProperty", "author");
    assertError(await call(h, "POST", "/books", { body: { ...book, colour: "red" } }), "unknownProperty", "colour");
    assertError(await call(h, "POST", "/books", { body: [] }), "invalidProperty");
    assertError(await call(h, "POST", "/books", { raw: "null" }), "invalidProperty");
    assertError(await call(h, "POST", "/books", { raw: '"text"' }), "invalidProperty");
    for (const property of ["id", "meta", "createdAt", "modifiedAt"]) {
      assertError(await call(h, "POST", "/books", { body: { ...book, [property]: "x" } }), "readOnlyProperty", property);
      assertError(await call(h, "PATCH", `/authors/${a.id}`, { body: { [property]: "x" } }), "readOnlyProperty", property);
      assertError(await call(h, "PUT", `/authors/${a.id}`, { body: { name: "Ann", [property]: "x" } }), "readOnlyProperty", property);
    }
    // The inverse link and the owner are the server's too.
    assertError(await call(h, "POST", "/authors", { body: { name: "B", books: [] } }), "readOnlyProperty", "books");
    assertError(await call(h, "PATCH", `/authors/${a.id}`, { body: { books: [] } }), "readOnlyProperty", "books");
    assertError(await call(h, "POST", "/notes", { body: { text: "t", owner: "someone" } }), "readOnlyProperty", "owner");
    assert.is(json(await call(h, "GET", "/books")).size, 0);
  }));

test("malformed JSON, an empty body, and a missing body", () =>
  withApp(async (h) => {
    assertError(await call(h, "POST", "/authors", { raw: '{"name": "Ann",' }), "malformedJson");
    assertError(await call(h, "POST", "/authors", { raw: "{name: 'Ann'}" }), "malformedJson");
    assertError(await call(h, "POST", "/authors", { raw: "" }), "malformedJson");
    const a = await createAuthor(h, "Ann");
    assertError(await call(h, "PATCH", `/authors/${a.id}`, { raw: "{" }), "malformedJson");
    // A write without a body at all (and so without a Content-Type) is not JSON.
    assertError(await call(h, "POST", "/authors"), "unsupportedMediaType");
    assertError(await call(h, "PUT", `/authors/${a.id}`), "unsupportedMediaType");
  }));

test("__proto__ and constructor.prototype in a body are refused with 400 and pollute nothing", () =>
  withApp(async (h) => {
    const a = await createAuthor(h, "Ann");
    const bodies = [
      '{"name": "X", "__proto__": {"polluted": true}}',
      '{"name": "X", "constructor": {"prototype": {"polluted": true}}}',
      '{"title": "X", "author": {"meta": {"href": "h", "__proto__": {"polluted": true}}}}',
    ];
    for (const raw of bodies) {
      assertError(await call(h, "POST", "/authors", { raw }), "malformedJson");
      assertError(await call(h, "PATCH", `/authors/${a.id}`, { raw }), "malformedJson");
      assertError(await call(h, "PUT", `/authors/${a.id}`, { raw }), "malformedJson");
    }
    assert.is(({} as Json).polluted, undefined);
    assert.not.ok(Object.prototype.hasOwnProperty.call(Object.prototype, "polluted"));
    assert.is(json(await call(h, "GET", `/authors/${a.id}`)).name, "Ann");
    assert.is(json(await call(h, "GET", "/authors")).size, 1);
  }));

test("Content-Type: a body that is not JSON is 415; JSON, both vendor shapes and merge patch are read", () =>
  withApp(async (h) => {
    for (const type of ["text/plain", "application/x-www-form-urlencoded", "application/xml", "multipart/form-data; boundary=x"]) {
      assertError(await call(h, "POST", "/authors", { raw: '{"name":"A"}', headers: { "content-type": type } }), "unsupportedMediaType");
    }
    const ok = async (type: string, name: string) => {
      const res = await call(h, "POST", "/authors", { raw: JSON.stringify({ name }), headers: { "content-type": type } });
      assert.is(res.statusCode, 201, `${type}: ${res.body}`);
      return json(res);
    };
    await ok("application/json", "a1");
    await ok("application/json; charset=utf-8", "a2");
    await ok("Application/JSON", "a3");
    await ok("application/vnd.acme.v1.author+json", "a4");
    await ok("application/acme.v1.author.json", "a5");
    const a = await ok("application/vnd.acme.v1.author+json; charset=utf-8", "a6");
    for (const type of ["application/merge-patch+json", "application/vnd.acme.v1.author+json", "application/acme.v1.author.json"]) {
      const res = await call(h, "PATCH", `/authors/${a.id}`, { raw: JSON.stringify({ born: 1900 }), headers: { "content-type": type } });
      assert.is(res.statusCode, 200, `${type}: ${res.body}`);
    }
    assertError(await call(h, "PATCH", `/authors/${a.id}`, { raw: "born=1", headers: { "content-type": "application/x-www-form-urlencoded" } }), "unsupportedMediaType");
  }));

test("a body over spec.bodyLimit is 413", () =>
  withApp(async (h) => {
    const big = JSON.stringify({ name: "x".repeat(spec.bodyLimit + 10) });
    assertError(await call(h, "POST", "/authors", { raw: big }), "payloadTooLarge");
    const a = await createAuthor(h, "Ann");
    assertError(await call(h, "PATCH", `/authors/${a.id}`, { raw: big }), "payloadTooLarge");
    const fits = JSON.stringify({ name: "y".repeat(spec.bodyLimit - 100) });
    assert.is((await call(h, "POST", "/authors", { raw: fits })).statusCode, 201);
  }));

// ---------------------------------------------------------------------------------------------------
// Media types
// ---------------------------------------------------------------------------------------------------

test("Accept: q-values, wildcards, both vendor shapes; Content-Type names the chosen type; 406s", () =>
  withApp(async (h) => {
    const a = await createAuthor(h, "Ann");
    const get = (accept: string, path = `/authors/${a.id}`) => call(h, "GET", path, { headers: { accept } });
    const typeOf = async (accept: string, path?: string) => {
      const res = await get(accept, path);
      assert.is(res.statusCode, 200, `${accept}: ${res.body}`);
      return String(res.headers["content-type"]);
    };
    assert.is(await typeOf("application/json"), "application/json; charset=utf-8");
    assert.is(await typeOf("*/*"), "application/json; charset=utf-8");
    assert.is(await typeOf("application/*"), "application/json; charset=utf-8");
    assert.is(await typeOf("application/vnd.acme.v1.author+json"), "application/vnd.acme.v1.author+json");
    assert.is(await typeOf("application/acme.v1.author.json"), "application/acme.v1.author.json");
    assert.is(await typeOf("application/json;q=0.5, application/vnd.acme.v1.author+json"), "application/vnd.acme.v1.author+json");
    assert.is(await typeOf("application/json, application/vnd.acme.v1.author+json;q=0.9"), "application/json; charset=utf-8");
    assert.is(await typeOf("text/html, application/acme.v1.author.json;q=0.1"), "application/acme.v1.author.json");
    assert.is(await typeOf("text/html;q=1, */*;q=0.1"), "application/json; charset=utf-8");
    assert.is(await typeOf("application/vnd.acme.v1.authors+json", "/authors"), "application/vnd.acme.v1.authors+json");
    assert.is(await typeOf("application/acme.v1.books.json", `/authors/${a.id}/books`), "application/acme.v1.books.json");
    // The body is the same whatever the type.
    assert.equal(json(await get("application/vnd.acme.v1.author+json")), a);

    assertError(await get("text/html"), "notAcceptable");
    assertError(await get("application/xml, text/plain;q=0.5"), "notAcceptable");
    assertError(await get("application/json;q=0"), "notAcceptable");
    assertError(await get("application/vnd.acme.v1.authors+json"), "notAcceptable");
    assertError(await get("application/vnd.acme.v2.author+json"), "unknownVersion");
    assertError(await get("application/acme.v2.author.json"), "unknownVersion");
    assertError(await get("application/vnd.acme.v2.authors+json", "/authors"), "unknownVersion");
    // POST negotiates too, before anything is written.
    assertError(await call(h, "POST", "/authors", { body: { name: "B" }, headers: { accept: "text/html" } }), "notAcceptable");
    assert.is(json(await call(h, "GET", "/authors")).size, 1);
    const created = await call(h, "POST", "/authors", { body: { name: "B" }, headers: { accept: "application/vnd.acme.v1.author+json" } });
    assert.is(created.statusCode, 201);
    assert.is(created.headers["content-type"], "application/vnd.acme.v1.author+json");
  }));

test("errors come as application/json, or as the vendor error type when the client asks for it", () =>
  withApp(async (h) => {
    const vendor = "application/vnd.acme.v1.author+json, application/vnd.acme.v1.error+json";
    assertError(await call(h, "GET", "/authors/nope", { headers: { accept: vendor } }), "notFound", "", "application/vnd.acme.v1.error+json");
    const alias = "application/acme.v1.author.json, application/acme.v1.error.json";
    assertError(await call(h, "GET", "/authors/nope", { headers: { accept: alias } }), "notFound", "", "application/acme.v1.error.json");
    // Asking only for the error type of a resource is a 406, itself in the error type.
    assertError(await call(h, "GET", "/authors/nope", { headers: { accept: "application/vnd.acme.v1.error+json" } }), "notAcceptable", "", "application/vnd.acme.v1.error+json");
    assertError(await call(h, "GET", "/authors/nope", { headers: { accept: "application/vnd.acme.v1.author+json" } }), "notFound");
    // An Accept that fits nothing is answered before the instance is looked up.
    assertError(await call(h, "GET", "/authors/nope", { headers: { accept: "text/html" } }), "notAcceptable");
    assertError(await call(h, "GET", "/authors", { key: null, headers: { accept: "application/vnd.acme.v1.error+json" } }), "unauthenticated", "", "application/vnd.acme.v1.error+json");
  }));

// ---------------------------------------------------------------------------------------------------
// Routing
// ---------------------------------------------------------------------------------------------------

test("405 with Allow on every kind of path; OPTIONS answers Allow", () =>
  withApp(async (h) => {
    const a = await createAuthor(h, "Ann");
    const cases: [string, string[], string][] = [
      ["/authors", ["PUT", "PATCH", "DELETE"], "GET, HEAD, POST"],
      [`/authors/${a.id}/books`, ["POST", "PUT", "PATCH", "DELETE"], "GET, HEAD"],
      ["/shelves/x/books", ["PUT", "PATCH", "DELETE"], "GET, HEAD, POST"],
      ["/shelves/x/books/y", ["GET", "POST", "PUT", "PATCH"], "DELETE"],
      ["/convert", ["POST", "PUT", "PATCH", "DELETE"], "GET, HEAD"],
    ];
    for (const [path, methods, allow] of cases) {
      for (const method of methods) {
        const res = await call(h, method, path, method === "DELETE" ? {} : { body: {} });
        assertError(res, "methodNotAllowed");
        assert.is(res.headers.allow, allow, `${method} ${path}`);
      }
      const options = await call(h, "OPTIONS", path);
      assert.is(options.statusCode, 204);
      assert.is(options.headers.allow, `${allow}, OPTIONS`);
    }
    const instance = await call(h, "OPTIONS", `/authors/${a.id}`);
    assert.is(instance.headers.allow, "DELETE, GET, HEAD, PATCH, POST, PUT, OPTIONS");
    // 405 does not need credentials to be answered, but answers with the error body.
    assertError(await call(h, "DELETE", "/authors", { key: null }), "methodNotAllowed");
  }));

test("an unknown route is 404 routeNotFound; routes sit under the base path; trailing slash is ignored", () =>
  withApp(async (h) => {
    assertError(await call(h, "GET", "/publishers"), "routeNotFound");
    assertError(await call(h, "GET", "/authors/x/y/z"), "routeNotFound");
    assertError(await call(h, "GET", "/authors/x/name"), "routeNotFound");
    assertError(await h.app.inject({ method: "GET", url: "/authors", headers: { authorization: `Bearer ${h.reader.secret}` } }), "routeNotFound");
    assertError(await h.app.inject({ method: "GET", url: "/" }), "routeNotFound");
    assertError(await call(h, "POST", "/nothing", { body: {} }), "routeNotFound");
    assert.is((await call(h, "GET", "/authors/")).statusCode, 200);
  }));

test("a path Fastify cannot decode, and an overlong id, answer with the error body", () =>
  withApp(async (h) => {
    assertError(await call(h, "GET", "/authors/%E0%A4%A"), "notFound");
    assertError(await call(h, "GET", `/authors/${"x".repeat(500)}`), "notFound");
    assertError(await call(h, "GET", `/authors/${"x".repeat(500)}/books`), "notFound");
  }));

// ---------------------------------------------------------------------------------------------------
// Authentication and authorization
// ---------------------------------------------------------------------------------------------------

test("401: no credentials, with one WWW-Authenticate challenge per scheme", () =>
  withApp(async (h) => {
    for (const [method, path] of [
      ["GET", "/authors"],
      ["POST", "/authors"],
      ["GET", "/authors/x"],
      ["DELETE", "/authors/x"],
      ["GET", "/authors/x/books"],
      ["GET", "/convert?from=a&to=b&amount=1"],
    ] as const) {
      const res = await call(h, method, path, { key: null, ...(method === "POST" ? { body: { name: "x" } } : {}) });
      assertError(res, "unauthenticated");
      assert.equal(res.headers["www-authenticate"], [`Bearer realm="${REALM}"`, `Basic realm="${REALM}"`], `${method} ${path}`);
    }
    assert.is(json(await call(h, "GET", "/authors")).size, 0);
  }));

test("401: a wrong secret, a malformed or unknown scheme; Basic over plain HTTP is basicNeedsTls; Bearer works", () =>
  withApp(async (h) => {
    const as = (authorization: string) => call(h, "GET", "/authors", { key: null, headers: { authorization } });
    for (const authorization of [`Bearer ${h.reader.secret}x`, "Bearer", "Bearer a b", "Digest x=1", "Token abc", "garbage", `bearer ${"A".repeat(5000)}`]) {
      const res = await as(authorization);
      assertError(res, "unauthenticated");
      assert.is((res.headers["www-authenticate"] as string[]).length, 2);
    }
    const basic = (id: string, secret: string) => `Basic ${Buffer.from(`${id}:${secret}`).toString("base64")}`;
    const tls = await as(basic(h.reader.id, h.reader.secret));
    const body = assertError(tls, "basicNeedsTls");
    assert.match(body.dev, /TLS|https/);
    assert.is((tls.headers["www-authenticate"] as string[]).length, 2);
    assertError(await as(basic(h.reader.id, "wrong")), "basicNeedsTls");
    assert.is((await as(`Bearer ${h.reader.secret}`)).statusCode, 200);
    assert.is((await as(`bearer ${h.reader.secret}`)).statusCode, 200);
    // A revoked key stops working at once.
    h.keys.revoke(h.reader.id);
    assertError(await as(`Bearer ${h.reader.secret}`), "unauthenticated");
  }));

test("403 from x-access roles; admin roles pass; read stays open", () =>
  withApp(async (h) => {
    const a = await createAuthor(h, "Ann");
    const b = await createBook(h, "One", a.id);
    const shelf = { label: "s", books: [link("books", b.id)] };
    const denied = assertError(await call(h, "POST", "/shelves", { body: shelf }), "forbidden");
    assert.match(denied.dev, /librarian/);
    assert.is(json(await call(h, "GET", "/shelves")).size, 0);
    const created = await call(h, "POST", "/shelves", { key: h.librarian, body: shelf });
    assert.is(created.statusCode, 201);
    const s = json(created);
    assert.is((await call(h, "POST", "/shelves", { key: h.admin, body: { label: "by admin" } })).statusCode, 201);

    assert.is((await call(h, "GET", `/shelves/${s.id}`)).statusCode, 200);
    assert.is((await call(h, "GET", `/shelves/${s.id}/books`)).statusCode, 200);
    assertError(await call(h, "PATCH", `/shelves/${s.id}`, { body: { label: "x" } }), "forbidden");
    assertError(await call(h, "POST", `/shelves/${s.id}`, { body: { label: "x" } }), "forbidden");
    assertError(await call(h, "PUT", `/shelves/${s.id}`, { body: { label: "x" } }), "forbidden");
    assertError(await call(h, "DELETE", `/shelves/${s.id}`), "forbidden");
    assert.is(json(await call(h, "GET", `/shelves/${s.id}`)).label, "s");
    assert.is((await call(h, "PATCH", `/shelves/${s.id}`, { key: h.librarian, body: { label: "x" } })).statusCode, 200);
    assert.is((await call(h, "DELETE", `/shelves/${s.id}`, { key: h.admin })).statusCode, 204);
  }));

test("403 from x-owner on another key's note; lists are narrowed to the caller's; admin sees all", () =>
  withApp(async (h) => {
    const mine = await call(h, "POST", "/notes", { body: { text: "mine" } });
    assert.is(mine.statusCode, 201);
    const note = json(mine);
    assert.is(note.owner, h.reader.id);
    const theirs = json(await call(h, "POST", "/notes", { key: h.other, body: { text: "theirs" } }));
    assert.is(theirs.owner, h.other.id);

    assertError(await call(h, "GET", `/notes/${note.id}`, { key: h.other }), "forbidden");
    assertError(await call(h, "PATCH", `/notes/${note.id}`, { key: h.other, body: { text: "hacked" } }), "forbidden");
    assertError(await call(h, "PUT", `/notes/${note.id}`, { key: h.other, body: { text: "hacked" } }), "forbidden");
    assertError(await call(h, "DELETE", `/notes/${note.id}`, { key: h.other }), "forbidden");
    assert.is(json(await call(h, "GET", `/notes/${note.id}`)).text, "mine");

    const listed = json(await call(h, "GET", "/notes"));
    assert.is(listed.size, 1);
    assert.equal(
      listed.items.map((i: Json) => i.text),
      ["mine"],
    );
    const all = json(await call(h, "GET", "/notes", { key: h.admin }));
    assert.is(all.size, 2);
    assert.is((await call(h, "GET", `/notes/${note.id}`, { key: h.admin })).statusCode, 200);

    const patched = await call(h, "PATCH", `/notes/${note.id}`, { body: { text: "edited" } });
    assert.is(patched.statusCode, 200);
    assert.is(json(patched).owner, h.reader.id);
    assertError(await call(h, "PATCH", `/notes/${note.id}`, { body: { owner: h.other.id } }), "readOnlyProperty", "owner");
    assert.is((await call(h, "DELETE", `/notes/${note.id}`)).statusCode, 204);
    assert.is((await call(h, "DELETE", `/notes/${theirs.id}`, { key: h.admin })).statusCode, 204);
  }));

// ---------------------------------------------------------------------------------------------------
// Conflicts
// ---------------------------------------------------------------------------------------------------

test("409 conflict with property on a duplicate unique value, on POST and on PATCH", () =>
  withApp(async (h) => {
    const a = await createAuthor(h, "Ann");
    const b = await createAuthor(h, "Bob");
    const conflict = assertError(await call(h, "POST", "/authors", { body: { name: "Ann" } }), "conflict", "name");
    assert.is(conflict.message, "Another author already has this name.");
    assert.ok(conflict.dev.startsWith("Another author already has this name: "), conflict.dev);
    assertError(await call(h, "PATCH", `/authors/${b.id}`, { body: { name: "Ann" } }), "conflict", "name");
    assertError(await call(h, "PUT", `/authors/${b.id}`, { body: { name: "Ann" } }), "conflict", "name");
    assert.is(json(await call(h, "GET", `/authors/${b.id}`)).name, "Bob");
    // Writing its own value again is no conflict.
    assert.is((await call(h, "PATCH", `/authors/${a.id}`, { body: { name: "Ann", born: 1 } })).statusCode, 200);

    await createBook(h, "One", a.id, { isbn: "111-1111111111" });
    const isbn = assertError(await call(h, "POST", "/books", { body: { title: "Two", author: link("authors", a.id), isbn: "111-1111111111" } }), "conflict", "isbn");
    assert.is(isbn.message, "Another book already has this isbn.");
  }));

test("20 concurrent POSTs of one unique value: exactly one 201, the rest 409", () =>
  withApp(async (h) => {
    const results = await Promise.all(Array.from({ length: 20 }, () => call(h, "POST", "/authors", { body: { name: "Same" } })));
    const codes = results.map((r) => r.statusCode);
    assert.is(codes.filter((c) => c === 201).length, 1);
    assert.is(codes.filter((c) => c === 409).length, 19);
    for (const r of results.filter((x) => x.statusCode === 409)) assertError(r, "conflict", "name");
    assert.is(json(await call(h, "GET", "/authors")).size, 1);
  }));

// ---------------------------------------------------------------------------------------------------
// Actions
// ---------------------------------------------------------------------------------------------------

test("an action without a handler is 501 notImplemented (after its parameters are checked)", () =>
  withApp(async (h) => {
    assertError(await call(h, "GET", "/convert?from=EUR&to=USD&amount=2"), "notImplemented");
    assertError(await call(h, "GET", "/convert?from=EUR&to=USD&amount=abc"), "invalidParameter", "amount");
  }));

test("an action with a handler: 200, coerced query parameters, 400 invalidParameter naming the parameter", () => {
  const seen: Json[] = [];
  return withApp(
    async (h) => {
      const res = await call(h, "GET", "/convert?from=EUR&to=USD&amount=2.5");
      assert.is(res.statusCode, 200, res.body);
      assert.ok(String(res.headers["content-type"]).startsWith("application/json"));
      assert.equal(json(res), { result: 5 });
      assert.equal(seen[0], { from: "EUR", to: "USD", amount: 2.5 });
      assert.type(seen[0]!.amount, "number");

      const vendor = await call(h, "GET", "/convert?from=EUR&to=USD&amount=1", { headers: { accept: "application/vnd.acme.v1.convert+json" } });
      assert.is(vendor.headers["content-type"], "application/vnd.acme.v1.convert+json");
      assertError(await call(h, "GET", "/convert?from=EUR&to=USD&amount=1", { headers: { accept: "application/vnd.acme.v2.convert+json" } }), "unknownVersion");

      assertError(await call(h, "GET", "/convert?from=EUR&to=USD&amount=abc"), "invalidParameter", "amount");
      assertError(await call(h, "GET", "/convert?from=EUR&to=USD"), "invalidParameter", "amount");
      assertError(await call(h, "GET", "/convert?to=USD&amount=1"), "invalidParameter", "from");
      assertError(await call(h, "GET", "/convert?from=EUR&to=USD&amount="), "invalidParameter", "amount");
      // A handler's own catalog error.
      assertError(await call(h, "GET", "/convert?from=XXX&to=USD&amount=1"), "unknownCurrency", "from");
      // A repeated parameter: the last one counts.
      assert.equal(json(await call(h, "GET", "/convert?from=EUR&to=USD&amount=1&amount=3")), { result: 6 });
    },
    {
      actions: {
        convert: async (p: Json, ctx) => {
          seen.push({ ...p });
          if (p.from === "XXX") throw ctx.error("unknownCurrency", "from");
          return { result: p.amount * 2 };
        },
      },
    },
  );
});

// ---------------------------------------------------------------------------------------------------
// Hooks and failures
// ---------------------------------------------------------------------------------------------------

test("hooks: beforeCreate changes the input; a hook throwing an ApiError answers with that error", () => {
  const events: string[] = [];
  return withApp(
    async (h) => {
      const a = await createAuthor(h, "Ann");
      const book = await createBook(h, "quiet", a.id);
      assert.is(book.title, "QUIET");
      assert.is(json(await call(h, "GET", `/books/${book.id}`)).title, "QUIET");
      const blocked = assertError(await call(h, "POST", "/books", { body: { title: "forbidden", author: link("authors", a.id) } }), "conflict", "title");
      assert.is(blocked.dev, "Titles may not say forbidden.");
      assert.is(json(await call(h, "GET", "/books")).size, 1);

      const updated = json(await call(h, "PATCH", `/books/${book.id}`, { body: { pages: 3 } }));
      assert.is(updated.pages, 30);
      assertError(await call(h, "DELETE", `/books/${book.id}`), "forbidden");
      assert.is((await call(h, "GET", `/books/${book.id}`)).statusCode, 200);
      assert.equal(events, ["afterCreate QUIET", "afterUpdate 30"]);
    },
    {
      hooks: {
        books: {
          beforeCreate: (input: Json, ctx) => {
            if (input.title === "forbidden") throw ctx.error("conflict", "title", "Titles may not say forbidden.");
            return { ...input, title: String(input.title).toUpperCase() };
          },
          afterCreate: (instance: Json) => void events.push(`afterCreate ${instance.title}`),
          beforeUpdate: (input: Json, current: Json) => ({ ...input, pages: (input.pages as number) * 10, title: current.title }),
          afterUpdate: (instance: Json) => void events.push(`afterUpdate ${instance.pages}`),
          beforeDelete: () => {
            throw new ApiError(ERRORS.find((e) => e.key === "forbidden")!, "", { dev: "Books are kept." });
          },
        },
      },
    },
  );
});

test("a plain Error (or SyntaxError) from a handler is 500 internal with nothing of it leaked", () =>
  withApp(
    async (h) => {
      for (const path of ["/convert?from=a&to=b&amount=1", "/convert?from=syntax&to=b&amount=1"]) {
        const res = await call(h, "GET", path);
        const body = assertError(res, "internal");
        assert.not.match(res.body, /secret-detail|at \S+ \(|\.ts:\d+/);
        assert.is(body.message, ERRORS.find((e) => e.key === "internal")!.message);
      }
      const res = await call(h, "POST", "/authors", { body: { name: "x" } });
      assertError(res, "internal");
      assert.not.match(res.body, /secret-detail/);
      assert.is(json(await call(h, "GET", "/authors")).size, 0);
    },
    {
      actions: {
        convert: (p: Json) => {
          if (p.from === "syntax") JSON.parse("{secret-detail");
          throw new Error("secret-detail: password=hunter2");
        },
      },
      hooks: {
        authors: {
          beforeCreate: () => {
            throw Object.assign(new Error("secret-detail"), { statusCode: 400, code: "EDB" });
          },
        },
      },
    },
  ));

/** A pino logger at `level` whose lines land in `lines`. */
function capturingLogger(level: string, lines: Json[]) {
  return pino({ level }, { write: (line: string) => void lines.push(JSON.parse(line)) });
}

test("at warn, failures and hooks' ctx.log reach the service's logger with the request id; Fastify logs no requests", async () => {
  const lines: Json[] = [];
  await withApp(
    async (h) => {
      assertError(await call(h, "GET", "/convert?from=a&to=b&amount=1"), "internal");
      await createAuthor(h, "Ann");
      await call(h, "GET", "/authors");
    },
    {
      logger: capturingLogger("warn", lines),
      actions: { convert: () => { throw new Error("boom"); } },
      hooks: { authors: { beforeCreate: (input: Json, ctx: { log: { warn(o: object, m: string): void } }) => (ctx.log.warn({ name: input.name }, "creating"), input) } },
    },
  );
  const failed = lines.find((l) => l.msg === "request failed");
  assert.ok(failed, JSON.stringify(lines));
  assert.is(failed.err.message, "boom");
  assert.ok(failed.reqId, "with the request id");
  const hook = lines.find((l) => l.msg === "creating");
  assert.ok(hook?.reqId && hook.name === "Ann", JSON.stringify(lines));
  assert.not.ok(lines.some((l) => l.msg === "incoming request" || l.msg === "request completed"));
});

test("at info, Fastify logs every request through the service's logger", async () => {
  const lines: Json[] = [];
  await withApp(async (h) => void (await call(h, "GET", "/authors")), { logger: capturingLogger("info", lines) });
  assert.ok(lines.some((l) => l.msg === "incoming request" && l.reqId), JSON.stringify(lines));
  assert.ok(lines.some((l) => l.msg === "request completed" && l.res?.statusCode === 200));
});

test("every error answer has exactly the error body and a JSON Content-Type", () =>
  withApp(async (h) => {
    const a = await createAuthor(h, "Ann");
    const responses = [
      await call(h, "GET", "/nothing"),
      await call(h, "GET", "/authors?limit=x"),
      await call(h, "POST", "/authors", { raw: "{" }),
      await call(h, "POST", "/authors", { body: { name: "Ann" } }),
      await call(h, "GET", "/authors", { key: null }),
      await call(h, "GET", "/authors", { headers: { accept: "image/png" } }),
      await call(h, "DELETE", "/authors"),
      await call(h, "PATCH", `/authors/${a.id}`, { raw: "x", headers: { "content-type": "text/plain" } }),
      await call(h, "GET", "/convert"),
    ];
    for (const res of responses) {
      assert.ok(res.statusCode >= 400);
      assert.ok(String(res.headers["content-type"]).startsWith("application/json"), res.body);
      const body = json(res);
      assert.equal(Object.keys(body).sort(), ERROR_KEYS);
      assert.is(body.status, res.statusCode);
      assert.is(body.info, `${DOCS}/${body.code}`);
      assert.ok(ERRORS.some((e) => e.code === body.code && e.status === body.status));
    }
    // The same condition always gives the same code.
    assert.equal(
      responses.map((r) => json(r).code),
      [40401, 40008, 40000, 40900, 40100, 40600, 40500, 41500, 40009],
    );
  }));

// ---------------------------------------------------------------------------------------------------
// A real socket, and the base URL
// ---------------------------------------------------------------------------------------------------

// ---------------------------------------------------------------------------------------------------
// Limits and confidentiality of the data path
// ---------------------------------------------------------------------------------------------------

/** An author with `n` books, created through the store (fast: no request per book). */
async function authorWithBooks(h: Harness, n: number): Promise<Json> {
  const a = await createAuthor(h, "Prolific");
  for (let i = 0; i < n; i++) {
    const t = new Date(1e12 + i).toISOString();
    await h.store.insert("books", { id: `book-${String(i).padStart(3, "0")}`, createdAt: t, modifiedAt: t, data: { title: `B${i}`, author: a.id } });
  }
  return a;
}

test("expand budget: the issue's deep expand is a quick 400 expandTooLarge on property expand; what fits the budget answers whole", () =>
  withApp(async (h) => {
    const a = await authorWithBooks(h, 25);
    // 25 books, their author 25 times, then 25 × 25 books: 675 instances, within the default 1000.
    const fits = await call(h, "GET", `/authors/${a.id}?expand=books(author(books))`);
    assert.is(fits.statusCode, 200);
    const page = json(fits).books;
    assert.equal([page.limit, page.size, page.items.length], [25, 25, 25]);
    assert.is(page.items[24].author.books.items.length, 25, "never truncated");
    // One more level is 625 more authors: over the budget, refused before it is built.
    const started = performance.now();
    const attack = await call(h, "GET", `/authors/${a.id}?expand=books(author(books(author(books(author(books(author)))))))`);
    assert.ok(performance.now() - started < 2000, `took ${Math.round(performance.now() - started)} ms`);
    const body = assertError(attack, "expandTooLarge", "expand");
    assert.match(body.dev, /more than 1000 instances/);
    assert.match(body.dev, /offset and limit/);
    // Selecting inside links through fields expands them too, and counts alike.
    assertError(await call(h, "GET", `/authors/${a.id}?fields=books(author(books(author(name))))`), "expandTooLarge", "expand");
  }));

test("expand budget: expandLimit counts every inlined instance of a response, across a page, links and nested pages", () =>
  withApp(
    async (h) => {
      const a = await authorWithBooks(h, 12);
      assert.is(json(await call(h, "GET", `/authors/${a.id}?expand=books(author)`)).books.items.length, 12); // 24 instances
      assertError(await call(h, "GET", `/authors/${a.id}?expand=books(author(books))`), "expandTooLarge", "expand"); // 24 + 144
      // A page of books, each with its author: 12 inlined; limit=12 and 25 items alike.
      assert.is(json(await call(h, "GET", "/books?expand=author&limit=12")).items.length, 12);
      const b = await createAuthor(h, "Other");
      for (let i = 0; i < 20; i++) await createBook(h, `O${i}`, b.id);
      // 32 books on the page, each inlining its author: 32 > 30 for one response, though each item inlines one.
      assertError(await call(h, "GET", "/books?expand=author&limit=100"), "expandTooLarge", "expand");
      assert.is(json(await call(h, "GET", "/books?expand=author&limit=30")).items.length, 30);
      // A page without expand inlines nothing, however long.
      assert.is(json(await call(h, "GET", "/books?limit=100")).items.length, 32);
    },
    { expandLimit: 30 },
  ));

test("writeOnly properties never come back: not in answers, reads, pages, expand or sub-collections; fields naming one is 400", () =>
  withApp(async (h) => {
    const a = await createAuthor(h, "Ann", { pin: "1234" });
    assert.not.ok("pin" in a, "not in the 201");
    assert.is((await h.store.get("authors", a.id))?.data.pin, "1234", "but stored");
    const b = await createBook(h, "One", a.id);
    const reads = [
      json(await call(h, "GET", `/authors/${a.id}`)),
      json(await call(h, "GET", "/authors")).items[0],
      json(await call(h, "GET", `/books/${b.id}?expand=author`)).author,
      json(await call(h, "GET", "/books?expand=author")).items[0].author,
      json(await call(h, "GET", `/authors/${a.id}/books?expand=author`)).items[0].author,
      json(await call(h, "GET", `/authors/${a.id}?expand=books(author)`)).books.items[0].author,
      json(await call(h, "PATCH", `/authors/${a.id}`, { body: { born: 1929 } })),
    ];
    for (const read of reads) {
      assert.is(read.name, "Ann");
      assert.not.ok("pin" in read, JSON.stringify(read));
    }
    assertError(await call(h, "GET", `/authors/${a.id}?fields=pin`), "unknownField", "fields");
    assertError(await call(h, "GET", `/authors/${a.id}?fields=name,pin`), "unknownField", "fields");
    assertError(await call(h, "GET", `/books/${b.id}?fields=author(pin)`), "unknownField", "fields");
    assertError(await call(h, "GET", "/authors?fields=pin"), "unknownField", "fields");
    // A merge patch of other fields keeps it; a replace without it drops it.
    assert.is((await h.store.get("authors", a.id))?.data.pin, "1234");
    assert.is((await call(h, "PUT", `/authors/${a.id}`, { body: { name: "Ann" } })).statusCode, 200);
    assert.is((await h.store.get("authors", a.id))?.data.pin, undefined);
  }));

test("a link to another key's x-owner instance is a 400 invalidLink exactly like a link to a missing one", () =>
  withApp(async (h) => {
    const mine = json(await call(h, "POST", "/notes", { body: { text: "mine" } }));
    const missing = "01890a5d-ac96-774b-bcce-b302099a8057";
    const refused = (res: LightMyRequestResponse, id: string) => {
      const body = assertError(res, "invalidLink", "replyTo");
      return { ...body, dev: body.dev.replace(id, "<id>") };
    };
    const toMissing = refused(await call(h, "POST", "/notes", { key: h.other, body: { text: "x", replyTo: link("notes", missing) } }), missing);
    const toOthers = refused(await call(h, "POST", "/notes", { key: h.other, body: { text: "x", replyTo: link("notes", mine.id) } }), mine.id);
    assert.equal(toOthers, toMissing);
    const theirs = json(await call(h, "POST", "/notes", { key: h.other, body: { text: "theirs" } }));
    const patched = refused(await call(h, "PATCH", `/notes/${theirs.id}`, { key: h.other, body: { replyTo: link("notes", mine.id) } }), mine.id);
    assert.equal(patched, toMissing);
    // Their own notes, and any note for an admin, may be linked.
    assert.is((await call(h, "PATCH", `/notes/${theirs.id}`, { key: h.other, body: { replyTo: link("notes", theirs.id) } })).statusCode, 200);
    assert.is((await call(h, "POST", "/notes", { key: h.admin, body: { text: "a", replyTo: link("notes", mine.id) } })).statusCode, 201);
    assert.is((await call(h, "POST", "/notes", { body: { text: "reply", replyTo: link("notes", mine.id) } })).statusCode, 201);
  }));

test("a database locked by another process: the write is 503 storeBusy with Retry-After after the busy budget; a concurrent GET answers at once", async () => {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), "rsc-busy-"));
  const file = path.join(dir, "db.sqlite");
  const store = openSqliteStore(spec, file, { busyTimeoutMs: 1000 });
  const keys = KeyRing.memory();
  const h: Harness = { store, keys, reader: keys.create([]), other: keys.create([]), librarian: keys.create(["librarian"]), admin: keys.create(["admin"]), app: await buildApp({ spec, store, keys }) };
  const other = new Database(file);
  try {
    const a = await createAuthor(h, "Ann");
    other.exec("BEGIN IMMEDIATE"); // held for longer than the budget: until the end of the test
    const started = performance.now();
    const write = call(h, "POST", "/authors", { body: { name: "Locked out" } });
    const read = await call(h, "GET", `/authors/${a.id}`);
    const list = await call(h, "GET", "/authors");
    assert.ok(performance.now() - started < 300, `reads took ${Math.round(performance.now() - started)} ms`);
    assert.equal([read.statusCode, list.statusCode], [200, 200]);
    const res = await write;
    const waited = performance.now() - started;
    assertError(res, "storeBusy");
    assert.is(res.headers["retry-after"], "1");
    assert.ok(waited >= 900 && waited < 3000, `answered after ${Math.round(waited)} ms`);
    other.exec("ROLLBACK");
    assert.is((await call(h, "POST", "/authors", { body: { name: "Let in" } })).statusCode, 201);
  } finally {
    other.close();
    await h.app.close();
    await store.close();
    fs.rmSync(dir, { recursive: true, force: true });
  }
});

test("over a real socket: a POST and a GET", () =>
  withApp(async (h) => {
    const address = await h.app.listen({ port: 0, host: "127.0.0.1" });
    const headers = { authorization: `Bearer ${h.reader.secret}`, "content-type": "application/json" };
    const post = await fetch(`${address}/v1/authors`, { method: "POST", headers, body: JSON.stringify({ name: "Ann" }) });
    assert.is(post.status, 201);
    const created = (await post.json()) as Json;
    assert.is(post.headers.get("location"), href("authors", created.id));
    const get = await fetch(`${address}/v1/authors/${created.id}`, { headers: { ...headers, accept: "application/acme.v1.author.json" } });
    assert.is(get.status, 200);
    assert.is(get.headers.get("content-type"), "application/acme.v1.author.json");
    assert.equal(await get.json(), created);
    const denied = await fetch(`${address}/v1/authors`);
    assert.is(denied.status, 401);
    assert.is(denied.headers.get("www-authenticate"), `Bearer realm="${REALM}", Basic realm="${REALM}"`);
  }));

test("a base URL override (BASE_URL) moves the routes under its path and the hrefs to it", () =>
  withApp(
    async (h) => {
      const at = (method: string, url: string, body?: unknown) =>
        h.app.inject({
          method: method as "GET",
          url,
          headers: { authorization: `Bearer ${h.reader.secret}`, ...(body === undefined ? {} : { "content-type": "application/json" }) },
          ...(body === undefined ? {} : { payload: JSON.stringify(body) }),
        });
      const created = await at("POST", "/api/authors", { name: "Ann" });
      assert.is(created.statusCode, 201, created.body);
      const a = json(created);
      assert.is(created.headers.location, `http://localhost:4000/api/authors/${a.id}`);
      assert.is(a.meta.href, `http://localhost:4000/api/authors/${a.id}`);
      assert.is(a.books.meta.href, `http://localhost:4000/api/authors/${a.id}/books`);
      const book = await at("POST", "/api/books", { title: "One", author: { meta: { href: a.meta.href } } });
      assert.is(book.statusCode, 201, book.body);
      assert.is(json(book).author.meta.href, a.meta.href);
      assertError(await at("POST", "/api/books", { title: "Two", author: link("authors", a.id) }), "invalidLink", "author");
      const list = json(await at("GET", "/api/authors"));
      assert.is(list.meta.href, "http://localhost:4000/api/authors");
      assert.is((await at("GET", "/api/convert?from=a&to=b&amount=1")).statusCode, 501);
      assertError(await at("GET", "/v1/authors"), "routeNotFound");
      assertError(await at("GET", "/authors"), "routeNotFound");
    },
    { baseUrl: "http://localhost:4000/api/" },
  ));

/** A self-signed EC certificate for 127.0.0.1 (the client below does not verify it). */
const TLS = {
  key: `-----BEGIN PRIVATE KEY-----
MIGHAgEAMBMGByqGSM49AgEGCCqGSM49AwEHBG0wawIBAQQgfH86xxSOND5fmSp/
yNbhfUAvQuK4VatcGAW/xnUmOdGhRANCAAQI0vZBxRVAp4gph21eHK7ZswUFCaem
l3HPxtYoZS+K4XPGYGamI1hDTEThTpjfWyeBmvTag3ltM8sNDiNX8MI8
-----END PRIVATE KEY-----\n`,
  cert: `-----BEGIN CERTIFICATE-----
MIIBmzCCAUGgAwIBAgIUU21b07yZPh/9DVbjXSA66YjSaJowCgYIKoZIzj0EAwIw
FDESMBAGA1UEAwwJbG9jYWxob3N0MCAXDTI2MTEyMjIxMTQ0OFoYDzIxMjYxMDI5
MjExNDQ4WjAUMRIwEAYDVQQDDAlsb2NhbGhvc3QwWTATBgcqhkjOPQIBBggqhkjO
PQMBBwNCAAQI0vZBxRVAp4gph21eHK7ZswUFCaeml3HPxtYoZS+K4XPGYGamI1hD
TEThTpjfWyeBmvTag3ltM8sNDiNX8MI8o28wbTAdBgNVHQ4EFgQUoI1sTrw1+wS1
L1KS5Jg/HAsNBUEwHwYDVR0jBBgwFoAUoI1sTrw1+wS1L1KS5Jg/HAsNBUEwDwYD
VR0TAQH/BAUwAwEB/zAaBgNVHREEEzARhwR/AAABgglsb2NhbGhvc3QwCgYIKoZI
zj0EAwIDSAAwRQIgP/nIrSS1XpB8nO4JQnv/J+6Z3zEoqge10N0OJH01VGkCIQCA
qb2/uASyv7X/TEsIr4sVzAT83KIUqXQFGPSf9DYhxQ==
-----END CERTIFICATE-----\n`,
};

function httpsGet(url: string, authorization: string): Promise<{ status: number; body: string; challenge: string | string[] | undefined }> {
  return new Promise((resolve, reject) => {
    const req = https.get(url, { headers: { authorization }, rejectUnauthorized: false }, (res) => {
      let body = "";
      res.setEncoding("utf8");
      res.on("data", (d: string) => (body += d));
      res.on("end", () => resolve({ status: res.statusCode ?? 0, body, challenge: res.headers["www-authenticate"] }));
    });
    req.on("error", reject);
  });
}

test("over TLS (https option), Basic credentials are accepted; wrong ones are 401", () =>
  withApp(
    async (h) => {
      const address = await h.app.listen({ port: 0, host: "127.0.0.1" });
      assert.ok(address.startsWith("https://"));
      const basic = (id: string, secret: string) => `Basic ${Buffer.from(`${id}:${secret}`).toString("base64")}`;
      const ok = await httpsGet(`${address}/v1/authors`, basic(h.reader.id, h.reader.secret));
      assert.is(ok.status, 200, ok.body);
      assert.is(JSON.parse(ok.body).meta.href, href("authors"));
      for (const authorization of [basic(h.reader.id, "wrong"), basic(h.other.id, h.reader.secret), basic("nobody", h.reader.secret)]) {
        const res = await httpsGet(`${address}/v1/authors`, authorization);
        assert.is(res.status, 401);
        assert.is(JSON.parse(res.body).code, 40100);
        assert.equal(res.challenge, `Bearer realm="${REALM}", Basic realm="${REALM}"`);
      }
      assert.is((await httpsGet(`${address}/v1/authors`, `Bearer ${h.admin.secret}`)).status, 200);
    },
    { https: TLS },
  ));

test.run();
