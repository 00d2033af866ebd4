/**
 * The $ref expansion of the model has a budget (schemas that reference the next one twice double at
 * every level), and a $ref chain that only leads back to itself is an error, not a property that
 * silently validates nothing.
 */
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { test } from "uvu";
import * as assert from "uvu/assert";
import type { CheckOptions } from "../../../src/load/limits.js";
import { checkProject } from "../../../src/pipeline.js";

const tmp = fs.mkdtempSync(path.join(os.tmpdir(), "rsc-schema-"));
let counter = 0;

/** A project of one resource (book.json) and optional other files and actions, in a fresh folder. */
function project(book: object, files: Record<string, object> = {}, actions?: object): string {
  const dir = path.join(tmp, `p${++counter}`);
  fs.mkdirSync(dir);
  const service = { name: "shop-service", vendor: "acme", version: 1, baseUrl: "https://api.example.com/v1", errorDocsUrl: "https://docs.example.com/errors", resources: ["book.json"], ...(actions ? { actions } : {}) };
  for (const [file, value] of Object.entries({ "service.json": service, "book.json": book, ...files })) {
    fs.writeFileSync(path.join(dir, file), JSON.stringify(value, null, 2));
  }
  return dir;
}

/** `levels` $defs, each an object whose two properties may be the next level: 2^levels paths. */
function fanOut(levels: number): Record<string, object> {
  const defs: Record<string, object> = { [`l${levels}`]: { type: "string" } };
  for (let i = 0; i < levels; i++) {
    const next = { anyOf: [{ $ref: `#/$defs/l${i + 1}` }, { type: "null" }] };
    defs[`l${i}`] = { type: "object", properties: { left: next, right: next } };
  }
  return defs;
}

function check(dir: string, options?: CheckOptions) {
  const started = performance.now();
  const result = checkProject(dir, options);
  return { result, ms: performance.now() - started, found: result.diagnostics.map((d) => [d.code, d.pointer]) };
}

test("a $ref fan-out that doubles at each of 40 levels is schema-too-large within the budget, in well under a few seconds", () => {
  // Before the budget: 28 levels took 18 s and 839 MB; 40 would never finish.
  const dir = project({ type: "object", "x-collection": "books", properties: { title: { type: "string" }, tree: { $ref: "#/$defs/l0" } }, $defs: fanOut(40) });
  const { result, ms, found } = check(dir);
  assert.equal(found, [["schema-too-large", "/properties/tree"]]);
  assert.match(result.diagnostics[0]!.message, 'resource "books" grows past 100 000 schema nodes once its $refs are expanded');
  assert.ok(ms < 3000, `check took ${Math.round(ms)} ms`);
});

test("the same fan-out in an action's response is reported at the action; a small one expands", () => {
  const book = { type: "object", "x-collection": "books", properties: { title: { type: "string" } } };
  const shared = { $defs: fanOut(40) };
  const { found } = check(project(book, { "shared.json": shared }, { lookup: { method: "GET", response: { $ref: "shared.json#/$defs/l0" } } }));
  assert.equal(found, [["schema-too-large", "/actions/lookup/response"]]);
  // Ten levels are 2^10 paths: inside the budget, expanded in full.
  const small = check(project({ ...book, properties: { tree: { $ref: "#/$defs/l0" } }, $defs: fanOut(10) }));
  assert.equal(small.found, []);
  const depth = (s: unknown): number => (s && typeof s === "object" ? 1 + Math.max(0, ...Object.values(s).map(depth)) : 0);
  assert.ok(depth(small.result.model!.resources[0]!.fields[0]!.schema) > 40);
});

test("the budget per resource and the total are settable; the total counts every resource and action", () => {
  const book = { type: "object", "x-collection": "books", properties: { tree: { $ref: "#/$defs/l0" } }, $defs: fanOut(8) };
  assert.equal(check(project(book)).found, []);
  assert.equal(check(project(book), { limits: { schemaNodes: 100 } }).found, [["schema-too-large", "/properties/tree"]]);
  const withAction = project(book, { "shared.json": { $defs: fanOut(8) } }, { lookup: { method: "GET", response: { $ref: "shared.json#/$defs/l0" } } });
  assert.equal(check(withAction).found, []);
  const { found, result } = check(withAction, { limits: { totalSchemaNodes: 3000 } });
  assert.equal(found, [["schema-too-large", "/actions/lookup/response"]]);
  assert.match(result.diagnostics[0]!.message, "takes the project past 3 000 schema nodes");
});

