/**
 * The `fields` and `expand` selections of the runtime: parsing, checking against the resources, and
 * which links a request expands.
 */
import { test } from "uvu";
import * as assert from "uvu/assert";
import {
  checkSelection,
  expansionOf,
  MAX_SELECTION_DEPTH,
  MAX_SELECTION_NAMES,
  parseSelection,
  type Selection,
} from "../../../templates/runtime/select.js";
import type { FieldSpec, ResourceSpec } from "../../../templates/runtime/spec.js";

function resource(name: string, collection: string, fields: FieldSpec[]): ResourceSpec {
  return {
    name,
    collection,
    fields,
    required: [],
    unique: [],
    access: {},
    owner: undefined,
    mediaType: `application/vnd.acme.v1.${name}+json`,
    collectionMediaType: `application/vnd.acme.v1.${collection}+json`,
    bodySchema: true,
  };
}

const books = resource("book", "books", [
  { name: "title", kind: "string" },
  { name: "pages", kind: "integer" },
  { name: "tags", kind: "array" },
  { name: "details", kind: "object" },
  {
    name: "address",
    kind: "object",
    properties: [
      { name: "city", kind: "string" },
      { name: "geo", kind: "object", properties: [{ name: "lat", kind: "number" }, { name: "lng", kind: "number" }] },
    ],
  },
  { name: "author", kind: "link", link: { kind: "instance", target: "authors" } },
  { name: "publisher", kind: "link", link: { kind: "instance", target: "publishers" } },
  { name: "reviews", kind: "links", link: { kind: "collection", target: "reviews" } },
]);
const authors = resource("author", "authors", [
  { name: "name", kind: "string" },
  { name: "books", kind: "links", link: { kind: "collection", target: "books", inverse: "author" } },
  { name: "agent", kind: "link", link: { kind: "instance", target: "agents" } }, // target not in the spec
  { name: "mentor", kind: "link" }, // no link info
]);
const publishers = resource("publisher", "publishers", [
  { name: "name", kind: "string" },
  { name: "city", kind: "string" },
]);
const reviews = resource("review", "reviews", [
  { name: "stars", kind: "integer" },
  { name: "book", kind: "link", link: { kind: "instance", target: "books" } },
]);
const resources: ReadonlyMap<string, ResourceSpec> = new Map([books, authors, publishers, reviews].map((r) => [r.collection, r]));

/** A deep copy with ordinary prototypes, for comparison with object literals. */
const plain = (tree: Selection): unknown => JSON.parse(JSON.stringify(tree));

function tree(expr: string): Selection {
  const parsed = parseSelection(expr);
  if (!parsed.ok) throw new Error(`${expr}: ${parsed.error}`);
  return parsed.tree;
}

function parsesTo(expr: string, expected: unknown) {
  const parsed = parseSelection(expr);
  assert.ok(parsed.ok, `${expr} should parse`);
  if (parsed.ok) assert.equal(plain(parsed.tree), expected, expr);
}

function fails(expr: string, error: string) {
  assert.equal(parseSelection(expr), { ok: false, error }, expr);
}

/** "a(" nested n levels deep: a1(a2(...(an)...)). */
function nested(levels: number): string {
  let expr = `a${levels}`;
  for (let i = levels - 1; i >= 1; i--) expr = `a${i}(${expr})`;
  return expr;
}

// parseSelection

test("parseSelection: flat names", () => {
  parsesTo("title", { title: {} });
  parsesTo("title,pages", { title: {}, pages: {} });
  parsesTo("A_b-c$9,_,$,-,0", { "A_b-c$9": {}, _: {}, $: {}, "-": {}, "0": {} });
});

test("parseSelection: nested names to any depth", () => {
  parsesTo("title,author(name,books(title))", { title: {}, author: { name: {}, books: { title: {} } } });
  parsesTo("a(b(c(d)),e),f", { a: { b: { c: { d: {} } }, e: {} }, f: {} });
});

