/** Conversions between an older version and the current one (templates/runtime/versions.ts), on their own. */
import { test } from "uvu";
import * as assert from "uvu/assert";
import type { ResourceSpec } from "../../../templates/runtime/spec.js";
import { ServedVersion, versionPrefixes, type VersionConverters, type VersionSpec } from "../../../templates/runtime/versions.js";

const book: ResourceSpec = {
  name: "book",
  collection: "books",
  fields: [
    { name: "title", kind: "string" },
    { name: "pages", kind: "integer" },
    { name: "published", kind: "integer", retired: true },
    { name: "author", kind: "link", link: { kind: "instance", target: "books" } },
    { name: "format", kind: "string" },
  ],
  required: ["title"],
  unique: [],
  access: {},
  mediaType: "application/vnd.acme.v3.book+json",
  collectionMediaType: "application/vnd.acme.v3.books+json",
  bodySchema: {},
};
const resources = new Map([["books", book]]);

/** Version 1 of a book: `title` was `name`, `pages` and `format` did not exist yet, `published` still did. Version 2: `title` was `heading`. */
const v1: VersionSpec = {
  version: 1,
  resources: {
    books: {
      mediaType: "application/vnd.acme.v1.book+json",
      collectionMediaType: "application/vnd.acme.v1.books+json",
      fields: [["title", "name"], ["published", "published"], ["author", "author"]],
      defaults: { format: "paper" },
    },
  },
};
const v2: VersionSpec = {
  version: 2,
  sunset: "2027-06-30",
  resources: {
    books: {
      mediaType: "application/vnd.acme.v2.book+json",
      collectionMediaType: "application/vnd.acme.v2.books+json",
      fields: [["title", "heading"], ["pages", "pages"], ["author", "author"], ["format", "format"]],
    },
  },
};

function served(spec: VersionSpec, converters: Record<number, VersionConverters> = {}): ServedVersion {
  return new ServedVersion(spec.version, spec, resources, "acme", 3, "https://api.example.com/v" + spec.version, [v1, v2].map((s) => ({ spec: s, converters: converters[s.version] })));
}

test("up: a version-1 body under the current names, the defaults of what it lacks on a create only; undeclared properties kept", () => {
  const s = served(v1);
  assert.equal(s.up("books", { name: "Dune", published: 1965, extra: 1 }, true), { title: "Dune", published: 1965, extra: 1, format: "paper" });
  assert.equal(s.up("books", { name: "Dune" }, false), { title: "Dune" });
});

test("downInstance: renamed, what the version lacks dropped, server-owned and undeclared properties kept, media types and links inside converted", () => {
  const s = served(v1);
  const current = {
    meta: { href: "h", mediaType: "application/vnd.acme.v3.book+json" },
    id: "b1",
    title: "Dune",
    pages: 412,
    format: "paper",
    published: 1965,
    author: { meta: { href: "a", mediaType: "application/vnd.acme.v3.book+json" }, title: "Inner", pages: 1 },
    extra: true,
  };
  assert.equal(s.downInstance("books", current), {
    meta: { href: "h", mediaType: "application/vnd.acme.v1.book+json" },
    id: "b1",
    name: "Dune",
    published: 1965,
    author: { meta: { href: "a", mediaType: "application/vnd.acme.v1.book+json" }, name: "Inner" },
    extra: true,
  });
});

test("names and media types: both vendor shapes mapped, other types as they are; offers in order", () => {
  const s = served(v1);
  assert.is(s.wireName("books", "title"), "name");
  assert.is(s.currentName("books", "name"), "title");
  assert.is(s.wireName("books", "pages"), undefined);
  assert.is(s.typeOf("application/acme.v3.books.json"), "application/acme.v1.books.json");
  assert.is(s.typeOf("application/json"), "application/json");
  assert.equal(s.offers(["application/json", "application/vnd.acme.v3.book+json"]), ["application/json", "application/vnd.acme.v1.book+json"]);
});

test("selection: the version's names as the current ones; a name the version lacks is unknown, dotted inside a link", () => {
  const s = served(v1);
  assert.equal(s.selection("books", { name: {}, author: { name: {} }, id: {} }), { tree: Object.assign(Object.create(null), { title: {}, author: Object.assign(Object.create(null), { title: {} }), id: {} }) });
  assert.equal(s.selection("books", { pages: {} }), { unknown: "pages" });
  assert.equal(s.selection("books", { author: { title: {} } }), { unknown: "author.title" });
});

test("user converters: each step in its version's names, chained up from version 1 and down to it", () => {
  const seen: string[] = [];
  const converters: Record<number, VersionConverters> = {
    1: {
      books: {
        up: (b) => (seen.push(`up1 ${Object.keys(b).join(",")}`), { heading: b.name, pages: 1 }),
        down: (r) => (seen.push(`down1 ${Object.keys(r).join(",")}`), { meta: r.meta, name: r.heading, published: 0 }),
      },
    },
  };
  const s = served(v1, converters);
  assert.equal(s.up("books", { name: "Dune" }, false), { title: "Dune", pages: 1 });
  assert.equal(s.downInstance("books", { meta: {}, title: "Dune", pages: 3 }), { meta: {}, name: "Dune", published: 0 });
  assert.equal(seen, ["up1 name", "down1 meta,heading,pages"], "up sees version 1's names, down version 2's");
});

test("headers: a deprecated version answers Deprecation (RFC 9745), one with a sunset (deprecated from then, unless it says) Sunset (RFC 8594) too", () => {
  assert.equal(served(v2).headers, [["deprecation", `@${Date.parse("2027-06-30T00:00:00Z") / 1000}`], ["sunset", "Wed, 30 Jun 2027 23:59:59 GMT"]]);
  assert.equal(served(v1).headers, []);
  assert.equal(served({ ...v1, deprecated: "2026-11-01" }).headers, [["deprecation", `@${Date.parse("2026-11-01T00:00:00Z") / 1000}`]], "deprecated without a sunset");
});

test("versionPrefixes: the last v<N> segment of the base path names the current version; none, none", () => {
  assert.equal(versionPrefixes("/api/v3", [1, 2, 3]), new Map([[1, "/api/v1"], [2, "/api/v2"], [3, "/api/v3"]]));
  assert.equal(versionPrefixes("/api", [1, 3]), undefined);
  assert.equal(versionPrefixes("", [1, 3]), undefined);
});

test("hostile names: __proto__ and constructor as property names are data, never the prototype", () => {
  const hostile: ResourceSpec = { ...book, fields: [{ name: "__proto__", kind: "object" }] };
  const spec: VersionSpec = { version: 1, resources: { books: { mediaType: "m", collectionMediaType: "c", fields: [["__proto__", "constructor"]] } } };
  const s = new ServedVersion(1, spec, new Map([["books", hostile]]), "acme", 3, "https://x", [{ spec, converters: undefined }]);
  const up = s.up("books", JSON.parse('{"constructor": {"polluted": true}}'), false);
  assert.is(Object.getPrototypeOf(up), Object.prototype);
  assert.ok(Object.hasOwn(up, "__proto__"));
  assert.is(({} as Record<string, unknown>).polluted, undefined);
  const down = s.downInstance("books", JSON.parse('{"__proto__": 1}'));
  assert.ok(Object.hasOwn(down, "constructor"));
});

test.run();
