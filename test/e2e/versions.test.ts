/**
 * Several versions served at once (CONTRACT §7) by a generated, built, started package over real HTTP: a
 * library whose version 3 renamed, added and retired properties of version 2, served until its sunset.
 * What one version writes the other reads, through both version prefixes and every Accept shape; each
 * version's hrefs, media types, names and headers; 406 for an unknown version or one the path disagrees
 * with; the package's own tests pass.
 */
import path from "node:path";
import { Ajv2020 } from "ajv/dist/2020.js";
import formatsPlugin from "ajv-formats";
import { test } from "uvu";
import * as assert from "uvu/assert";
import { repoRoot } from "../helpers/cli.js";
import { run } from "../helpers/package.js";
import { serve, type Reply, type Served } from "../helpers/served.js";
import { VERSIONED_DEFS } from "../helpers/versioned-library.js";

let s: Served;
let origin: string;

test.before(async () => {
  s = await serve("versions", VERSIONED_DEFS, { basePath: "/v3" });
  origin = new URL(s.base).origin;
});
test.after(async () => s?.close());

/** A request to a path of the origin (`/v2/books`), with the key; a body as JSON. */
const call = (method: string, pathname: string, body?: unknown, headers: Record<string, string> = {}): Promise<Reply> => s.call(method, origin + pathname, body, headers);

test("the package's own tests pass", () => {
  const r = run(process.execPath, [path.join(repoRoot, "node_modules/uvu/bin.js"), "dist/test/generated", "\\.test\\.js$"], s.out);
  assert.is(r.code, 0, r.output);
});

test("written in version 2, read in version 3 and back: names, defaults, retired properties, hrefs, media types, headers", async () => {
  const author = await call("POST", "/v2/authors", { name: "Le Guin" });
  assert.is(author.status, 201, JSON.stringify(author.body));
  assert.is(author.body.name, "Le Guin");
  assert.ok(author.body.meta.href.startsWith(`${origin}/v2/authors/`));
  const book = await call("POST", "/v2/books", { name: "Earthsea", shelfMark: "F-12", author: { meta: { href: author.body.meta.href } } }, { accept: "application/vnd.library.v2.book+json" });
  assert.is(book.status, 201, JSON.stringify(book.body));
  assert.is(book.headers.get("content-type"), "application/vnd.library.v2.book+json");
  assert.is(book.headers.get("deprecation"), `@${Date.parse("2026-11-01T00:00:00Z") / 1000}`);
  assert.is(book.headers.get("sunset"), "Wed, 30 Jun 2027 23:59:59 GMT");
  assert.ok(book.headers.get("location")!.startsWith(`${origin}/v2/books/`));
  assert.equal(Object.keys(book.body).filter((k) => !["meta", "id", "createdAt", "modifiedAt"].includes(k)).sort(), ["author", "name", "shelfMark"]);

  const v3 = await call("GET", `/v3/books/${book.body.id}?expand=author`);
  assert.is(v3.status, 200, JSON.stringify(v3.body));
  assert.is(v3.headers.get("deprecation"), null);
  assert.is(v3.headers.get("sunset"), null);
  assert.is(v3.body.meta.mediaType, "application/vnd.library.v3.book+json");
  assert.is(v3.body.title, "Earthsea");
  assert.is(v3.body.format, "paper", "the default of the property version 2 lacks");
  assert.is(v3.body.shelfMark, undefined, "retired after version 2");
  assert.is(v3.body.author.fullName, "Le Guin", "the expanded author in version 3's names");
  assert.ok(v3.body.author.meta.href.startsWith(`${origin}/v3/authors/`));

  const patched = await call("PATCH", `/v3/books/${book.body.id}`, { title: "A Wizard of Earthsea", format: "ebook" });
  assert.is(patched.status, 200, JSON.stringify(patched.body));
  const back = await call("GET", `/v2/books/${book.body.id}?expand=author`);
  assert.is(back.body.name, "A Wizard of Earthsea");
  assert.is(back.body.shelfMark, "F-12", "a version-3 write keeps what only version 2 has");
  assert.is(back.body.author.name, "Le Guin");
  assert.is(back.body.author.meta.mediaType, "application/vnd.library.v2.author+json");
  const replaced = await call("PUT", `/v2/books/${book.body.id}`, { name: "Tehanu", author: { meta: { href: author.body.meta.href } } });
  assert.is(replaced.status, 200, JSON.stringify(replaced.body));
  assert.is((await call("GET", `/v3/books/${book.body.id}`)).body.format, "ebook", "a version-2 replace keeps what only version 3 has");
});