test("parseSelection: blanks around names, commas and parentheses", () => {
  parsesTo("  title , author ( name ,\tbooks(\ttitle ) ) , pages\r\n", {
    title: {},
    author: { name: {}, books: { title: {} } },
    pages: {},
  });
});

test("parseSelection: names keep the order they were first written in", () => {
  const parsed = tree("c,a(z,y),b,a(x),c");
  assert.equal(Object.keys(parsed), ["c", "a", "b"]);
  assert.equal(Object.keys(parsed["a"]!), ["z", "y", "x"]);
});

test("parseSelection: repeated names merge", () => {
  parsesTo("a(b),a(c)", { a: { b: {}, c: {} } });
  parsesTo("a,a", { a: {} });
  parsesTo("a,a(b)", { a: { b: {} } });
  parsesTo("a(b),a", { a: { b: {} } });
  parsesTo("a(b(c)),a(b(d),e)", { a: { b: { c: {}, d: {} }, e: {} } });
  parsesTo("a(b,b(c),b)", { a: { b: { c: {} } } });
});

test("parseSelection: trees have no prototype", () => {
  const parsed = tree("a(b),toString,hasOwnProperty");
  assert.is(Object.getPrototypeOf(parsed), null);
  assert.is(Object.getPrototypeOf(parsed["a"]), null);
  assert.is(Object.getPrototypeOf(parsed["a"]!["b"]), null);
  assert.equal(Object.keys(parsed), ["a", "toString", "hasOwnProperty"]);
  assert.is(tree("a")["toString"], undefined);
});

test("parseSelection: empty names", () => {
  fails("", "empty name at character 1");
  fails("   ", "empty name at character 4");
  fails(",a", "empty name at character 1");
  fails("a,", "empty name at character 3");
  fails("a, ,b", "empty name at character 4");
  fails("a,,b", "empty name at character 3");
  fails("a()", "empty name at character 3");
  fails("a( )", "empty name at character 4");
  fails("a(b,)", "empty name at character 5");
  fails("(a)", "empty name at character 1");
  fails("a,(b)", "empty name at character 3");
});

test("parseSelection: unbalanced parentheses", () => {
  fails("a(b", 'unbalanced parentheses: "(" at character 2 is not closed');
  fails("a(", 'unbalanced parentheses: "(" at character 2 is not closed');
  fails("a(b(c)", 'unbalanced parentheses: "(" at character 2 is not closed');
  fails("a(b(c", 'unbalanced parentheses: "(" at character 4 is not closed');
  fails("a(b, ", 'unbalanced parentheses: "(" at character 2 is not closed');
  fails("a)", 'unbalanced parentheses: ")" at character 2 has no matching "("');
  fails("a(b))", 'unbalanced parentheses: ")" at character 5 has no matching "("');
  fails("a,b)", 'unbalanced parentheses: ")" at character 4 has no matching "("');
  fails(")", "empty name at character 1");
});

test("parseSelection: characters outside [A-Za-z0-9_$-]", () => {
  fails("author.name", 'invalid character "." at character 7: select inside a link or an object with "name(subfield)"');
  fails("a/b", 'invalid character "/" at character 2');
  fails("title;pages", 'invalid character ";" at character 6');
  fails("*", 'invalid character "*" at character 1');
  fails("a(b:c)", 'invalid character ":" at character 4');
  fails("tïtle", 'invalid character "ï" at character 2');
  fails("a,😀", 'invalid character "😀" at character 3');
  fails('a"', 'invalid character "\\"" at character 2');
  fails("a\u0000", 'invalid character "\\u0000" at character 2');
});

test("parseSelection: names not separated by a comma", () => {
  fails("a b", 'unexpected "b" at character 3: separate names with ","');
  fails("a(b)c", 'unexpected "c" at character 5: separate names with ","');
  fails("a(b) (c)", 'unexpected "(" at character 6: separate names with ","');
});

test("parseSelection: names that would reach a prototype are refused", () => {
  fails("__proto__", 'reserved name "__proto__" at character 1');
  fails("a(constructor)", 'reserved name "constructor" at character 3');
  fails("a, prototype", 'reserved name "prototype" at character 4');
  parsesTo("proto,Constructor,__proto", { proto: {}, Constructor: {}, __proto: {} });
});

