/**
 * Server-owned names (CONTRACT §2): the fit of a declared id or timestamp with what the server makes
 * (src/lint/schema-fit.ts), and the rule's verdict per case (x-id form × declaration), each with exact
 * expectations. The printed diagnostics themselves are in the check corpus (server-owned-*).
 */
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { test } from "uvu";
import * as assert from "uvu/assert";
import { ID_PREFIX_PATTERN, exampleId, idFormOf, idSchemaOf, madeIds } from "../../../src/model/id-forms.js";
import { misfit } from "../../../src/lint/schema-fit.js";
import { checkItems } from "../../helpers/check.js";

const uuid = { value: "0190b6c2-7d4e-7a10-8f3e-5b2c9d1e4f60", formats: ["uuid"] };
const seq = { value: 42, formats: ["int64"] };

test("misfit: each keyword that can refuse a string or a number, by name and as written", () => {
  assert.is(misfit({ type: "string" }, uuid), undefined);
  assert.is(misfit({ type: ["string", "null"] }, uuid), undefined);
  assert.is(misfit(true, uuid), undefined);
  assert.equal(misfit(false, uuid), { keyword: "false", says: "false (nothing)" });
  assert.equal(misfit({ type: "integer" }, uuid), { keyword: "type", says: "an integer" });
  assert.equal(misfit({ type: ["object", "null"] }, uuid), { keyword: "type", says: "an object or null" });
  assert.is(misfit({ type: "number" }, seq), undefined, "every integer is a number");
  assert.equal(misfit({ type: "integer" }, { value: 1.5, formats: [] }), { keyword: "type", says: "an integer" });
  assert.equal(misfit({ enum: ["a"] }, uuid), { keyword: "enum", says: '"enum": ["a"]' });
  assert.equal(misfit({ const: 1 }, seq), { keyword: "const", says: '"const": 1' });
  assert.is(misfit({ format: "uuid" }, uuid), undefined);
  assert.equal(misfit({ format: "email" }, uuid), { keyword: "format", says: '"format": "email"' });
  // Formats as the service's validator applies them: a number format holds a sequence's ids, one of the
  // other JSON type is not applied, an unknown one is not checked (unknown-format's finding), a date is no date-time.
  assert.is(misfit({ type: "integer", format: "int32" }, seq), undefined);
  assert.is(misfit({ type: "integer", format: "int64" }, seq), undefined);
  assert.is(misfit({ type: "string", format: "int64" }, uuid), undefined);
  assert.is(misfit({ type: "string", format: "UUID" }, uuid), undefined);
  assert.is(misfit({ format: "datetime" }, { value: "2024-01-15T10:30:00.000Z", formats: ["date-time"] }), undefined);
  assert.equal(misfit({ format: "date" }, { value: "2024-01-15T10:30:00.000Z", formats: ["date-time"] }), { keyword: "format", says: '"format": "date"' });
  assert.equal(misfit({ format: "uuid" }, { value: "cus_0123456789abcdefghijkl", formats: [] }), { keyword: "format", says: '"format": "uuid"' });
  assert.equal(misfit({ minLength: 40 }, uuid), { keyword: "minLength", says: '"minLength": 40' });
  assert.equal(misfit({ maxLength: 35 }, uuid), { keyword: "maxLength", says: '"maxLength": 35' });
  assert.is(misfit({ maxLength: 36, minLength: 36 }, uuid), undefined);
  assert.is(misfit({ pattern: "^[0-9a-f-]+$" }, uuid), undefined);
  assert.equal(misfit({ pattern: "^cus_" }, uuid), { keyword: "pattern", says: '"pattern": "^cus_"' });
  assert.is(misfit({ pattern: "(a)\\1" }, uuid), undefined, "a pattern RE2 cannot run is invalid-pattern's finding");
  assert.equal(misfit({ minimum: 100 }, seq), { keyword: "minimum", says: '"minimum": 100' });
  assert.equal(misfit({ maximum: 10 }, seq), { keyword: "maximum", says: '"maximum": 10' });
  assert.equal(misfit({ exclusiveMinimum: 42 }, seq), { keyword: "exclusiveMinimum", says: '"exclusiveMinimum": 42' });
  assert.equal(misfit({ exclusiveMaximum: 42 }, seq), { keyword: "exclusiveMaximum", says: '"exclusiveMaximum": 42' });
  assert.equal(misfit({ multipleOf: 5 }, seq), { keyword: "multipleOf", says: '"multipleOf": 5' });
  assert.is(misfit({ minimum: 100 }, uuid), undefined, "a number keyword says nothing of a string");
  assert.is(misfit({ maxLength: 1 }, seq), undefined, "a string keyword says nothing of a number");
  assert.equal(misfit({ allOf: [{ type: "string" }, { maxLength: 3 }] }, uuid), { keyword: "maxLength", says: '"maxLength": 3' });
  assert.is(misfit({ anyOf: [{ type: "integer" }, { type: "string" }] }, uuid), undefined);
  assert.equal(misfit({ oneOf: [{ type: "integer" }, { type: "boolean" }] }, uuid), { keyword: "type", says: "an integer" });
  assert.is(misfit({ type: "string", readOnly: false, writeOnly: true, default: "x", description: "d" }, uuid), undefined);
});

