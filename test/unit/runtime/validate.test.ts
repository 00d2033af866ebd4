/**
 * Body validation of a generated service (templates/runtime/validate.ts) against schemas a definition
 * may hold: a catastrophic `pattern`, which the linear-time engine answers at once, and optional
 * properties whose names are those of Object.prototype's members.
 */
import { test } from "uvu";
import * as assert from "uvu/assert";
import { BUILTIN_ERRORS } from "../../../src/model/builtin-errors.js";
import { ApiError, catalogOf } from "../../../templates/runtime/errors.js";
import type { ServiceSpec } from "../../../templates/runtime/spec.js";
import { compileValidators, linearRegExp } from "../../../templates/runtime/validate.js";

const catalog = catalogOf(BUILTIN_ERRORS.map((e) => ({ ...e, info: `https://docs.example.com/errors/${e.code}` })));

/** A spec of one collection "things" whose body has these properties. */
function validatorsOf(properties: Record<string, unknown>, required: string[] = []) {
  const spec = {
    resources: [{ collection: "things", bodySchema: { type: "object", additionalProperties: false, required, properties } }],
    actions: [],
  } as unknown as ServiceSpec;
  return compileValidators(spec, catalog);
}

/** The ApiError a body gets, or undefined when it is valid. */
function errorOf(validators: ReturnType<typeof validatorsOf>, body: unknown): ApiError | undefined {
  try {
    validators.body("things", body, new Set());
    return undefined;
  } catch (e) {
    if (e instanceof ApiError) return e;
    throw e;
  }
}

test("a catastrophic pattern answers at once: ^(a+)+$ against 41 characters and more", () => {
  const v = validatorsOf({ code: { type: "string", pattern: "^(a+)+$" } });
  const started = performance.now();
  const e = errorOf(v, { code: "a".repeat(41) + "!" });
  assert.ok(performance.now() - started < 500, `took ${Math.round(performance.now() - started)} ms`);
  assert.is(e?.status, 400);
  assert.is(e?.body.property, "code");
  assert.is(errorOf(v, { code: "a".repeat(10_000) + "!" })?.body.property, "code");
  assert.is(errorOf(v, { code: "aaaa" }), undefined);
});

test("patterns keep their meaning under the linear engine: anchors, classes, Unicode, patternProperties", () => {
  const v = validatorsOf({
    isbn: { type: "string", pattern: "^[0-9]{3}-[0-9]{10}$" },
    word: { type: "string", pattern: "\\p{L}+" },
    tags: { type: "object", patternProperties: { "^x-": { type: "string" } }, additionalProperties: false },
  });
  assert.is(errorOf(v, { isbn: "978-0547773742", word: "été", tags: { "x-a": "b" } }), undefined);
  assert.is(errorOf(v, { isbn: "978-054777374" })?.body.property, "isbn");
  assert.is(errorOf(v, { word: "123" })?.body.property, "word");
  assert.is(errorOf(v, { tags: { y: "b" } })?.body.property, "tags.y");
  // Unanchored, a pattern matches anywhere in the value (JSON Schema's rule).
  assert.ok(linearRegExp("b+", "u").test("abba"));
  assert.not.ok(linearRegExp("^b+$", "u").test("abba"));
});

test("optional properties named toString, valueOf, hasOwnProperty or isPrototypeOf do not make every body fail", () => {
  const v = validatorsOf(
    { title: { type: "string" }, toString: { type: "string" }, valueOf: { type: "integer" }, hasOwnProperty: { type: "boolean" }, isPrototypeOf: { type: "string" } },
    ["title"],
  );
  assert.is(errorOf(v, { title: "t" }), undefined);
  assert.is(errorOf(v, { title: "t", toString: "s", valueOf: 1, hasOwnProperty: true }), undefined);
  assert.is(errorOf(v, { title: "t", toString: 1 })?.body.property, "toString");
  // A required one must be the body's own property, not the prototype's.
  const r = validatorsOf({ toString: { type: "string" } }, ["toString"]);
  assert.is(errorOf(r, {})?.body.property, "toString");
  assert.is(errorOf(r, { toString: "s" }), undefined);
});

test.run();
