/**
 * A schema a $ref reaches is one shared schema of the model, however often it is referred to (schemas
 * that reference the next one twice at every level stay linear); what is written has a budget; and a
 * $ref chain that only leads back to itself is an error, not a property that silently validates nothing.
 */
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { test } from "uvu";
import * as assert from "uvu/assert";
import type { CheckOptions } from "../../../src/load/limits.js";
import { checkProject } from "../../../src/pipeline.js";
import { withSharedRefs } from "../../../src/model/shared.js";

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

/** The JSON size of what the model holds for a project: its fields' and shared schemas. */
function modelSize(result: ReturnType<typeof checkProject>): number {
  const m = result.model!;
  return JSON.stringify([m.resources.map((r) => r.fields.map((f) => f.schema)), m.actions, m.schemas]).length;
}

test("a $ref fan-out that doubles at each of 40 levels stays one shared schema per level: clean, linear, fast", () => {
  // When $refs were inlined: 28 levels took 18 s and 839 MB; 40 would never finish.
  const dir = project({ type: "object", "x-collection": "books", properties: { title: { type: "string" }, tree: { $ref: "#/$defs/l0" } }, $defs: fanOut(40) });
  const { result, ms, found } = check(dir);
  assert.equal(found, []);
  const model = result.model!;
  assert.equal(model.resources[0]!.fields.find((f) => f.name === "tree")!.schema, { $ref: "#/$defs/L0" });
  assert.equal(model.schemas.length, 41);
  assert.equal(model.schemas.find((s) => s.name === "L0")!.schema, {
    type: "object",
    properties: { left: { anyOf: [{ $ref: "#/$defs/L1" }, { type: "null" }] }, right: { anyOf: [{ $ref: "#/$defs/L1" }, { type: "null" }] } },
  });
  assert.ok(modelSize(result) < 20_000, `the model holds ${modelSize(result)} characters of schemas`);
  assert.ok(ms < 3000, `check took ${Math.round(ms)} ms`);
});

test("the same fan-out in an action's response is one shared schema too; the action refers to it", () => {
  const book = { type: "object", "x-collection": "books", properties: { title: { type: "string" } } };
  const shared = { $defs: fanOut(40) };
  const { found, result } = check(project(book, { "shared.json": shared }, { lookup: { method: "GET", response: { $ref: "shared.json#/$defs/l0" } } }));
  assert.equal(found, []);
  assert.equal(result.model!.actions[0]!.response, { $ref: "#/$defs/L0" });
  assert.equal(result.model!.schemas.length, 41);
});

test("a chain of resources, each linking to the next twice in Stripe's expandable form, is linear (no copy per path)", () => {
  // Stripe writes expandable links as anyOf [id string, $ref]; when $refs were inlined, a chain of 28 such
  // resources took 18 s and 839 MB. Each resource's schema is one shared schema now, whatever reads it.
  const dir = path.join(tmp, `p${++counter}`);
  fs.mkdirSync(dir);
  const k = 60;
  const files: string[] = [];
  for (let i = 0; i < k; i++) {
    const next = i + 1 < k ? { anyOf: [{ type: "string" }, { $ref: `r${i + 1}.json` }] } : { type: "string" };
    const schema = { type: "object", "x-collection": `things${i}s`.replace(/\d/g, (d) => "abcdefghij"[Number(d)]!), properties: { name: { type: "string" }, meta: { type: "object", properties: { a: next, b: next } } } };
    fs.writeFileSync(path.join(dir, `r${i}.json`), JSON.stringify(schema));
    files.push(`r${i}.json`);
  }
  fs.writeFileSync(path.join(dir, "service.json"), JSON.stringify({ name: "chain", vendor: "acme", version: 1, baseUrl: "https://api.example.com/v1", errorDocsUrl: "https://docs.example.com/errors", resources: files }));
  const { result, ms } = check(dir);
  assert.ok(result.model, "a model");
  assert.ok(modelSize(result) < 200_000, `the model holds ${modelSize(result)} characters of schemas`);
  assert.ok(ms < 3000, `check took ${Math.round(ms)} ms`);
});

