/** Conversions between an older version and the current one (templates/runtime/versions.ts). */
import { test } from "uvu";
import * as assert from "uvu/assert";
import { converterOf, type VersionedResourceSpec } from "../../../templates/runtime/versions.js";

/** Version 1 of a book: `title` was `name`, `pages` did not exist yet, `published` still does (dropped in the current). */
const v1: VersionedResourceSpec = {
  mediaType: "application/vnd.acme.v1.book+json",
  collectionMediaType: "application/vnd.acme.v1.books+json",
  fields: [
    ["title", "name"],
    ["published", "published"],
    ["author", "author"],
  ],
};
const all = ["title", "pages", "published", "author", "format"];

test("up: a version-1 body under the current names; a property the version does not declare is kept as sent", () => {
  const c = converterOf(v1, all);
  assert.equal(c.up({ name: "Dune", published: 1965, author: { meta: { href: "h" } } }), { title: "Dune", published: 1965, author: { meta: { href: "h" } } });
  assert.equal(c.up({ name: "Dune", extra: 1 }), { title: "Dune", extra: 1 });
});

test("down: a current representation as version 1's: renamed, what version 1 lacks dropped, server-owned and undeclared properties kept", () => {
  const c = converterOf(v1, all);
  const current = { meta: { href: "h", mediaType: "m" }, id: "b1", createdAt: "t", modifiedAt: "t", title: "Dune", pages: 412, format: "paper", published: 1965, author: { meta: { href: "a" } }, extra: true };
  assert.equal(c.down(current), { meta: { href: "h", mediaType: "m" }, id: "b1", createdAt: "t", modifiedAt: "t", name: "Dune", published: 1965, author: { meta: { href: "a" } }, extra: true });
  assert.equal(Object.keys(c.down(current)), ["meta", "id", "createdAt", "modifiedAt", "name", "published", "author", "extra"], "in the representation's order");
});

test("names: a version's name as the current one and back; undefined for a property the version lacks", () => {
  const c = converterOf(v1, all);
  assert.is(c.currentName("name"), "title");
  assert.is(c.wireName("title"), "name");
  assert.is(c.wireName("pages"), undefined);
  assert.is(c.currentName("title"), undefined, "the current name is not version 1's");
});

test("hostile names: __proto__ and constructor as property names are data, never the prototype", () => {
  const spec: VersionedResourceSpec = { mediaType: "m", collectionMediaType: "c", fields: [["__proto__", "constructor"]] };
  const c = converterOf(spec, ["__proto__"]);
  const up = c.up(JSON.parse('{"constructor": {"polluted": true}}'));
  assert.is(Object.getPrototypeOf(up), Object.prototype);
  assert.ok(Object.hasOwn(up, "__proto__"));
  assert.is(({} as Record<string, unknown>).polluted, undefined);
  const down = c.down(JSON.parse('{"__proto__": 1}'));
  assert.ok(Object.hasOwn(down, "constructor"));
});

test.run();
