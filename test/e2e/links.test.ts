/**
 * Links stay whole (CONTRACT §6) and hooks run in the write's transaction (§5), over real HTTP against a
 * package generated from definitions of its own (authors, books with a required and an optional link and a
 * stored list of tags, reviews deleted with their book), with user hooks written into it, built with tsc and
 * started as `npm start` starts it, on a SQLite file: refused, cleared and cascaded deletes, stored lists
 * dropping a deleted member, members added and removed one at a time (over HTTP and through the typed
 * client), hrefs of another host or collection refused, an afterCreate throw undoing the create, and a read
 * hook hiding instances from some keys.
 */
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { pathToFileURL } from "node:url";
import { test } from "uvu";
import * as assert from "uvu/assert";
import { repoRoot, runCli } from "../helpers/cli.js";
import { freePort, linkModules, run, start, type Started } from "../helpers/package.js";

const tmp = fs.mkdtempSync(path.join(os.tmpdir(), "resourcery-links-"));
const defs = path.join(tmp, "defs");
const out = path.join(tmp, "links-service");
const tsc = path.join(repoRoot, "node_modules/typescript/bin/tsc");

let server: Started | undefined;
let base = "";
const keys = { librarian: "", reader: "" };

type Json = Record<string, any>;
type Reply = { status: number; headers: Headers; body: any };

function write(file: string, value: unknown): void {
  fs.mkdirSync(path.dirname(path.join(defs, file)), { recursive: true });
  fs.writeFileSync(path.join(defs, file), JSON.stringify(value, null, 2));
}

async function call(method: string, url: string, body?: unknown, secret = keys.librarian): Promise<Reply> {
  const headers: Record<string, string> = { authorization: `Bearer ${secret}` };
  if (body !== undefined) headers["content-type"] = "application/json";
  const res = await fetch(url.startsWith("http") ? url : `${base}${url}`, { method, headers, ...(body !== undefined ? { body: JSON.stringify(body) } : {}) });
  const text = await res.text();
  return { status: res.status, headers: res.headers, body: text ? JSON.parse(text) : undefined };
}

async function create(collection: string, body: Json, secret?: string): Promise<Json> {
  const r = await call("POST", `/${collection}`, body, secret);
  assert.is(r.status, 201, JSON.stringify(r.body));
  return r.body;
}

const link = (x: Json) => ({ meta: { href: x.meta.href } });

function assertError(r: Reply, status: number, code: number, property = ""): Json {
  assert.is(r.status, status, JSON.stringify(r.body));
  assert.equal([r.body.status, r.body.code, r.body.property], [status, code, property], JSON.stringify(r.body));
  assert.is(r.body.info, `http://localhost:3000/docs/errors/${code}`);
  return r.body;
}

test("definitions with x-on-delete pass check; the package generates, takes user hooks, builds and starts", async () => {
  write("service.json", {
    name: "links-service",
    title: "Links",
    vendor: "links",
    version: 1,
    baseUrl: "http://localhost:3000/v1",
    errorDocsUrl: "http://localhost:3000/docs/errors",
    resources: ["resources/*.json"],
    auth: { schemes: ["apiKey"] },
  });
  write("resources/author.json", { title: "Author", type: "object", "x-collection": "authors", required: ["name"], additionalProperties: false, properties: { name: { type: "string" }, books: { type: "array", items: { $ref: "book.json" }, "x-inverse": "author" } } });
  write("resources/tag.json", { title: "Tag", type: "object", "x-collection": "tags", required: ["label"], additionalProperties: false, properties: { label: { type: "string" } } });
  write("resources/book.json", {
    title: "Book",
    type: "object",
    "x-collection": "books",
    "x-access": { update: ["librarian"] },
    required: ["title", "author"],
    additionalProperties: false,
    properties: {
      title: { type: "string" },
      author: { $ref: "author.json" },
      editor: { $ref: "author.json", "x-on-delete": "clear" },
      tags: { type: "array", items: { $ref: "tag.json" }, maxItems: 3 },
    },
  });
  write("resources/review.json", { title: "Review", type: "object", "x-collection": "reviews", required: ["book", "text"], additionalProperties: false, properties: { text: { type: "string" }, book: { $ref: "book.json", "x-on-delete": "cascade" } } });
  const check = runCli(["check", defs]);
  assert.is(check.code, 0, check.stdout + check.stderr);
  const gen = runCli(["generate", defs, "--out", out]);
  assert.is(gen.code, 0, gen.stdout + gen.stderr);

  // User code: a review whose text is "undo" fails after it is stored; books titled "secret…" are the librarian's.
  fs.writeFileSync(
    path.join(out, "src/hooks/reviews.ts"),
    [
      `import type { ResourceHooks } from "../generated/errors.js";`,
      `import type { Review, ReviewInput } from "../generated/types.js";`,
      `export const hooks: ResourceHooks<ReviewInput, Review> = {`,
      `  async afterCreate(review, ctx) {`,
      `    if (review.text === "undo") throw ctx.error("conflict", "text", "Stored, then undone.");`,
      `  },`,
      `};`,
      ``,
    ].join("\n"),
  );
  fs.writeFileSync(
    path.join(out, "src/hooks/books.ts"),
    [
      `import type { ResourceHooks } from "../generated/errors.js";`,
      `import type { Book, BookInput } from "../generated/types.js";`,
      `export const hooks: ResourceHooks<BookInput, Book> = {`,
      `  read(book, ctx) {`,
      `    if (book.title.startsWith("secret") && !ctx.caller.roles.includes("librarian")) return false;`,
      `  },`,
      `};`,
      ``,
    ].join("\n"),
  );
  linkModules(out);
  const build = run(process.execPath, [tsc, "-p", "tsconfig.json"], out);
  assert.is(build.code, 0, build.output);

  const keysFile = path.join(tmp, "keys.json");
  const key = (roles: string) => {
    const r = run("npm", ["run", "--silent", "keys", "--", "create", "--roles", roles], out, { KEYS_FILE: keysFile });
    assert.is(r.code, 0, r.output);
    return (JSON.parse(r.output.trim()) as { secret: string }).secret;
  };
  keys.librarian = key("librarian");
  keys.reader = key("reader");
  const port = await freePort();
  base = `http://127.0.0.1:${port}/v1`;
  server = await start(out, { PORT: String(port), BASE_URL: base, KEYS_FILE: keysFile, DATABASE_FILE: path.join(tmp, "data/links.db"), LOG_LEVEL: "warn" }, `${base}/authors`);
});

