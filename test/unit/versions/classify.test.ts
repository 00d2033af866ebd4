/**
 * The wire contract of a service (src/versions/contract.ts) and the classification of what changed between
 * two (src/versions/classify.ts), on small definitions changed one way at a time: every kind of break the
 * gate refuses (CONTRACT §7) and the changes it lets through.
 */
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { test } from "uvu";
import * as assert from "uvu/assert";
import { checkProject } from "../../../src/pipeline.js";
import { classify, type ContractChange } from "../../../src/versions/classify.js";
import { contractOf, type WireContract } from "../../../src/versions/contract.js";

type Json = Record<string, any>;

const SERVICE: Json = {
  name: "shop-service",
  vendor: "acme",
  version: 1,
  baseUrl: "https://api.example.com",
  errorDocsUrl: "https://docs.example.com/errors",
  resources: ["book.json", "author.json"],
  actions: {
    lookup: { method: "GET", query: { type: "object", required: ["isbn"], properties: { isbn: { type: "string" } } }, response: { type: "object", properties: { title: { type: "string" } } } },
  },
};
const BOOK: Json = {
  title: "Book",
  type: "object",
  "x-collection": "books",
  "x-access": { create: ["librarian"] },
  required: ["title"],
  properties: {
    title: { type: "string", maxLength: 200, description: "The title." },
    pages: { type: "integer", minimum: 1 },
    format: { type: "string", enum: ["paper", "ebook"] },
    isbn: { type: "string" },
    author: { $ref: "author.json" },
  },
};
const AUTHOR: Json = { title: "Author", type: "object", "x-collection": "authors", properties: { name: { type: "string" } } };

/** The contract of the definitions `files` (service.json, book.json, author.json, each overriding the defaults). */
function contract(files: { service?: Json; book?: Json; author?: Json | null } = {}): WireContract {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), "rsc-contract-"));
  try {
    const service = files.service ?? SERVICE;
    fs.writeFileSync(path.join(dir, "service.json"), JSON.stringify(files.author === null ? { ...service, resources: ["book.json"] } : service));
    fs.writeFileSync(path.join(dir, "book.json"), JSON.stringify(files.book ?? BOOK));
    if (files.author !== null) fs.writeFileSync(path.join(dir, "author.json"), JSON.stringify(files.author ?? AUTHOR));
    const result = checkProject(dir);
    const errors = result.diagnostics.filter((d) => d.severity === "error");
    assert.equal(errors, [], "the definitions check clean");
    return contractOf(result.model!, dir);
  } finally {
    fs.rmSync(dir, { recursive: true, force: true });
  }
}

const base = contract();
/** The book with `change` applied to a copy. */
const book = (change: (b: Json) => void): Json => {
  const b = structuredClone(BOOK);
  change(b);
  return b;
};
/** "breaking books.title: …" lines of the changes from the base contract to `after`. */
const changes = (after: WireContract, before = base): string[] => classify(before, after).map((c: ContractChange) => `${c.breaking ? "breaking" : "compatible"} v${c.version} ${c.subject}: ${c.what}`);

test("the same definitions, and definitions changed only in wording or order, change nothing", () => {
  assert.equal(changes(contract()), []);
  assert.equal(changes(contract({ book: book((b) => ((b.properties.title.description = "Another text"), (b.description = "Books."))) })), []);
  const reordered = book((b) => (b.properties = Object.fromEntries(Object.entries(b.properties).reverse())));
  assert.equal(changes(contract({ book: reordered })), []);
});

test("a property removed, renamed, newly required, or required no more breaks; a new optional property does not", () => {
  assert.equal(changes(contract({ book: book((b) => delete b.properties.isbn) })), ['breaking v1 books.isbn: property "isbn" was removed (or renamed)']);
  assert.equal(changes(contract({ book: book((b) => ((b.properties.code = b.properties.isbn), delete b.properties.isbn)) })), [
    'breaking v1 books.isbn: property "isbn" was removed (or renamed)',
    'compatible v1 books.code: property "code" is new',
  ]);
  assert.equal(changes(contract({ book: book((b) => b.required.push("pages")) })), ['breaking v1 books.pages: property "pages" is now required']);
  assert.equal(changes(contract({ book: book((b) => (b.required = [])) })), ['breaking v1 books.title: property "title" is no longer required (an answer may leave it out)']);
  assert.equal(changes(contract({ book: book((b) => ((b.properties.subtitle = { type: "string" }), b.required.push("subtitle"))) })), ['breaking v1 books.subtitle: property "subtitle" is new and required']);
  assert.equal(changes(contract({ book: book((b) => (b.properties.subtitle = { type: "string" })) })), ['compatible v1 books.subtitle: property "subtitle" is new']);
});