test(`parseSelection: at most ${MAX_SELECTION_DEPTH} levels of names`, () => {
  assert.is(MAX_SELECTION_DEPTH, 8);
  const deepest = tree(nested(8));
  let node: Selection | undefined = deepest;
  for (let i = 1; i <= 8; i++) {
    assert.equal(Object.keys(node!), [`a${i}`]);
    node = node![`a${i}`];
  }
  assert.equal(plain(node!), {});
  // the "(" that would open a ninth level is at character 24 of a1(a2(a3(a4(a5(a6(a7(a8(a9)))))))))
  fails(nested(9), "nested deeper than 8 levels at character 24");
  fails(nested(50), "nested deeper than 8 levels at character 24");
  fails("x," + nested(9), "nested deeper than 8 levels at character 26");
});

test(`parseSelection: at most ${MAX_SELECTION_NAMES} names, repeats included`, () => {
  assert.is(MAX_SELECTION_NAMES, 200);
  const names = (n: number) => Array.from({ length: n }, (_, i) => `f${i}`);
  const ok = tree(names(200).join(","));
  assert.is(Object.keys(ok).length, 200);
  fails(names(201).join(","), "more than 200 names");
  assert.ok(parseSelection(Array(200).fill("a").join(",")).ok);
  fails(Array(201).fill("a").join(","), "more than 200 names");
  fails(`a(${names(200).join(",")})`, "more than 200 names");
});

test("parseSelection: the first error from the left is the one reported", () => {
  fails("a.b,(", 'invalid character "." at character 2: select inside a link or an object with "name(subfield)"');
  fails("a(,b.c", "empty name at character 3");
});

// checkSelection: fields

test("checkSelection fields: fields of the resource and the server's", () => {
  assert.equal(checkSelection(tree("title,pages,tags,details,author,publisher,reviews"), books, resources, "fields"), { ok: true });
  assert.equal(checkSelection(tree("id,meta,createdAt,modifiedAt"), books, resources, "fields"), { ok: true });
});

test("checkSelection fields: an unknown name is returned as written", () => {
  assert.equal(checkSelection(tree("title,nme"), books, resources, "fields"), { ok: false, name: "nme" });
  assert.equal(checkSelection(tree("Title"), books, resources, "fields"), { ok: false, name: "Title" });
  assert.equal(checkSelection(tree("toString"), books, resources, "fields"), { ok: false, name: "toString" });
  assert.equal(checkSelection(tree("name"), books, resources, "fields"), { ok: false, name: "name" });
});

test("checkSelection fields: names inside a link are checked against its target", () => {
  assert.equal(checkSelection(tree("title,author(name,books(title,pages))"), books, resources, "fields"), { ok: true });
  assert.equal(checkSelection(tree("author(id,meta,createdAt,modifiedAt)"), books, resources, "fields"), { ok: true });
  assert.equal(checkSelection(tree("reviews(stars,book(title))"), books, resources, "fields"), { ok: true });
  assert.equal(checkSelection(tree("author(nme)"), books, resources, "fields"), { ok: false, name: "author.nme" });
  assert.equal(checkSelection(tree("author(name,books(title,isbn))"), books, resources, "fields"), { ok: false, name: "author.books.isbn" });
  assert.equal(checkSelection(tree("author(title)"), books, resources, "fields"), { ok: false, name: "author.title" });
});

test("checkSelection fields: nothing can be selected inside a field that is not a link", () => {
  assert.equal(checkSelection(tree("title(x)"), books, resources, "fields"), { ok: false, name: "title.x" });
  assert.equal(checkSelection(tree("details(a,b)"), books, resources, "fields"), { ok: false, name: "details.a" });
  assert.equal(checkSelection(tree("meta(href)"), books, resources, "fields"), { ok: false, name: "meta.href" });
  assert.equal(checkSelection(tree("author(name(first))"), books, resources, "fields"), { ok: false, name: "author.name.first" });
});

