import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { test } from "uvu";
import * as assert from "uvu/assert";
import { checkProject } from "../../../src/pipeline.js";
import type { Model } from "../../../src/model/types.js";
import { repoRoot } from "../../helpers/cli.js";

const model = (name: string): Model => {
  const result = checkProject(path.join(repoRoot, "examples", name));
  assert.equal(result.diagnostics, [], `examples/${name} is clean`);
  assert.ok(result.model);
  return result.model;
};

const library = model("library");
const directory = model("directory");
const resource = (m: Model, c: string) => m.resources.find((r) => r.collection === c)!;
const field = (m: Model, c: string, f: string) => resource(m, c).fields.find((x) => x.name === f)!;

test("resources are sorted and named once: singular, collection, type name", () => {
  assert.equal(directory.resources.map((r) => [r.name, r.collection, r.typeName]), [
    ["account", "accounts", "Account"],
    ["directory", "directories", "Directory"],
    ["folder", "folders", "Folder"],
    ["group", "groups", "Group"],
  ]);
});

test("a $ref to another resource is a link to an instance", () => {
  assert.equal(field(library, "books", "author").kind, "link");
  assert.equal(field(library, "books", "author").link, { kind: "instance", target: "authors", inverse: undefined, onDelete: undefined, nullable: false });
});

test("x-on-delete beside a link's $ref keeps it a link, and the model carries it", () => {
  assert.equal(field(directory, "accounts", "directory").link, { kind: "instance", target: "directories", inverse: undefined, onDelete: "cascade", nullable: false });
  assert.is(field(directory, "accounts", "directory").description, "The directory that holds the account; deleting the directory deletes its accounts.");
  assert.is(field(directory, "groups", "directory").link?.onDelete, undefined);
});

test("a collection link with a link back is that inverse relation (cycles allowed)", () => {
  assert.equal(field(library, "authors", "books").link, { kind: "collection", target: "books", inverse: "author", onDelete: undefined, nullable: false });
  assert.equal(field(directory, "directories", "accounts").link?.inverse, "directory");
});

test("a collection link without a link back is a stored list of links", () => {
  assert.equal(field(directory, "accounts", "groups").link, { kind: "collection", target: "groups", inverse: undefined, onDelete: undefined, nullable: false });
});

test("refs to non-resource files are shared schemas, referred to by name with the annotations written beside them", () => {
  const born = field(library, "authors", "born");
  assert.is(born.kind, "integer");
  assert.equal(born.schema, { $ref: "#/$defs/Year", description: "Year of birth." });
  assert.equal(
    library.schemas.map((s) => [s.name, s.schema, path.basename(s.origin.file), s.origin.pointer]),
    [
      ["Isbn", { type: "string", pattern: "^(97[89])?\\d{9}[\\dX]$", description: "ISBN-10 or ISBN-13, digits only." }, "common.json", "/$defs/isbn"],
      ["Year", { type: "integer", minimum: -3000, maximum: 2100 }, "common.json", "/$defs/year"],
    ],
  );
  // Every field that refers to it names it: one schema, not a copy per use.
  assert.is((field(library, "books", "published").schema as { $ref?: string }).$ref, "#/$defs/Year");
  const isbn = library.actions[0]!.params[0]!;
  assert.is(isbn.name, "isbn");
  assert.is(isbn.kind, "string");
  assert.ok(isbn.required);
});

test("links in the forms of CONTRACT §2: nullable (anyOf with null, a type with null beside the $ref), expandable (anyOf [id string, $ref]); elsewhere an embedded-resource warning", () => {
  const { model, diagnostics } = checkProject(path.join(repoRoot, "test/fixtures/check/embedded-resource"));
  const orders = model!.resources.find((r) => r.collection === "orders")!;
  const link = (name: string) => orders.fields.find((f) => f.name === name)!;
  assert.equal([link("buyer").kind, link("buyer").link?.target, link("buyer").link?.nullable], ["link", "users", true]);
  assert.equal([link("seller").kind, link("seller").link?.target, link("seller").link?.nullable], ["link", "users", false]);
  assert.equal([link("reviewer").kind, link("reviewer").link?.nullable, link("reviewer").description], ["link", true, "Who checked it."]);
  assert.is(link("shipping").kind, "object");
  assert.equal(
    diagnostics.filter((d) => d.code === "embedded-resource").map((d) => [path.basename(d.file), d.pointer]),
    [["orders.json", "/properties/shipping/properties/courier/$ref"]],
  );
});

test("keywords become model fields: unique, owner, access, required", () => {
  const folders = resource(directory, "folders");
  assert.is(folders.owner, "owner");
  assert.equal(folders.access, { admin: ["admin"] });
  assert.equal(resource(directory, "accounts").unique, ["username", "email"]);
  assert.ok(field(directory, "accounts", "username").required);
  assert.not.ok(field(directory, "accounts", "givenName").required);
});