test("DELETE of an author a book links to: 409 stillLinked naming books.author; an editor's link is cleared; a deleted tag leaves every list", async () => {
  const ann = await create("authors", { name: "Ann" });
  const ed = await create("authors", { name: "Ed" });
  const t1 = await create("tags", { label: "sf" });
  const book = await create("books", { title: "One", author: link(ann), editor: link(ed), tags: [link(t1)] });

  const refused = assertError(await call("DELETE", `/authors/${ann.id}`), 409, 40901, "books.author");
  assert.match(refused.dev, /"x-on-delete"/);
  assert.is((await call("GET", `/authors/${ann.id}`)).status, 200, "nothing was deleted");

  assert.is((await call("DELETE", `/authors/${ed.id}`)).status, 204);
  const after = (await call("GET", `/books/${book.id}`)).body;
  assert.not.ok("editor" in after, JSON.stringify(after));
  assert.is(after.author.meta.href, ann.meta.href);

  assert.is((await call("DELETE", `/tags/${t1.id}`)).status, 204);
  const tags = (await call("GET", `/books/${book.id}/tags`)).body;
  assert.equal([tags.size, tags.items], [0, []]);
  assert.is((await call("PUT", `/books/${book.id}`, { title: "One", author: link(ann), tags: [] })).status, 200, "the book is whole: a PUT of it as read works");
});

test("cascade: deleting a book deletes its reviews; then its author can go", async () => {
  const ann = await create("authors", { name: "Ann 2" });
  const book = await create("books", { title: "Two", author: link(ann) });
  const r1 = await create("reviews", { text: "good", book: link(book) });
  const r2 = await create("reviews", { text: "bad", book: link(book) });
  assertError(await call("DELETE", `/authors/${ann.id}`), 409, 40901, "books.author");
  assert.is((await call("DELETE", `/books/${book.id}`)).status, 204);
  for (const r of [r1, r2]) assertError(await call("GET", `/reviews/${r.id}`), 404, 40400);
  assert.is((await call("DELETE", `/authors/${ann.id}`)).status, 204);
});

test("members of a stored list: POST adds (201, Location), again 200; DELETE …/<id> removes (204), again 404; an inverse collection answers 405", async () => {
  const ann = await create("authors", { name: "Ann 3" });
  const [a, b] = [await create("tags", { label: "a" }), await create("tags", { label: "b" })];
  const book = await create("books", { title: "Three", author: link(ann), tags: [link(a)] });
  const added = await call("POST", `/books/${book.id}/tags`, link(b));
  assert.is(added.status, 201, JSON.stringify(added.body));
  assert.is(added.headers.get("location"), b.meta.href);
  assert.equal(added.body, b);
  assert.is((await call("POST", `/books/${book.id}/tags`, { meta: { href: `/v1/tags/${b.id}` } })).status, 200);
  assert.equal((await call("GET", `/books/${book.id}/tags`)).body.items.map((t: Json) => t.label), ["a", "b"]);
  assert.is((await call("DELETE", `/books/${book.id}/tags/${a.id}`)).status, 204);
  assertError(await call("DELETE", `/books/${book.id}/tags/${a.id}`), 404, 40400);
  assert.equal((await call("GET", `/books/${book.id}/tags`)).body.items.map((t: Json) => t.label), ["b"]);
  // The same access as an update of the book: x-access update is the librarian's.
  assertError(await call("POST", `/books/${book.id}/tags`, link(a), keys.reader), 403, 40300);
  const inverse = await call("POST", `/authors/${ann.id}/books`, link(book));
  assertError(inverse, 405, 40500);
  assert.is(inverse.headers.get("allow"), "GET, HEAD");
});