test("checkSelection fields: names inside a plain object are its declared properties, at any depth", () => {
  assert.equal(checkSelection(tree("address(city)"), books, resources, "fields"), { ok: true });
  assert.equal(checkSelection(tree("title,address(city,geo(lat,lng))"), books, resources, "fields"), { ok: true });
  assert.equal(checkSelection(tree("address(town)"), books, resources, "fields"), { ok: false, name: "address.town" });
  assert.equal(checkSelection(tree("address(geo(alt))"), books, resources, "fields"), { ok: false, name: "address.geo.alt" });
  assert.equal(checkSelection(tree("address(city(x))"), books, resources, "fields"), { ok: false, name: "address.city.x" });
  // the server's fields are a representation's, not an object's
  assert.equal(checkSelection(tree("address(id)"), books, resources, "fields"), { ok: false, name: "address.id" });
  assert.equal(checkSelection(tree("address(meta)"), books, resources, "fields"), { ok: false, name: "address.meta" });
  // inside a link's target too
  assert.equal(checkSelection(tree("reviews(book(address(city)))"), books, resources, "fields"), { ok: true });
  // expand names links only: an object is not one
  assert.equal(checkSelection(tree("address"), books, resources, "expand"), { ok: false, name: "address" });
  assert.equal(checkSelection(tree("address(city)"), books, resources, "expand"), { ok: false, name: "address" });
});

test("expansionOf: a selection inside a plain object expands nothing", () => {
  assert.equal(plain(expansionOf(tree("address(city)"), undefined, books, resources)), {});
});

test("checkSelection fields: a link whose target is unknown has nothing inside it", () => {
  assert.equal(checkSelection(tree("agent,mentor"), authors, resources, "fields"), { ok: true });
  assert.equal(checkSelection(tree("agent(name)"), authors, resources, "fields"), { ok: false, name: "agent.name" });
  assert.equal(checkSelection(tree("mentor(name)"), authors, resources, "fields"), { ok: false, name: "mentor.name" });
});

test("checkSelection: the first offending name in written order is reported", () => {
  assert.equal(checkSelection(tree("author(nope),zzz"), books, resources, "fields"), { ok: false, name: "author.nope" });
  assert.equal(checkSelection(tree("zzz,author(nope)"), books, resources, "fields"), { ok: false, name: "zzz" });
  assert.equal(checkSelection(tree("author(x),author(name,y)"), books, resources, "fields"), { ok: false, name: "author.x" });
});

test("checkSelection: an empty tree is fine", () => {
  assert.equal(checkSelection(Object.create(null) as Selection, books, resources, "fields"), { ok: true });
  assert.equal(checkSelection({}, books, resources, "expand"), { ok: true });
});

// checkSelection: expand

test("checkSelection expand: link fields, to instances and to collections", () => {
  assert.equal(checkSelection(tree("author,publisher,reviews"), books, resources, "expand"), { ok: true });
  assert.equal(checkSelection(tree("author(books(author,publisher))"), books, resources, "expand"), { ok: true });
  assert.equal(checkSelection(tree("reviews(book(reviews))"), books, resources, "expand"), { ok: true });
});

test("checkSelection expand: plain fields and server fields are not links", () => {
  assert.equal(checkSelection(tree("title"), books, resources, "expand"), { ok: false, name: "title" });
  assert.equal(checkSelection(tree("author,meta"), books, resources, "expand"), { ok: false, name: "meta" });
  assert.equal(checkSelection(tree("id"), books, resources, "expand"), { ok: false, name: "id" });
  assert.equal(checkSelection(tree("auther"), books, resources, "expand"), { ok: false, name: "auther" });
});

test("checkSelection expand: nested names are expand names of the target", () => {
  assert.equal(checkSelection(tree("author(name)"), books, resources, "expand"), { ok: false, name: "author.name" });
  assert.equal(checkSelection(tree("author(books(title))"), books, resources, "expand"), { ok: false, name: "author.books.title" });
  assert.equal(checkSelection(tree("author(books(nope))"), books, resources, "expand"), { ok: false, name: "author.books.nope" });
  assert.equal(checkSelection(tree("agent"), authors, resources, "expand"), { ok: true });
  assert.equal(checkSelection(tree("agent(x)"), authors, resources, "expand"), { ok: false, name: "agent.x" });
});