test("a type changed, an enum value removed or added, a stricter limit break; a looser limit does not", () => {
  assert.equal(changes(contract({ book: book((b) => ((b.properties.pages.type = "string"), delete b.properties.pages.minimum)) })), [
    'breaking v1 books.pages: property "pages": type "integer" became "string"',
    'compatible v1 books.pages: property "pages": minimum removed (1 → none)',
  ]);
  assert.equal(changes(contract({ book: book((b) => (b.properties.format.enum = ["paper"])) })), ['breaking v1 books.format: property "format": values ["ebook"] no longer allowed']);
  assert.equal(changes(contract({ book: book((b) => b.properties.format.enum.push("audio")) })), ['breaking v1 books.format: property "format": new values ["audio"]']);
  assert.equal(changes(contract({ book: book((b) => (b.properties.title.maxLength = 100)) })), ['breaking v1 books.title: property "title": maxLength changed (200 → 100)']);
  assert.equal(changes(contract({ book: book((b) => (b.properties.title.maxLength = 500)) })), ['compatible v1 books.title: property "title": maxLength changed (200 → 500)']);
  assert.equal(changes(contract({ book: book((b) => (b.properties.isbn.format = "email")) })), ['breaking v1 books.isbn: property "isbn": format added ("email")']);
  assert.equal(changes(contract({ book: book((b) => (b.properties.isbn.type = ["string", "null"])) })), ['breaking v1 books.isbn: property "isbn": type "string" became ["string","null"]']);
});

test("a new unique key and stricter access break; looser access does not; a link that changes its target breaks", () => {
  assert.equal(changes(contract({ book: book((b) => (b["x-unique"] = ["isbn"])) })), ['breaking v1 books.isbn: "isbn" is now unique (x-unique): a value already taken is refused']);
  assert.equal(changes(contract({ book: book((b) => (b["x-access"].delete = ["admin"])) })), ['breaking v1 books: delete needs one of the roles ["admin"] (was no role)']);
  assert.equal(changes(contract({ book: book((b) => (b["x-access"].create = ["librarian", "editor"])) })), ['compatible v1 books: create needs one of the roles ["editor","librarian"] (was ["librarian"])']);
  assert.equal(changes(contract({ book: book((b) => (b["x-access"] = {})) })), ['compatible v1 books: create needs no role (was ["librarian"])']);
  assert.equal(changes(contract({ book: book((b) => (b.properties.author = { type: "array", items: { $ref: "author.json" } })) })), ['breaking v1 books.author: property "author" was a link to authors and is links to authors']);
});

test("a collection or an action removed breaks, a new one does not; an action's new required parameter breaks", () => {
  assert.equal(changes(contract({ author: null, book: book((b) => delete b.properties.author) })), [
    "breaking v1 authors: the collection authors is no longer served",
    'breaking v1 books.author: property "author" was removed (or renamed)',
  ]);
  assert.equal(changes(contract(), contract({ author: null, book: book((b) => delete b.properties.author) })), [
    'compatible v1 authors: the collection authors is new',
    'compatible v1 books.author: property "author" is new',
  ]);
  const withParam = structuredClone(SERVICE);
  withParam.actions.lookup.query.properties.edition = { type: "integer" };
  withParam.actions.lookup.query.required.push("edition");
  assert.equal(changes(contract({ service: withParam })), ['breaking v1 lookup.edition: parameter "edition" is new and required']);
  const noAction = { ...SERVICE, actions: {} };
  assert.equal(changes(contract({ service: noAction })), ["breaking v1 lookup: the action lookup is no longer served"]);
});

test("a new version that renames with x-renamed keeps the old one whole; dropping the old version breaks its clients", () => {
  const v2 = { ...SERVICE, version: 2, versions: { "1": {} } };
  const renamed = book((b) => ((b.properties.code = { ...b.properties.isbn, "x-renamed": { "1": "isbn" } }), delete b.properties.isbn));
  const next = contract({ service: v2, book: renamed });
  assert.equal(Object.keys(next.versions), ["1", "2"]);
  assert.ok(next.versions["1"]!.resources.books!.properties.isbn, "version 1 still calls it isbn");
  assert.equal(changes(next), [], "version 1 is as it was; version 2 is new (nothing recorded to break)");
  const dropped = contract({ service: { ...SERVICE, version: 2 }, book: renamed });
  assert.equal(changes(dropped), ["breaking v1 version 1: version 1 is no longer served"]);
});

test.run();
