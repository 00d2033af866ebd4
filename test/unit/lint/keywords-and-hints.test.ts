/**
 * The helpers behind check's "did you mean" (src/lint/suggest.ts), the x- keywords resourcery knows
 * where (unknown-keyword, unknown-extension), and the 2020-12 form unsupported-keyword gives for an
 * OpenAPI `nullable`, each with exact expectations. The diagnostics themselves are in the check corpus.
 */
import fs from "node:fs";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { test } from "uvu";
import * as assert from "uvu/assert";
import { KNOWN_FORMATS } from "../../../src/lint/rules/unknown-format.js";
import { ROOT_KEYWORDS, SCHEMA_KEYWORDS, fixFor } from "../../../src/lint/rules/unknown-keyword.js";
import { nullableFix } from "../../../src/lint/rules/unsupported-keyword.js";
import { closest, editDistance } from "../../../src/lint/suggest.js";

const repo = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "../../..");

/** Applies `fn` to every key of `cases` and compares the results with the values, all at once. */
function table<T>(fn: (name: string) => T, cases: Record<string, T>): void {
  const actual = Object.fromEntries(Object.keys(cases).map((name) => [name, fn(name)]));
  assert.equal(actual, cases);
}

test("editDistance: insertions, deletions, substitutions and swaps cost 1; case does not count", () => {
  assert.is(editDistance("x-acess", "x-access"), 1);
  assert.is(editDistance("x-unqiue", "x-unique"), 1);
  assert.is(editDistance("X-Owner", "x-owner"), 0);
  assert.is(editDistance("x_access", "x-access"), 1);
  assert.is(editDistance("", "abc"), 3);
  assert.is(editDistance("kitten", "sitting"), 3);
});

test("closest: a root keyword within a typo's reach, or nothing", () => {
  table((w) => closest(w, ROOT_KEYWORDS), {
    "x-acess": "x-access",
    "x-acces": "x-access",
    "x-colection": "x-collection",
    "x-collections": "x-collection",
    "x-uniqe": "x-unique",
    "x-owners": "x-owner",
    "X-ID": "x-id",
    "x-sinse": "x-since",
    "x-shelf": undefined,
    "x-tags": undefined,
  });
  table((w) => closest(w, SCHEMA_KEYWORDS), {
    "x-inverce": "x-inverse",
    "x-ondelete": "x-on-delete",
    "x-on_delete": "x-on-delete",
    "x-maxbytes": "x-max-bytes",
    "x-renamd": "x-renamed",
    "x-widget": undefined,
  });
  table((w) => closest(w, KNOWN_FORMATS), { emial: "email", "date-tme": "date-time", uudi: "uuid", urll: "url", phone: undefined, int8: undefined });
});

test("the x- keywords: every root keyword of the definition format, and the planned ones of the contract", () => {
  const meta = JSON.parse(fs.readFileSync(path.join(repo, "schemas/resource.schema.json"), "utf8"));
  const declared = Object.keys(meta.$defs.keywords.properties).filter((k) => k.startsWith("x-"));
  assert.equal(declared.filter((k) => !(ROOT_KEYWORDS as readonly string[]).includes(k)), []);
  for (const k of ["x-collection", "x-unique", "x-access", "x-owner", "x-id", "x-since"]) assert.ok((ROOT_KEYWORDS as readonly string[]).includes(k), k);
  for (const k of ["x-inverse", "x-on-delete", "x-since", "x-until", "x-renamed", "x-max-bytes"]) assert.ok((SCHEMA_KEYWORDS as readonly string[]).includes(k), k);
});

test("fixFor: nothing for a keyword read in its place; did you mean; where a misplaced one belongs", () => {
  assert.is(fixFor("x-access", true), undefined);
  assert.is(fixFor("x-since", true), undefined);
  assert.is(fixFor("x-since", false), undefined);
  assert.is(fixFor("x-on-delete", false), undefined);
  assert.match(fixFor("x-acess", true)!, /^did you mean "x-access"\?/);
  assert.match(fixFor("x-on-delete", true)!, /^"x-on-delete" is read at a property only: move it there$/);
  assert.match(fixFor("x-collection", false)!, /^"x-collection" is read at a resource's root only/);
  assert.match(fixFor("x-inverce", true)!, /^did you mean "x-inverse"\? it is read at a property only/);
  // Far from every keyword of resourcery's, at a root as below it: another tool's annotation (a warning).
  assert.match(fixFor("x-shelf", true)!, /^resourcery reads x-collection, .* at a resource's root; if "x-shelf" is an annotation for another tool, leave it/);
  assert.match(fixFor("x-widget", false)!, /if "x-widget" is an annotation for another tool, leave it/);
});

test("nullableFix: the 2020-12 form of that very schema", () => {
  const cases: [Record<string, unknown>, string][] = [
    [{ type: "string", nullable: true }, 'remove "nullable" and allow null in the type: "type": ["string", "null"]'],
    [{ type: ["integer", "boolean"], nullable: true }, 'remove "nullable" and allow null in the type: "type": ["integer", "boolean", "null"]'],
    [{ type: "string", enum: ["a", "b"], nullable: true }, 'remove "nullable" and allow null in the type: "type": ["string", "null"], and add null to "enum"'],
    [{ type: "string", enum: ["a", null], nullable: true }, 'remove "nullable" and allow null in the type: "type": ["string", "null"]'],
    [{ type: ["string", "null"], nullable: true }, 'remove "nullable": "type" allows null already'],
    [{ $ref: "author.json", nullable: true }, 'remove "nullable" and write the schema as "anyOf": [{ "$ref": "author.json" }, { "type": "null" }]'],
    [{ $ref: "#/$defs/isbn", type: "string", nullable: true }, 'remove "nullable" and write the schema as "anyOf": [{ "$ref": "#/$defs/isbn" }, { "type": "null" }]'],
    [{ oneOf: [{ type: "string" }, { type: "integer" }], nullable: true }, 'remove "nullable" and add { "type": "null" } to "oneOf"'],
    [{ enum: ["a", "b"], nullable: true }, 'remove "nullable" and add null to "enum"'],
    [{ minimum: 1, nullable: true }, 'remove "nullable": without "type", the schema allows null already'],
    [{ const: "x", nullable: true }, 'remove "nullable" and write the schema as "anyOf": [{ "const": "x" }, { "type": "null" }]'],
    [{ type: "string", nullable: false }, 'remove "nullable": JSON Schema has no such keyword, and "type" alone says whether null is allowed'],
  ];
  assert.equal(cases.map(([s]) => nullableFix(s)), cases.map(([, fix]) => fix));
});

test.run();
