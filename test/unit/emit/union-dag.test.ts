/**
 * Shared schemas stay shared in every step of generate (issue 17): a union whose branches refer to the same
 * unions again, 40 levels deep, doubles its paths at each level. Walked once per path, 18 levels took seconds
 * and 29 never finished (the merge-patch facts' nullable test, the docs' type text): each step now visits a
 * shared schema once, so the whole generate finishes at once and its texts grow with the schemas.
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

/** l0 … l40 and m1 … m40: each l a oneOf of the next m, the next l, an array of it and an object holding both. */
function unionDag(): Record<string, unknown> {
  const defs: Record<string, unknown> = { [`l${LEVELS}`]: { oneOf: [{ type: "string" }, { type: "integer" }] } };
  for (let i = 0; i < LEVELS; i++) {
    const [m, l] = [`#/$defs/m${i + 1}`, `#/$defs/l${i + 1}`];
    defs[`l${i}`] = { oneOf: [{ $ref: m }, { $ref: l }, { type: "array", items: { $ref: l } }, { type: "object", properties: { x: { $ref: m }, y: { $ref: l } } }] };
    defs[`m${i + 1}`] = { anyOf: [{ $ref: l }, { type: "boolean" }, { type: "null" }] };
  }
  return defs;
}

test("a union DAG 40 levels deep generates at once; the docs name a shared union where it comes again", async () => {
  const defs = path.join(tmp, "defs");
  const out = path.join(tmp, "out");
  fs.mkdirSync(defs);
  fs.writeFileSync(path.join(defs, "service.json"), JSON.stringify({ name: "dag-service", vendor: "acme", version: 1, baseUrl: "https://api.example.com/v1", errorDocsUrl: "https://docs.example.com/errors", resources: ["book.json"] }));
  const book = { type: "object", "x-collection": "books", properties: { title: { type: "string" }, v: { $ref: "#/$defs/l0" }, w: { anyOf: [{ $ref: "#/$defs/m1" }, { type: "null" }] } }, $defs: unionDag() };
  fs.writeFileSync(path.join(defs, "book.json"), JSON.stringify(book));
  const started = performance.now();
  const result = await generate(defs, { out });
  const ms = performance.now() - started;
  assert.equal(result.check.diagnostics.filter((d) => d.severity === "error"), []);
  assert.ok(result.written, "written");
  assert.ok(ms < 20_000, `generate took ${Math.round(ms)} ms`);
  const row = fs.readFileSync(path.join(out, "docs/resources/books.md"), "utf8").split("\n").find((line) => line.includes('id="field-v"'));
  assert.ok(row, "the field's row");
  assert.ok(row.length < 6000, `the row is ${row.length} characters`);
  // Spelt out once, named where it comes again.
  assert.match(row, "or L40 or array of L40");
  for (const file of ["docs/openapi.json", ".resourcery/contract.json", "src/generated/types.ts"]) {
    const size = fs.statSync(path.join(out, file)).size;
    assert.ok(size < 3_000_000, `${file} is ${size} bytes`);
  }
});

test.run();
