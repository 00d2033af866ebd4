/**
 * What check accepts in schemas written as published API descriptions are (issue 17): property names that are
 * not identifiers, a root `"type": ["object", "null"]`, plurals the inflection library knows in two ways, $refs
 * inside other tools' x- annotations, and snake_case sub-collections (a warning, with the camelCase fix).
 */
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { test } from "uvu";
import * as assert from "uvu/assert";
import { isSegmentName, isSelectableName } from "../../../src/model/names.js";
import { checkProject } from "../../../src/pipeline.js";
import { parseSelection } from "../../../templates/runtime/select.js";

const tmp = fs.mkdtempSync(path.join(os.tmpdir(), "rsc-real-"));
let counter = 0;

/** A project of the given resource files (the first is listed first) and other files, in a fresh folder. */
function project(resources: Record<string, object>, files: Record<string, object> = {}): string {
  const dir = path.join(tmp, `p${++counter}`);
  fs.mkdirSync(dir);
  const service = { name: "shop-service", vendor: "acme", version: 1, baseUrl: "https://api.example.com/v1", errorDocsUrl: "https://docs.example.com/errors", resources: Object.keys(resources) };
  for (const [file, value] of Object.entries({ "service.json": service, ...resources, ...files })) fs.writeFileSync(path.join(dir, file), JSON.stringify(value, null, 2));
  return dir;
}

/** `severity code pointer` of every finding of a project. */
function findings(dir: string): string[] {
  return checkProject(dir).diagnostics.map((d) => `${d.severity} ${d.code} ${d.file === path.join(dir, "book.json") ? "" : `${path.basename(d.file)}`}${d.pointer}`);
}

const book = (properties: object, extra: object = {}) => ({ "book.json": { title: "Book", type: "object", "x-collection": "books", properties, ...extra } });

test("isSelectableName agrees with the service's fields/expand parser, character by character", () => {
  const chars = [...Array.from({ length: 95 }, (_, i) => String.fromCharCode(32 + i)), "é", "\t", "\u2028"];
  for (const c of chars) {
    const name = `a${c}b`;
    const parsed = parseSelection(name);
    const parsedAsOne = parsed.ok && Object.keys(parsed.tree).length === 1 && Object.hasOwn(parsed.tree, name);
    assert.is(isSelectableName(name), parsedAsOne, `${JSON.stringify(name)}: the lint says ${isSelectableName(name)}, the parser ${parsedAsOne}`);
  }
  for (const name of ["+1", "-1", "16x16", "0", "user-name", "$count", "_links"]) {
    const parsed = parseSelection(name);
    assert.is(isSelectableName(name), parsed.ok && Object.hasOwn(parsed.tree, name), name);
  }
  assert.not.ok(isSelectableName("__proto__"), "the parser refuses it");
  assert.not.ok(parseSelection("__proto__").ok);
});

test("isSegmentName: ASCII letters, digits, _ and -, starting with a letter; nothing that is a path or route syntax", () => {
  for (const name of ["books", "requested_reviewers", "review-teams", "Assignees", "v2"]) assert.ok(isSegmentName(name), name);
  for (const name of ["", "2nd", "_x", "a/b", "a.b", "a:b", "a*", "a b", "a(b)", "é", "books \"written\""]) assert.not.ok(isSegmentName(name), name);
});

test("non-identifier property names are accepted, at any depth; only +1-like ones that fields cannot write are warned about", () => {
  const dir = project(book({
    title: { type: "string" },
    "+1": { type: "integer" },
    "-1": { type: "integer" },
    "16x16": { type: "string" },
    "0": { type: "string" },
    "user-name": { type: "string" },
    sizes: { type: "object", properties: { "32x32": { type: "string" }, "a b": { type: "string" } } },
  }, { required: ["+1", "0"], "x-unique": ["user-name"] }));
  assert.equal(findings(dir), ["warning unselectable-name /properties/+1", "warning unselectable-name /properties/sizes/properties/a b"]);
  const model = checkProject(dir).model!;
  const keys = Object.fromEntries(model.resources[0]!.fields.map((f) => [f.name, f.propertyKey]));
  assert.equal(keys, { "+1": '"+1"', "-1": '"-1"', "0": '"0"', "16x16": '"16x16"', sizes: "sizes", title: "title", "user-name": '"user-name"' });
});