test("service settings: base path, realm default, trimmed URLs", () => {
  assert.is(library.service.basePath, "/v2");
  assert.is(library.service.auth.realm, "Library API");
  assert.equal(library.service.auth.schemes, ["apiKey", "bearer"]);
  assert.is(directory.service.errorDocsUrl, "https://docs.acme.example/errors");
});

test("the error catalog holds built-in and service errors, sorted, with info URLs", () => {
  const codes = directory.errors.map((e) => e.code);
  assert.equal(codes, [...codes].sort((a, b) => a - b));
  const own = directory.errors.find((e) => e.code === 1001)!;
  assert.equal([own.key, own.status, own.builtin, own.info], ["unknownCurrency", 422, false, "https://docs.acme.example/errors/1001"]);
  const conflict = directory.errors.find((e) => e.key === "conflict")!;
  assert.equal([conflict.status, conflict.builtin], [409, true]);
  assert.is(library.errors.find((e) => e.code === 2001)!.key, "bookOnLoan");
});

test("media types: instance, collection, error and action types in both shapes", () => {
  const names = library.mediaTypes.map((t) => t.name);
  assert.ok(names.includes("application/vnd.library.v2.book+json"));
  assert.ok(names.includes("application/vnd.library.v2.books+json"));
  assert.ok(names.includes("application/vnd.library.v2.error+json"));
  assert.ok(names.includes("application/vnd.library.v2.lookup+json"));
  const book = library.mediaTypes.find((t) => t.subject === "book")!;
  assert.equal([book.alias, book.kind, book.version], ["application/library.v2.book.json", "instance", 2]);
});

test("the model is plain JSON data", () => {
  assert.equal(JSON.parse(JSON.stringify(library)), JSON.parse(JSON.stringify(library)));
  assert.ok(library.sources.every((s) => path.isAbsolute(s)));
  assert.ok(library.sources.some((s) => s.endsWith("common.json")), "files read through $ref are sources too");
});


test("a resource's singular: its short noun title, else the inflection library; type names and media types use it", () => {
  const result = checkProject(path.join(repoRoot, "test", "fixtures", "check", "clean-irregular-nouns"));
  assert.equal(result.diagnostics, []);
  const names = result.model!.resources.map((r) => [r.collection, r.name, r.typeName, r.mediaType]);
  assert.equal(names, [
    ["analyses", "analysis", "Analysis", "application/vnd.acme-people.v3.analysis+json"],
    // The library alone reads "caches" as the plural of "cach": the title "Cache" names it.
    ["caches", "cache", "Cache", "application/vnd.acme-people.v3.cache+json"],
    ["holdings", "libraryBook", "LibraryBook", "application/vnd.acme-people.v3.library-book+json"],
    ["indices", "index", "Index", "application/vnd.acme-people.v3.index+json"],
    ["movies", "movie", "Movie", "application/vnd.acme-people.v3.movie+json"],
    // A sentence for a title names nothing: the collection's singular.
    ["notes", "note", "Note", "application/vnd.acme-people.v3.note+json"],
    ["people", "person", "Person", "application/vnd.acme-people.v3.person+json"],
    ["series", "series", "Series", "application/vnd.acme-people.v3.series+json"],
    ["shelves", "shelf", "Shelf", "application/vnd.acme-people.v3.shelf+json"],
    ["tickets2", "ticket2", "Ticket2", "application/vnd.acme-people.v3.ticket2+json"],
  ]);
});

test("a title that would name two resources alike names neither: each takes its collection's singular", () => {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), "resourcery-titles-"));
  try {
    const files: Record<string, unknown> = {
      "service.json": { name: "parts", vendor: "acme", version: 1, baseUrl: "https://api.example.com/v1", errorDocsUrl: "https://docs.example.com/errors", resources: ["a.json", "b.json", "c.json", "d.json", "e.json"] },
      // Two schemas titled alike (Zuora's "Parts").
      "a.json": { title: "Part", type: "object", "x-collection": "creditMemoParts", properties: { n: { type: "string" } } },
      "b.json": { title: "Part", type: "object", "x-collection": "paymentParts", properties: { n: { type: "string" } } },
      // A title that is another collection's singular: the other keeps it.
      "c.json": { title: "Book", type: "object", "x-collection": "volumes", properties: { n: { type: "string" } } },
      "d.json": { type: "object", "x-collection": "books", properties: { n: { type: "string" } } },
      // A title no other resource takes is the name, as before.
      "e.json": { title: "Library card", type: "object", "x-collection": "cards", properties: { n: { type: "string" } } },
    };
    for (const [file, value] of Object.entries(files)) fs.writeFileSync(path.join(dir, file), JSON.stringify(value, null, 2));
    const result = checkProject(dir);
    assert.equal(result.diagnostics.filter((d) => d.severity === "error"), []);
    assert.equal(
      result.model!.resources.map((r) => [r.collection, r.typeName]),
      [["books", "Book"], ["cards", "LibraryCard"], ["creditMemoParts", "CreditMemoPart"], ["paymentParts", "PaymentPart"], ["volumes", "Volume"]],
    );
  } finally {
    fs.rmSync(dir, { recursive: true, force: true });
  }
});

test.run();