test("checkSelection: trees given as ordinary objects are read by own keys only", () => {
  assert.equal(checkSelection({ title: {} }, books, resources, "fields"), { ok: true });
  assert.equal(checkSelection({ author: { name: {} } }, books, resources, "fields"), { ok: true });
  assert.equal(checkSelection({ constructor: {} } as Selection, books, resources, "fields"), { ok: false, name: "constructor" });
});

// expansionOf

test("expansionOf: nothing to expand without expand or fields inside links", () => {
  assert.equal(plain(expansionOf(undefined, undefined, books, resources)), {});
  assert.equal(plain(expansionOf(tree("title,author,reviews"), undefined, books, resources)), {});
  assert.equal(Object.getPrototypeOf(expansionOf(undefined, undefined, books, resources)), null);
});

test("expansionOf: every expand name, nested ones included", () => {
  assert.equal(plain(expansionOf(undefined, tree("author,reviews"), books, resources)), { author: {}, reviews: {} });
  assert.equal(plain(expansionOf(undefined, tree("author(books(publisher))"), books, resources)), { author: { books: { publisher: {} } } });
});

test("expansionOf: selecting inside a link expands it, at every level", () => {
  assert.equal(plain(expansionOf(tree("title,author(name)"), undefined, books, resources)), { author: {} });
  assert.equal(plain(expansionOf(tree("author(name,books(title))"), undefined, books, resources)), { author: { books: {} } });
  assert.equal(plain(expansionOf(tree("author(books(publisher(name),author))"), undefined, books, resources)), {
    author: { books: { publisher: {} } },
  });
  assert.equal(plain(expansionOf(tree("reviews(stars)"), undefined, books, resources)), { reviews: {} });
});

test("expansionOf: expand and fields together", () => {
  assert.equal(plain(expansionOf(tree("title,author(name)"), tree("publisher"), books, resources)), { publisher: {}, author: {} });
  assert.equal(plain(expansionOf(tree("author(books(title))"), tree("author"), books, resources)), { author: { books: {} } });
  assert.equal(plain(expansionOf(tree("author(name)"), tree("author(books)"), books, resources)), { author: { books: {} } });
  assert.equal(plain(expansionOf(tree("author"), tree("author"), books, resources)), { author: {} });
  // an expanded link that fields leaves out is still named: the representation drops it afterwards
  assert.equal(plain(expansionOf(tree("title"), tree("author"), books, resources)), { author: {} });
  assert.equal(plain(expansionOf(tree("author(books(title))"), tree("author(books(publisher))"), books, resources)), {
    author: { books: { publisher: {} } },
  });
});

test("expansionOf: expand names come first, then links selected inside by fields", () => {
  const expansion = expansionOf(tree("reviews(stars),author(name)"), tree("publisher,author"), books, resources);
  assert.equal(Object.keys(expansion), ["publisher", "author", "reviews"]);
});

test("expansionOf: names that are not links are left out", () => {
  assert.equal(plain(expansionOf(tree("title(x),details(a)"), tree("pages,nope"), books, resources)), {});
  assert.equal(plain(expansionOf(tree("author(name(first))"), undefined, books, resources)), { author: {} });
});

test("expansionOf: a link whose target is unknown expands without anything inside", () => {
  assert.equal(plain(expansionOf(tree("agent(x)"), tree("mentor(y)"), authors, resources)), { mentor: {}, agent: {} });
});

test("expansionOf: ordinary objects are read by own keys only", () => {
  assert.equal(plain(expansionOf({ author: { name: {} } }, { publisher: {} }, books, resources)), { publisher: {}, author: {} });
  assert.equal(plain(expansionOf({ title: {} }, {}, books, resources)), {});
});

test.run();