test("a property named like a keyword (default, enum, x-rate) is a schema: its $refs are checked, and its name too", () => {
  const dir = project(book({
    title: { type: "string" },
    "x-rate": { $ref: "common.json#/$defs/missing" },
    default: { type: "object", properties: { enum: { $ref: "#/$defs/nowhere" }, constructor: { type: "string" } } },
  }), { "common.json": { $defs: { rate: { type: "number" } } } });
  assert.equal(findings(dir).sort(), [
    "error unresolved-ref /properties/default/properties/enum/$ref",
    "error unresolved-ref /properties/x-rate/$ref",
    "error unsafe-name /properties/default/properties/constructor",
  ]);
});

test("$refs inside x- annotations are data: not followed, not reported, and no name in them is judged", () => {
  const dir = project(book({
    title: { type: "string", "x-example": { $ref: "#/nowhere" } },
    tags: { type: "array", items: { type: "string" }, "x-form": { items: { $ref: "missing.json" }, properties: { __proto__: { type: "string" } } } },
  }, { "x-stripe": { $ref: "../outside.json" } }));
  const found = findings(dir);
  assert.not.ok(found.some((f) => /unresolved-ref|ref-outside-project|unreadable-file|unsafe-name/.test(f)), found.join("\n"));
  // Another tool's annotation is a warning at a resource's root too (Stripe's x-resourceId, x-expandableFields).
  assert.equal(found.sort(), ["warning unknown-extension /properties/tags/x-form", "warning unknown-extension /properties/title/x-example", "warning unknown-extension /x-stripe"]);
  // The same $ref outside an x- keyword is followed and reported.
  assert.equal(findings(project(book({ title: { type: "string", items: { $ref: "missing.json" } } }))), ["error unresolved-ref /properties/title/items/$ref"]);
});

test("root type: object, [object] and [object, null] in either order are a resource; anything else is meta-schema's error", () => {
  for (const type of ["object", ["object"], ["object", "null"], ["null", "object"]]) {
    const dir = project(book({ title: { type: "string" } }, { type }));
    assert.equal(findings(dir), [], JSON.stringify(type));
    const r = checkProject(dir).model!.resources[0]!;
    assert.equal(r.fields.map((f) => f.name), ["title"]);
  }
  for (const type of ["array", ["null"], ["object", "string"], ["object", "null", "array"]]) {
    assert.equal(findings(project(book({ title: { type: "string" } }, { type }))), ["error meta-schema /type"], JSON.stringify(type));
  }
});

test("R1 accepts plurals the library knows either way (fileMinis, awardEmojis, taxis, metadata); a singular is still R1", () => {
  const resource = (collection: string) => ({ [`${collection}.json`]: { type: "object", "x-collection": collection, properties: { name: { type: "string" } } } });
  const dir = project({ ...resource("fileMinis"), ...resource("awardEmojis"), ...resource("taxis"), ...resource("metadata"), ...resource("userData") });
  assert.equal(findings(dir), []);
  assert.equal(findings(project(resource("fileMini"))), ["error R1 fileMini.json/x-collection"]);
});

test("a sub-collection that is not camelCase is a warning with the camelCase fix; one that is not URL-safe is unsafe-name", () => {
  const user = { "user.json": { title: "User", type: "object", "x-collection": "users", properties: { login: { type: "string" } } } };
  const link = { type: "array", items: { $ref: "user.json" } };
  const dir = project({ ...book({ requested_reviewers: link, "review-teams": link, "a:b": link, assignees: link }), ...user });
  const { diagnostics } = checkProject(dir);
  assert.equal(
    diagnostics.map((d) => [d.severity, d.code, d.pointer, d.hint.match(/e\.g\. "([^"]+)"/)?.[1]]),
    [
      ["warning", "sub-collection-case", "/properties/requested_reviewers", "requestedReviewers"],
      ["warning", "sub-collection-case", "/properties/review-teams", "reviewTeams"],
      ["error", "unsafe-name", "/properties/a:b", "aB"],
    ],
  );
});

test.after(() => fs.rmSync(tmp, { recursive: true, force: true }));
test.run();