test("the version from Accept in both vendor shapes and as version=N; 406 for an unknown one and for one the path disagrees with", async () => {
  const author = await call("POST", "/v3/authors", { fullName: "Banks" });
  assert.is(author.status, 201);
  const id = author.body.id as string;
  const alias = await call("GET", `/v2/authors/${id}`, undefined, { accept: "application/library.v2.author.json" });
  assert.is(alias.status, 200);
  assert.is(alias.headers.get("content-type"), "application/library.v2.author.json");
  assert.is(alias.body.name, "Banks");
  const param = await call("GET", `/v2/authors/${id}`, undefined, { accept: "application/json; version=2" });
  assert.is(param.status, 200);
  assert.is(param.body.name, "Banks");
  for (const [pathname, accept] of [
    [`/v3/authors/${id}`, "application/vnd.library.v2.author+json"],
    [`/v2/authors/${id}`, "application/json; version=3"],
    [`/v3/authors/${id}`, "application/vnd.library.v9.author+json"],
  ] as const) {
    const r = await call("GET", pathname, undefined, { accept });
    assert.is(r.status, 406, `${pathname} ${accept}`);
    assert.is(r.body.status, 406);
    assert.type(r.body.dev, "string");
  }
  assert.is((await call("GET", "/v1/authors")).status, 404, "version 1 is not served");
  assert.is((await call("GET", "/v2/reviews")).status, 404, "reviews came with version 3");
  assert.is((await call("GET", "/v3/reviews")).status, 200);
});

test("fields, expand and errors in the version's names", async () => {
  const author = (await call("POST", "/v2/authors", { name: "Pratchett" })).body;
  const book = (await call("POST", "/v2/books", { name: "Mort", isbn: "978-0", author: { meta: { href: author.meta.href } } })).body;
  const picked = await call("GET", `/v2/books/${book.id}?fields=name,author(name)`);
  assert.is(picked.status, 200, JSON.stringify(picked.body));
  assert.equal(Object.keys(picked.body).sort(), ["author", "meta", "name"]);
  assert.is(picked.body.author.name, "Pratchett");
  assert.is((await call("GET", `/v2/books/${book.id}?fields=title`)).status, 400);
  const taken = await call("POST", "/v2/books", { name: "Other", isbn: "978-0", author: { meta: { href: author.meta.href } } });
  assert.is(taken.status, 409);
  assert.is(taken.body.property, "isbn");
  const invalid = await call("POST", "/v2/books", { name: "", author: { meta: { href: author.meta.href } } });
  assert.is(invalid.status, 400);
  assert.is(invalid.body.property, "name");
});

test("the docs of each version are served: openapi.v2.json with version 2's names, server and deprecation; the changelog", async () => {
  const v2 = await fetch(`${origin}/docs/openapi.v2.json`);
  assert.is(v2.status, 200);
  const doc = (await v2.json()) as Record<string, any>;
  assert.ok(String(doc.servers[0].url).endsWith("/v2"), doc.servers[0].url);
  assert.ok(Object.keys(doc.paths).includes("/books"), Object.keys(doc.paths).join(" "));
  assert.not.ok(Object.keys(doc.paths).includes("/reviews"), "reviews came with version 3");
  const book = JSON.stringify(doc.components.schemas);
  assert.match(book, /"shelfMark"/);
  assert.equal(doc.paths["/books"].get.deprecated, true);
  const current = (await (await fetch(`${origin}/docs/openapi.json`)).json()) as Record<string, any>;
  assert.ok(Object.keys(current.paths).includes("/reviews"));
  assert.not.match(JSON.stringify(current.components.schemas), /"shelfMark"/, "retired after version 2");
  // V2: each version's JSON Schemas, which a version-2 representation validates against.
  const schemas = await fetch(`${origin}/docs/schemas/v2.json`);
  assert.is(schemas.status, 200);
  const defs = (await schemas.json()) as Record<string, any>;
  const ajv = new Ajv2020({ strict: false, allErrors: true });
  ((formatsPlugin as unknown as { default?: (a: Ajv2020) => void }).default ?? (formatsPlugin as unknown as (a: Ajv2020) => void))(ajv);
  const validate = ajv.compile({ ...defs, $ref: "#/$defs/Book" });
  const author = await call("POST", "/v2/authors", { name: "Delany" });
  const written = await call("POST", "/v2/books", { name: "Dhalgren", shelfMark: "D-1", author: { meta: { href: author.body.meta.href } } });
  const writtenId = written.body.id as string;
  assert.ok(validate(written.body), JSON.stringify(validate.errors));
  assert.ok(defs.$defs.Book.properties.name && defs.$defs.Book.properties.shelfMark && !defs.$defs.Book.properties.title, "version 2's names");
  const read = await call("GET", `/v3/books/${writtenId}`);
  const v3 = ajv.compile({ ...((await (await fetch(`${origin}/docs/schemas/v3.json`)).json()) as object), $ref: "#/$defs/Book" });
  assert.ok(v3(read.body), JSON.stringify(v3.errors));
  assert.not.ok(validate(read.body), "a version-3 representation is not version 2's");
  const changelog = await fetch(`${origin}/docs/changelog.html`);
  assert.is(changelog.status, 200);
  assert.match(await changelog.text(), /shelfMark/);
});

test.run();
