/**
 * Body validation of a generated service (templates/runtime/validate.ts) against schemas a definition
 * may hold: a catastrophic `pattern`, which the linear-time engine answers at once, optional
 * properties whose names are those of Object.prototype's members, and the words of each failure's `dev`.
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
    resources: [{ collection: "things", fields: [], bodySchema: { type: "object", additionalProperties: false, required, properties } }],
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

test("an enum failure lists the enum's values; a const its value", () => {
  const v = validatorsOf({ status: { type: "string", enum: ["draft", "published", "archived"] }, level: { enum: [1, 2, null] }, kind: { const: "book" } });
  const e = errorOf(v, { status: "drafted" });
  assert.is(e?.body.property, "status");
  assert.is(e?.body.dev, 'status must be one of "draft", "published", "archived".');
  assert.is(errorOf(v, { level: 3 })?.body.dev, "level must be one of 1, 2, null.");
  assert.is(errorOf(v, { kind: "film" })?.body.dev, 'kind must be "book".');
});

test("a format failure names the format with an example, and says nothing about sending numbers", () => {
  const v = validatorsOf({ born: { type: "string", format: "date" }, mail: { type: "string", format: "email" }, at: { type: "string", format: "date-time" }, id: { type: "string", format: "uuid" }, host: { type: "string", format: "idn-hostname" } });
  const e = errorOf(v, { born: "yesterday" });
  assert.is(e?.body.property, "born");
  assert.is(e?.body.dev, 'born must be a valid date such as "2024-05-01".');
  assert.is(errorOf(v, { mail: "ann" })?.body.dev, 'mail must be a valid email such as "ann@example.com".');
  assert.is(errorOf(v, { at: "2024-05-01" })?.body.dev, 'at must be a valid date-time such as "2024-05-01T12:00:00Z".');
  for (const body of [{ born: "x" }, { mail: "x" }, { at: "x" }, { id: "x" }]) {
    const dev = errorOf(v, body)?.body.dev ?? "";
    assert.ok(dev.length > 0 && !/number|coerce|convert/i.test(dev), dev);
  }
});

test("a type failure says the type in words; a number, integer or boolean sent as a string is told not to be", () => {
  const v = validatorsOf({ pages: { type: "integer" }, price: { type: ["number", "null"] }, title: { type: "string" }, done: { type: "boolean" }, tags: { type: "array" } });
  assert.is(errorOf(v, { pages: "12" })?.body.dev, 'pages must be an integer. Values are never converted: send 12 and true, not "12" and "true".');
  assert.is(errorOf(v, { price: "1.5" })?.body.dev, 'price must be a number or null. Values are never converted: send 12 and true, not "12" and "true".');
  assert.is(errorOf(v, { done: "true" })?.body.dev, 'done must be true or false. Values are never converted: send 12 and true, not "12" and "true".');
  assert.is(errorOf(v, { title: 12 })?.body.dev, "title must be a string.");
  assert.is(errorOf(v, { tags: "a" })?.body.dev, "tags must be an array.");
  // other keywords keep ajv's words, without the note on types
  assert.is(errorOf(validatorsOf({ n: { type: "integer", minimum: 1 } }), { n: 0 })?.body.dev, "n must be >= 1.");
});

test("query parameters: the same words, without the note (query strings are converted)", () => {
  const spec = {
    resources: [],
    actions: [{ name: "convert", query: { type: "object", properties: { from: { type: "string", enum: ["EUR", "USD"] }, amount: { type: "number" } } } }],
  } as unknown as ServiceSpec;
  const v = compileValidators(spec, catalog);
  const queryError = (q: Record<string, unknown>) => {
    try {
      v.query("convert", q);
    } catch (e) {
      if (e instanceof ApiError) return e;
      throw e;
    }
    return undefined;
  };
  assert.is(queryError({ from: "GBP" })?.body.dev, 'Query parameter from must be one of "EUR", "USD".');
  assert.is(queryError({ amount: "ten" })?.body.dev, "Query parameter amount must be a number.");
});

test.run();
