/**
 * Shared schemas stay shared in every step of generate (issue 17): unions whose branches refer to the same
 * unions again, 40 levels deep, double their paths at each level. On the same value (anyOf/oneOf of the next
 * levels) that is exponential validation, which `check` refuses (schema-fan-out); through arrays' items it is
 * fine to validate, and every step of generate visits each shared schema once (the docs' type text spelt them
 * out once per path: 29 levels never finished), so it generates at once and its texts grow with the schemas.
 */
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { test } from "uvu";
import * as assert from "uvu/assert";
import { generate } from "../../../src/generate.js";

const tmp = fs.mkdtempSync(path.join(os.tmpdir(), "resourcery-union-dag-"));
test.after(() => fs.rmSync(tmp, { recursive: true, force: true }));

const LEVELS = 40;

/** l0 … l40 and m1 … m40: each l a oneOf of the next m and an array of the next l, each m an anyOf of an array of its l, boolean and null. */
function itemsDag(): Record<string, unknown> {
  const defs: Record<string, unknown> = { [`l${LEVELS}`]: { oneOf: [{ type: "string" }, { type: "integer" }] } };
  for (let i = 0; i < LEVELS; i++) {
    const [m, l] = [`#/$defs/m${i + 1}`, `#/$defs/l${i + 1}`];
    defs[`l${i}`] = { oneOf: [{ $ref: m }, { type: "array", items: { $ref: l } }] };
    defs[`m${i + 1}`] = { anyOf: [{ type: "array", items: { $ref: l } }, { type: "boolean" }, { type: "null" }] };
  }
  return defs;
}

/** The same, on the same value: each l a oneOf of the next m and the next l, each m an anyOf of its l. */
function inPlaceDag(levels = LEVELS): Record<string, unknown> {
  const defs: Record<string, unknown> = { [`l${levels}`]: { oneOf: [{ type: "string" }, { type: "integer" }] } };
  for (let i = 0; i < levels; i++) {
    defs[`l${i}`] = { oneOf: [{ $ref: `#/$defs/m${i + 1}` }, { $ref: `#/$defs/l${i + 1}` }] };
    defs[`m${i + 1}`] = { anyOf: [{ $ref: `#/$defs/l${i + 1}` }, { type: "boolean" }] };
  }
  return defs;
}

function project(name: string, dag: Record<string, unknown>, w: unknown = { anyOf: [{ $ref: "#/$defs/m1" }, { type: "null" }] }): string {
  const defs = path.join(tmp, name);
  fs.mkdirSync(defs);
  fs.writeFileSync(path.join(defs, "service.json"), JSON.stringify({ name: "dag-service", vendor: "acme", version: 1, baseUrl: "https://api.example.com/v1", errorDocsUrl: "https://docs.example.com/errors", resources: ["book.json"] }));
  const book = { type: "object", "x-collection": "books", properties: { title: { type: "string" }, v: { $ref: "#/$defs/l0" }, w }, $defs: dag };
  fs.writeFileSync(path.join(defs, "book.json"), JSON.stringify(book));
  return defs;
}

test("a union DAG 40 levels deep through arrays generates at once; the docs name a shared union where it comes again", async () => {
  const out = path.join(tmp, "out");
  const started = performance.now();
  const result = await generate(project("items", itemsDag()), { out });
  const ms = performance.now() - started;
  assert.equal(result.check.diagnostics.filter((d) => d.severity === "error"), []);
  assert.ok(result.written, "written");
  assert.ok(ms < 20_000, `generate took ${Math.round(ms)} ms`);
  const row = fs.readFileSync(path.join(out, "docs/resources/books.md"), "utf8").split("\n").find((line) => line.includes('id="field-v"'));
  assert.ok(row, "the field's row");
  assert.ok(row.length < 6000, `the row is ${row.length} characters`);
  // Spelt out once, named where it comes again.
  assert.match(row, "boolean or null or array of L1 |");
  for (const file of ["docs/openapi.json", ".resourcery/contract.json", "client/types.ts"]) {
    const size = fs.statSync(path.join(out, file)).size;
    assert.ok(size < 3_000_000, `${file} is ${size} bytes`);
  }
});

test("the same DAG on the same value is refused by check (schema-fan-out), at once, and nothing is written", async () => {
  const out = path.join(tmp, "refused");
  const started = performance.now();
  const result = await generate(project("in-place", inPlaceDag()), { out });
  assert.ok(performance.now() - started < 10_000, `${Math.round(performance.now() - started)} ms`);
  assert.not.ok(result.written);
  assert.not.ok(fs.existsSync(out));
  const found = result.check.diagnostics.filter((d) => d.severity === "error");
  assert.equal(found.map((d) => d.code), ["schema-fan-out"]);
  assert.match(found[0]!.message, /validating one value against "l\d+" applies [\d,]+ schemas to it \("l\d+", oneOf\/0 → "m\d+", anyOf\/0 → "l\d+"/);
});

test("a property naming heavy shared schemas side by side is counted too: refused at the property", async () => {
  // 11 levels: one value meets 6 142 shared schemas through l0 (within the limit); a property naming it twice, 12 285.
  const result = await generate(project("side-by-side", inPlaceDag(11), { anyOf: [{ $ref: "#/$defs/l0" }, { $ref: "#/$defs/l0" }] }), { out: path.join(tmp, "side-out") });
  const found = result.check.diagnostics.filter((d) => d.severity === "error");
  assert.equal(found.map((d) => [d.code, d.pointer]), [["schema-fan-out", "/properties/w/anyOf/0/$ref"]]);
  assert.match(found[0]!.message, 'validating one value of "w" of books applies 12,285 schemas to it');
  assert.ok((await generate(project("within", inPlaceDag(11)), { out: path.join(tmp, "within-out") })).written, "l0 alone is within the limit");
});

test.run();