test("a written href must name an existing instance of the right collection under this service's base URL", async () => {
  const ann = await create("authors", { name: "Ann 4" });
  const tag = await create("tags", { label: "t" });
  const host = new URL(base).host;
  for (const href of [`http://elsewhere.example/v1/authors/${ann.id}`, `http://${host.replace("127.0.0.1", "localhost")}/v1/authors/${ann.id}`, tag.meta.href, `${base}/authors/nope`]) {
    assertError(await call("POST", "/books", { title: "x", author: { meta: { href } } }), 400, 40005, "author");
  }
  const book = await create("books", { title: "Four", author: { meta: { href: `/v1/authors/${ann.id}` } } });
  assert.is(book.author.meta.href, ann.meta.href);
  assertError(await call("PATCH", `/books/${book.id}`, { editor: { meta: { href: `https://elsewhere.example/v1/authors/${ann.id}` } } }), 400, 40005, "editor");
  assertError(await call("POST", `/books/${book.id}/tags`, { meta: { href: `${base}/authors/${ann.id}` } }), 400, 40005, "tags");
});

test("an afterCreate hook that throws undoes the create: its error is the answer and nothing is stored", async () => {
  const ann = await create("authors", { name: "Ann 5" });
  const book = await create("books", { title: "Five", author: link(ann) });
  const before = (await call("GET", "/reviews")).body.size;
  const undone = assertError(await call("POST", "/reviews", { text: "undo", book: link(book) }), 409, 40900, "text");
  assert.is(undone.dev, "Stored, then undone.");
  assert.is((await call("GET", "/reviews")).body.size, before);
  await create("reviews", { text: "kept", book: link(book) });
  assert.is((await call("GET", "/reviews")).body.size, before + 1);
});

test("a read hook hides books from keys without the librarian role: 403, left out of lists and sub-collections, not linkable", async () => {
  const ann = await create("authors", { name: "Ann 6" });
  const secret = await create("books", { title: "secret plans", author: link(ann) });
  await create("books", { title: "open plans", author: link(ann) });
  assertError(await call("GET", `/books/${secret.id}`, undefined, keys.reader), 403, 40300);
  assert.is((await call("GET", `/books/${secret.id}`)).status, 200);
  const mine = (await call("GET", `/authors/${ann.id}/books`, undefined, keys.reader)).body;
  assert.equal([mine.size, mine.items.map((b: Json) => b.title)], [1, ["open plans"]]);
  assert.is((await call("GET", `/authors/${ann.id}/books`)).body.size, 2);
  const all = (await call("GET", "/books?limit=100", undefined, keys.reader)).body;
  assert.not.ok(all.items.some((b: Json) => b.title.startsWith("secret")));
  assert.is(all.size, all.items.length);
  assertError(await call("POST", "/reviews", { text: "x", book: link(secret) }, keys.reader), 400, 40005, "book");
});

test("the typed client: api.books.tags.add(id, tag) and .remove(id, tagId), errors as ApiError", async () => {
  const client = await import(pathToFileURL(path.join(out, "dist/client/index.js")).href);
  const api = client.createClient({ baseUrl: base, auth: { bearer: keys.librarian } });
  const ann = await api.authors.create({ name: "Ann 7" });
  const tag = await api.tags.create({ label: "client" });
  const book = await api.books.create({ title: "Seven", author: { meta: { href: ann.meta.href } } });
  const added = await api.books.tags.add(book.id, tag);
  assert.equal(added, tag);
  assert.equal((await api.books.tags.add(book.id, tag.meta.href)).id, tag.id);
  assert.equal((await api.books.tags(book.id)).items.map((t: Json) => t.id), [tag.id]);
  await api.books.tags.remove(book.id, tag.id);
  assert.is((await api.books.tags(book.id)).size, 0);
  try {
    await api.books.tags.remove(book.id, tag.id);
    assert.unreachable("a second remove is a 404");
  } catch (e) {
    assert.instance(e, client.ApiError);
    assert.equal([(e as Json).status, (e as Json).code], [404, 40400]);
  }
  try {
    await api.authors.delete(ann.id);
    assert.unreachable("the author is still linked");
  } catch (e) {
    assert.equal([(e as Json).status, (e as Json).code, (e as Json).property], [409, 40901, "books.author"]);
  }
});

test.after(async () => {
  const code = await server?.stop();
  if (server && code !== 0) console.error(server.log());
  fs.rmSync(tmp, { recursive: true, force: true });
});

test.run();