test("x-id forms: idFormOf reads the meta-schema's shapes; the prefix pattern is the meta-schema's", () => {
  assert.equal(idFormOf(undefined), { kind: "uuid" });
  assert.equal(idFormOf("uuid"), { kind: "uuid" });
  assert.equal(idFormOf("sequence"), { kind: "sequence" });
  assert.equal(idFormOf({ prefix: "cus_" }), { kind: "prefix", prefix: "cus_" });
  const meta = JSON.parse(fs.readFileSync(new URL("../../../schemas/resource.schema.json", import.meta.url), "utf8"));
  assert.is(meta.$defs.keywords.properties["x-id"].else.properties.prefix.pattern, ID_PREFIX_PATTERN);
  const prefix = new RegExp(ID_PREFIX_PATTERN);
  for (const ok of ["cus_", "a_", "line_item_", "x1_", "abcdefghijklmno_"]) assert.ok(prefix.test(ok), ok);
  for (const bad of ["cus", "Cus_", "_a_", "1a_", "cus-", "abcdefghijklmnop_", "a b_", ""]) assert.not.ok(prefix.test(bad), bad);
});

test("the ids the docs show and the check judges fit the schema OpenAPI states for the form", () => {
  for (const form of [idFormOf(undefined), idFormOf({ prefix: "cus_" }), idFormOf("sequence")]) {
    const schema = idSchemaOf(form);
    const formats = form.kind === "uuid" ? ["uuid"] : [];
    for (const value of [...madeIds(form), exampleId(form), exampleId(form, 1)]) {
      assert.is(misfit(schema, { value, formats }), undefined, `${JSON.stringify(value)} against ${JSON.stringify(schema)}`);
    }
    assert.is.not(exampleId(form), exampleId(form, 1));
  }
});

/** The codes `check` reports for one resource `books` with these root keywords and an `id` declaration (or none). */
function verdict(root: Record<string, unknown>, properties: Record<string, unknown>, required: string[] = []): string[] {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), "resourcery-owned-"));
  try {
    fs.writeFileSync(path.join(dir, "service.json"), JSON.stringify({ name: "x", vendor: "acme", version: 1, baseUrl: "https://api.example.com/v1", errorDocsUrl: "https://docs.example.com/errors", resources: ["book.json"] }));
    fs.writeFileSync(path.join(dir, "book.json"), JSON.stringify({ title: "Book", type: "object", "x-collection": "books", ...root, required, properties: { title: { type: "string" }, ...properties } }));
    return checkItems(dir).map((d) => `${d.rule} ${d.pointer}`);
  } finally {
    fs.rmSync(dir, { recursive: true, force: true });
  }
}

