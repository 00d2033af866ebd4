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
function contract(files: { service?: Json; book?: Json; author?: Json | null; extra?: Record<string, Json> } = {}): WireContract {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), "rsc-contract-"));
  try {
    const service = files.service ?? SERVICE;
    fs.writeFileSync(path.join(dir, "service.json"), JSON.stringify(files.author === null ? { ...service, resources: ["book.json"] } : service));
    fs.writeFileSync(path.join(dir, "book.json"), JSON.stringify(files.book ?? BOOK));
    if (files.author !== null) fs.writeFileSync(path.join(dir, "author.json"), JSON.stringify(files.author ?? AUTHOR));
    for (const [file, value] of Object.entries(files.extra ?? {})) fs.writeFileSync(path.join(dir, file), JSON.stringify(value));
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

// Shared schemas (CONTRACT §2: a schema referenced from several places stays one schema in every output).
const GEO: Json = { type: "object", properties: { lat: { type: "number" }, lng: { type: "number" } } };
const ADDRESS: Json = { type: "object", properties: { city: { type: "string", maxLength: 80 }, geo: { $ref: "geo.json" } } };
const withAddress = book((b) => ((b.properties.address = { $ref: "address.json" }), (b.properties.shipTo = { $ref: "address.json" })));
const shared = (address = ADDRESS, geo = GEO, service = SERVICE) => contract({ service, book: withAddress, extra: { "address.json": address, "geo.json": geo } });
const sharedBase = shared();
const changed = (c: WireContract, before = sharedBase) => classify(before, c);

test("shared schemas are kept by name, once each; a change inside one is reported once, at it, for the clients of what uses it", () => {
  assert.equal(Object.keys(sharedBase.shared), ["Address", "Geo"]);
  assert.equal(sharedBase.versions["1"]!.resources.books!.properties.address!.schema, { $ref: "Address" });
  assert.equal(sharedBase.shared.Address!.schema, { properties: { city: { maxLength: 80, type: "string" }, geo: { $ref: "Geo" } }, type: "object" });
  assert.equal(sharedBase.shared.Geo!.origin, { file: "geo.json", pointer: "" });
  assert.equal(changes(shared(), sharedBase), []);
  assert.equal(changes(shared(ADDRESS, { ...GEO, description: "Where on earth." }), sharedBase), [], "wording changes nothing");
  // A change two shared schemas deep: once (not once per property that reaches it), at the schema's own file.
  const deep = changed(shared(ADDRESS, { ...GEO, properties: { ...GEO.properties, lat: { type: "string" } } }));
  assert.equal(deep.map((c) => [c.breaking, c.subject, c.what, c.clients, c.origin.file]), [[true, "Geo", 'schema "Geo".lat: type "number" became "string"', "clients of version 1 that send or read books.address, books.shipTo", "geo.json"]]);
  const looser = changed(shared({ ...ADDRESS, properties: { ...ADDRESS.properties, city: { type: "string", maxLength: 120 } } }));
  assert.equal(looser.map((c) => [c.breaking, c.subject, c.what, c.clients]), [[false, "Address", 'schema "Address".city: maxLength changed (80 → 120)', ""]]);
});

test("a shared schema used only by an action's response: a change only senders feel breaks no client; one readers feel does", () => {
  const service = structuredClone(SERVICE);
  service.actions.locate = { method: "GET", response: { $ref: "place.json" } };
  const PLACE: Json = { type: "object", properties: { name: { type: "string", maxLength: 50 }, kind: { type: "string", enum: ["city", "town"] } } };
  const at = (place: Json) => contract({ service, book: withAddress, extra: { "address.json": ADDRESS, "geo.json": GEO, "place.json": place } });
  const before = at(PLACE);
  const stricter = classify(before, at({ ...PLACE, properties: { ...PLACE.properties, name: { type: "string", maxLength: 20 } } }));
  assert.equal(stricter.map((c) => [c.breaking, c.subject, c.what]), [[false, "Place", 'schema "Place".name: maxLength changed (50 → 20)']]);
  const newValue = classify(before, at({ ...PLACE, properties: { ...PLACE.properties, kind: { type: "string", enum: ["city", "town", "village"] } } }));
  assert.equal(newValue.map((c) => [c.breaking, c.subject, c.what, c.clients]), [[true, "Place", 'schema "Place".kind: new values ["village"]', "clients of version 1 that read locate"]]);
});

test("a property that refers to another shared schema: alike ones change nothing, a different one breaks", () => {
  const alike = contract({ book: book((b) => ((b.properties.address = { $ref: "place.json" }), (b.properties.shipTo = { $ref: "address.json" }))), extra: { "address.json": ADDRESS, "geo.json": GEO, "place.json": ADDRESS } });
  assert.equal(changes(alike, sharedBase), []);
  const other = contract({ book: book((b) => ((b.properties.address = { $ref: "geo.json" }), (b.properties.shipTo = { $ref: "address.json" }))), extra: { "address.json": ADDRESS, "geo.json": GEO } });
  assert.equal(changes(other, sharedBase), ['breaking v1 books.address: property "address": $ref changed ("Address" → "Geo")']);
});

test("a $ref fan-out that doubles at each of 40 levels: a contract of one schema per level, made at once; a change at the bottom is one change", () => {
  // Written in where used, as the first form of the contract did, this never finished (Stripe's definitions ran out of memory).
  const levels = 40;
  const defs = (bottom: Json): Json => {
    const out: Json = { [`l${levels}`]: bottom };
    for (let i = 0; i < levels; i++) out[`l${i}`] = { type: "object", properties: { left: { anyOf: [{ $ref: `#/$defs/l${i + 1}` }, { type: "null" }] }, right: { anyOf: [{ $ref: `#/$defs/l${i + 1}` }, { type: "null" }] } } };
    return out;
  };
  const started = performance.now();
  const before = contract({ book: book((b) => ((b.properties.tree = { $ref: "#/$defs/l0" }), (b.$defs = defs({ type: "string" })))) });
  const after = contract({ book: book((b) => ((b.properties.tree = { $ref: "#/$defs/l0" }), (b.$defs = defs({ type: "integer" })))) });
  const found = classify(before, after);
  assert.ok(performance.now() - started < 5000, `${Math.round(performance.now() - started)} ms`);
  assert.ok(JSON.stringify(after).length < 50_000, `the contract is ${JSON.stringify(after).length} characters`);
  assert.equal(Object.keys(after.shared).length, levels + 1);
  assert.equal(found.map((c) => [c.breaking, c.subject, c.what, c.clients]), [[true, "L40", 'schema "L40": type "string" became "integer"', "clients of version 1 that send or read books.tree"]]);
});

test("a contract recorded in the first form (shared schemas written in) is still compared, property by property", () => {
  const writeIn = (c: WireContract): Json => {
    const inline = (v: unknown): unknown => {
      if (Array.isArray(v)) return v.map(inline);
      if (v === null || typeof v !== "object") return v;
      const o = v as Json;
      if (typeof o.$ref === "string" && c.shared[o.$ref]) return inline(c.shared[o.$ref]!.schema);
      return Object.fromEntries(Object.entries(o).map(([k, x]) => [k, inline(x)]));
    };
    const versions = structuredClone(c.versions) as Json;
    for (const v of Object.values(versions)) for (const r of Object.values(v.resources as Json)) for (const p of Object.values((r as Json).properties as Json)) (p as Json).schema = inline((p as Json).schema);
    return { format: 1, versions };
  };
  const v1 = writeIn(sharedBase) as Parameters<typeof classify>[0];
  assert.equal(classify(v1, sharedBase), []);
  const found = classify(v1, shared(ADDRESS, { ...GEO, properties: { ...GEO.properties, lat: { type: "string" } } }));
  assert.equal(found.map((c) => `${c.breaking} ${c.subject}: ${c.what}`), ['true books.address: property "address".geo.lat: type "number" became "string"', 'true books.shipTo: property "shipTo".geo.lat: type "number" became "string"']);
});

test.run();