test("a chain of 5 000 $defs nested one in the next is schema-too-large by its depth, not a stack overflow", () => {
  const defs: Record<string, object> = { d5000: { type: "string" } };
  for (let i = 0; i < 5000; i++) defs[`d${i}`] = { type: "object", properties: { next: { $ref: `#/$defs/d${i + 1}` } } };
  const { found, result } = check(project({ type: "object", "x-collection": "books", properties: { chain: { $ref: "#/$defs/d0" } }, $defs: defs }));
  assert.equal(found, [["schema-too-large", "/properties/chain"]]);
  assert.match(result.diagnostics[0]!.message, "nests more than 256 levels deep once its $refs are expanded");
  // A chain of 20 000 $refs to $refs: followed once each (not once per start), and no stack overflow.
  const bare: Record<string, object> = { b20000: { type: "string" } };
  for (let i = 0; i < 20_000; i++) bare[`b${i}`] = { $ref: `#/$defs/b${i + 1}` };
  const long = check(project({ type: "object", "x-collection": "books", properties: { chain: { $ref: "#/$defs/b0" } }, $defs: bare }));
  assert.equal(long.found, [["schema-too-large", "/properties/chain"]]);
  assert.ok(long.ms < 3000, `check took ${Math.round(long.ms)} ms`);
});

test("a $defs entry that is only a $ref to itself is circular-ref, reported once, where the loop starts", () => {
  const book = { type: "object", "x-collection": "books", properties: { isbn: { $ref: "#/$defs/isbn" }, other: { $ref: "#/$defs/isbn" } }, $defs: { isbn: { $ref: "#/$defs/isbn", description: "ISBN" } } };
  const { found, result } = check(project(book));
  assert.equal(found, [["circular-ref", "/$defs/isbn/$ref"]]);
  assert.match(result.diagnostics[0]!.message, "(#/$defs/isbn → #/$defs/isbn)");
});

test("a → b → a across files with nothing else is circular-ref; a recursive schema with a schema on the way is fine", () => {
  const book = { type: "object", "x-collection": "books", properties: { year: { $ref: "common.json#/$defs/a" } } };
  const { found, result } = check(project(book, { "common.json": { $defs: { a: { $ref: "other.json#/$defs/b" } } }, "other.json": { $defs: { b: { $ref: "common.json#/$defs/a" } } } }));
  assert.equal(found, [["circular-ref", "/$defs/a/$ref"]]);
  assert.is(path.basename(result.diagnostics[0]!.file), "common.json");
  assert.match(result.diagnostics[0]!.message, "(#/$defs/a → other.json#/$defs/b → #/$defs/a)");
  const tree = { type: "object", "x-collection": "books", properties: { node: { $ref: "#/$defs/node" } }, $defs: { node: { type: "object", properties: { parent: { $ref: "#/$defs/node" } } } } };
  assert.equal(check(project(tree)).found, []);
});

test("a $ref that does not resolve in a shared file is reported there (refs are checked in every schema they reach)", () => {
  const book = { type: "object", "x-collection": "books", properties: { isbn: { $ref: "common.json#/$defs/isbn" } } };
  const { found, result } = check(project(book, { "common.json": { $defs: { isbn: { $ref: "#/$defs/missing" } } } }));
  assert.equal(found, [["unresolved-ref", "/$defs/isbn/$ref"]]);
  assert.is(path.basename(result.diagnostics[0]!.file), "common.json");
});

test("20 000 $refs to an $anchor are resolved in linear time (anchors are indexed once per file)", () => {
  const properties = Object.fromEntries(Array.from({ length: 20_000 }, (_, i) => [`p${i}`, { $ref: "#isbn" }]));
  const dir = project({ type: "object", "x-collection": "books", properties, $defs: { isbn: { $anchor: "isbn", type: "string", minLength: 13 } } });
  const { result, ms, found } = check(dir);
  assert.equal(found, []);
  // Inlined without its $anchor: 20 000 copies of one anchor in a body are more than ajv compiles (schema-compile).
  assert.equal(result.model!.resources[0]!.fields[0]!.schema, { type: "string", minLength: 13 });
  // Before: one walk of the whole file per $ref, minutes for this file of 500 KB.
  assert.ok(ms < 5000, `check took ${Math.round(ms)} ms`);
});

test.after(() => fs.rmSync(tmp, { recursive: true, force: true }));

test.run();