test("the rule per case: what fits each id form is accepted, what does not is an error at the keyword", () => {
  const prefix = { "x-id": { prefix: "cus_" } };
  const sequence = { "x-id": "sequence" };
  // Fits.
  assert.equal(verdict({}, { id: { type: "string", description: "Unique identifier.", maxLength: 5000 } }, ["id"]), []);
  assert.equal(verdict({}, { id: { type: "string", format: "uuid", readOnly: true } }), []);
  assert.equal(verdict({ "x-id": "uuid" }, { id: { type: "string" } }), []);
  assert.equal(verdict(prefix, { id: { type: "string", pattern: "^cus_[A-Za-z0-9]+$" } }), []);
  assert.equal(verdict(sequence, { id: { type: "integer", format: "int64", minimum: 1 } }), []);
  assert.equal(verdict(sequence, { id: { type: "number" } }), []);
  assert.equal(verdict({}, { createdAt: { type: "string", format: "date-time" }, modifiedAt: { type: "string" } }, ["createdAt"]), []);
  assert.equal(verdict({}, {}, ["id", "createdAt", "modifiedAt", "meta"]), [], "required may name what every representation carries");
  // Does not fit.
  assert.equal(verdict({}, { id: { type: "integer" } }), ["server-owned-mismatch /properties/id/type"]);
  assert.equal(verdict(prefix, { id: { type: "integer" } }), ["server-owned-mismatch /properties/id/type"]);
  assert.equal(verdict(sequence, { id: { type: "string" } }), ["server-owned-mismatch /properties/id/type"]);
  assert.equal(verdict(prefix, { id: { type: "string", format: "uuid" } }), ["server-owned-mismatch /properties/id/format"]);
  assert.equal(verdict({}, { id: { type: "string", maxLength: 24 } }), ["server-owned-mismatch /properties/id/maxLength"]);
  assert.equal(verdict(prefix, { id: { type: "string", pattern: "^acct_" } }), ["server-owned-mismatch /properties/id/pattern"]);
  assert.equal(verdict(sequence, { id: { type: "integer", maximum: 1000 } }), ["server-owned-mismatch /properties/id/maximum"]);
  assert.equal(verdict({}, { id: { type: "object" } }), ["server-owned-mismatch /properties/id/type"]);
  assert.equal(verdict({}, { createdAt: { type: "integer" } }), ["server-owned-mismatch /properties/createdAt/type"]);
  assert.equal(verdict({}, { modifiedAt: { type: "string", format: "date" } }), ["server-owned-mismatch /properties/modifiedAt/format"]);
  assert.equal(verdict({}, { meta: { type: "object" } }), ["server-owned-property /properties/meta"]);
  // Twins warn.
  assert.equal(verdict({}, { created_at: { type: "string" }, modified_at: { type: "string" }, updated_at: { type: "string" }, updatedAt: { type: "string" }, createdOn: { type: "string" } }), [
    "server-owned-twin /properties/created_at",
    "server-owned-twin /properties/modified_at",
    "server-owned-twin /properties/updated_at",
    "server-owned-twin /properties/updatedAt",
  ]);
});

test("x-id shapes the meta-schema refuses, with the fix", () => {
  assert.equal(verdict({ "x-id": "serial" }, {}), ["meta-schema /x-id"]);
  assert.equal(verdict({ "x-id": { prefix: "CUS" } }, {}), ["meta-schema /x-id/prefix"]);
  assert.equal(verdict({ "x-id": { prefix: "cus_", length: 10 } }, {}), ["meta-schema /x-id/length"]);
  assert.equal(verdict({ "x-id": {} }, {}), ["meta-schema /x-id"]);
  assert.equal(verdict({ "x-id": 5 }, {}), ["meta-schema /x-id"]);
});

test.run();