test("the budget per schema and the total are settable; the total counts every resource, action and shared schema", () => {
  const book = { type: "object", "x-collection": "books", properties: { tree: { $ref: "#/$defs/l0" } }, $defs: fanOut(8) };
  assert.equal(check(project(book)).found, []);
  // A resource's own schema past the budget: reported at the property where it ran out.
  const wide = { type: "object", "x-collection": "books", properties: Object.fromEntries(Array.from({ length: 60 }, (_, i) => [`p${i}`, { type: "object", properties: {} }])) };
  const over = check(project(wide), { limits: { schemaNodes: 100 } });
  assert.equal(over.found.length, 1);
  assert.equal(over.found[0]![0], "schema-too-large");
  assert.match(over.result.diagnostics[0]!.message, 'resource "books" has more than 100 schema nodes');
  // A shared schema past it: reported where it is written.
  const bigDef = { type: "object", "x-collection": "books", properties: { big: { $ref: "#/$defs/big" } }, $defs: { big: wide.properties.p0 && { type: "object", properties: wide.properties } } };
  assert.equal(check(project(bigDef), { limits: { schemaNodes: 100 } }).found, [["schema-too-large", "/$defs/big"]]);
  const withAction = project(book, { "shared.json": { $defs: fanOut(8) } }, { lookup: { method: "GET", response: { $ref: "shared.json#/$defs/l0" } } });
  assert.equal(check(withAction).found, []);
  const { found, result } = check(withAction, { limits: { totalSchemaNodes: 30 } });
  assert.ok(found.length >= 1 && found.every(([code]) => code === "schema-too-large"), JSON.stringify(found));
  assert.match(result.diagnostics[0]!.message, "takes the project past 30 schema nodes");
});

test("a chain of 200 $defs, each referring to the next, is 201 shared schemas: check and the service's validator follow it", () => {
  // (ajv compiles a chain of $refs by recursion: past ~300 its stack runs out, and check says schema-compile.)
  const defs: Record<string, object> = { d200: { type: "string" } };
  for (let i = 0; i < 200; i++) defs[`d${i}`] = { type: "object", properties: { next: { $ref: `#/$defs/d${i + 1}` } } };
  const { found, result, ms } = check(project({ type: "object", "x-collection": "books", properties: { chain: { $ref: "#/$defs/d0" } }, $defs: defs }));
  assert.equal(found, []);
  assert.equal(result.model!.schemas.length, 201);
  assert.ok(ms < 8000, `check took ${Math.round(ms)} ms`);
  // A chain of 200 $refs to $refs: followed once each (not once per start); its kind is the end's.
  const bare: Record<string, object> = { b200: { type: "string" } };
  for (let i = 0; i < 200; i++) bare[`b${i}`] = { $ref: `#/$defs/b${i + 1}` };
  const long = check(project({ type: "object", "x-collection": "books", properties: { chain: { $ref: "#/$defs/b0" } }, $defs: bare }));
  assert.equal(long.found, []);
  assert.is(long.result.model!.resources[0]!.fields[0]!.kind, "string");
  assert.ok(long.ms < 5000, `check took ${Math.round(long.ms)} ms`);
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
  assert.equal(result.model!.resources[0]!.fields[0]!.schema, { $ref: "#/$defs/Isbn" });
  assert.equal(result.model!.schemas, [{ name: "Isbn", schema: { type: "string", minLength: 13 }, origin: { file: path.join(dir, "book.json"), pointer: "/$defs/isbn" } }]);
  // Before: one walk of the whole file per $ref, minutes for this file of 500 KB.
  assert.ok(ms < 5000, `check took ${Math.round(ms)} ms`);
});

test.after(() => fs.rmSync(tmp, { recursive: true, force: true }));

test("withSharedRefs: properties named like data keywords (default, enum, examples, const, x-…) are schemas, their refs rewritten; data stays data", () => {
  const schema = {
    properties: {
      default: { $ref: "#/$defs/Json" },
      enum: { type: "array", items: { $ref: "#/$defs/Json" } },
      examples: { $ref: "#/$defs/Json" },
      const: { $ref: "#/$defs/Json" },
      "x-rate": { $ref: "#/$defs/Json" },
      plain: { default: { $ref: "#/$defs/Json" }, enum: [{ $ref: "#/$defs/Json" }] },
    },
    patternProperties: { "^x-": { $ref: "#/$defs/Json" } },
    "x-note": { $ref: "#/$defs/Json" },
  };
  const out = withSharedRefs(schema, (name) => `resourcery:shared/${name}`) as any;
  for (const name of ["default", "examples", "const", "x-rate"]) assert.is(out.properties[name].$ref, "resourcery:shared/Json", name);
  assert.is(out.properties.enum.items.$ref, "resourcery:shared/Json");
  assert.is(out.patternProperties["^x-"].$ref, "resourcery:shared/Json");
  // Values of data keywords are data: a "$ref" inside them is text.
  assert.equal(out.properties.plain, { default: { $ref: "#/$defs/Json" }, enum: [{ $ref: "#/$defs/Json" }] });
  assert.equal(out["x-note"], { $ref: "#/$defs/Json" });
});

test("an enum that lists a value twice keeps it once (the service's validator refuses repeats; the meaning is the same)", () => {
  const book = { type: "object", "x-collection": "books", properties: { code: { type: "string", enum: ["a", "b", "a", "c", "b"] } } };
  const { found, result } = check(project(book));
  assert.equal(found, []);
  assert.equal(result.model!.resources[0]!.fields[0]!.schema, { type: "string", enum: ["a", "b", "c"] });
});

test.run();
