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
import { compileValidators, linearRegExp, MAX_UNKNOWN_NAMED } from "../../../templates/runtime/validate.js";

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

test("every unknown property of a body is named in one answer: property the first in the body, dev all of them sorted", () => {
  const v = validatorsOf(
    { title: { type: "string" }, pages: { type: "integer" }, address: { type: "object", additionalProperties: false, properties: { city: { type: "string" } } } },
    ["title"],
  );
  const one = errorOf(v, { title: "t", colour: "red" });
  assert.is(one?.body.code, catalog.unknownProperty!.code);
  assert.is(one?.body.property, "colour");
  assert.is(one?.body.dev, '"colour" is not a property of this resource; remove it or correct its spelling.');
  assert.is(one?.body.message, catalog.unknownProperty!.message);
  const six = errorOf(v, { zeta: 1, title: "t", titel: "t", pagse: 2, "+1": true, "16x16": "i", "user-name": "u" });
  assert.is(six?.body.property, "zeta", "the first unknown key in the body");
  assert.is(six?.body.dev, '"+1", "16x16", "pagse", "titel", "user-name" and "zeta" are not properties of this resource; remove them or correct their spelling.');
  // In a nested object: the dotted paths of that object's unknown keys.
  const nested = errorOf(v, { title: "t", address: { city: "Oslo", zip: "0150", street: "Karl Johan" } });
  assert.is(nested?.body.property, "address.zip");
  assert.is(nested?.body.dev, '"address.street" and "address.zip" are not properties of this resource; remove them or correct their spelling.');
  // The input itself is left as it was (the search validates a copy).
  const body = { title: "t", a: 1, b: 2 };
  errorOf(v, body);
  assert.equal(body, { title: "t", a: 1, b: 2 });
});

test("a body of very many unknown properties names MAX_UNKNOWN_NAMED of them and says there are more", () => {
  const v = validatorsOf({ title: { type: "string" } });
  const body = Object.fromEntries(Array.from({ length: 500 }, (_, i) => [`k${String(i).padStart(3, "0")}`, i]));
  const e = errorOf(v, body);
  assert.is(e?.body.property, "k000");
  const named = e?.body.dev.match(/"k\d{3}"/g) ?? [];
  assert.is(named.length, MAX_UNKNOWN_NAMED);
  assert.equal(named, Array.from({ length: MAX_UNKNOWN_NAMED }, (_, i) => `"k${String(i).padStart(3, "0")}"`));
  assert.match(e?.body.dev ?? "", /"k019" and more are not properties of this resource/);
  // Exactly MAX_UNKNOWN_NAMED unknown ones: all named, and no "more".
  const exact = errorOf(v, Object.fromEntries(Array.from({ length: MAX_UNKNOWN_NAMED }, (_, i) => [`q${String(i).padStart(2, "0")}`, i])));
  assert.is(exact?.body.dev.match(/"q\d\d"/g)?.length, MAX_UNKNOWN_NAMED);
  assert.not.match(exact?.body.dev ?? "", /more/);
});

test("an unknown property beside another failure: the unknown ones are named as long as the validator reports them first", () => {
  const v = validatorsOf({ title: { type: "string" }, pages: { type: "integer" } }, ["title"]);
  // A missing required property is reported before unknown ones, as before.
  assert.is(errorOf(v, { colour: 1 })?.body.property, "title");
  // Unknown keys first, then a wrong value: the answer is about the unknown keys (both of them).
  const e = errorOf(v, { title: "t", pages: "x", colour: 1, size: 2 });
  assert.is(e?.body.property, "colour");
  assert.match(e?.body.dev ?? "", /^"colour" and "size" are not properties/);
});

test("a union's error is the one of the branch the body meant: not the first branch's tag, the deepest; a tag no branch has lists every branch's", () => {
  const card = { type: "object", additionalProperties: false, required: ["type", "number"], properties: { type: { const: "card" }, number: { type: "string", minLength: 12 } } };
  const bank = { type: "object", additionalProperties: false, required: ["type", "iban"], properties: { type: { const: "bank" }, iban: { type: "string", pattern: "^[A-Z]{2}[0-9]+$" } } };
  for (const union of ["oneOf", "anyOf"]) {
    const v = validatorsOf({ method: { [union]: [card, bank] } });
    assert.is(errorOf(v, { method: { type: "bank", iban: "GB12" } }), undefined);
    const wrongIban = errorOf(v, { method: { type: "bank", iban: "nope" } });
    assert.is(wrongIban?.body.property, "method.iban", union);
    const shortNumber = errorOf(v, { method: { type: "card", number: "1" } });
    assert.is(shortNumber?.body.property, "method.number", union);
    // The tag chooses the branch even where every branch fails at the same place (both lack a property).
    const bankOnlyTag = errorOf(v, { method: { type: "bank" } });
    assert.is(bankOnlyTag?.body.property, "method.iban", union);
    const noTag = errorOf(v, { method: { type: "cash" } });
    assert.is(noTag?.body.property, "method.type", union);
    assert.match(noTag!.body.dev, 'method.type must be one of "card", "bank"', union);
  }
  // The branches may be shared schemas (the service's $defs), as real APIs write them.
  const spec = {
    resources: [{ collection: "things", fields: [], bodySchema: { type: "object", additionalProperties: false, properties: { method: { oneOf: [{ $ref: "resourcery:shared#/$defs/Card" }, { $ref: "resourcery:shared#/$defs/Bank" }] } } } }],
    actions: [],
    schemas: { Card: card, Bank: bank },
  } as unknown as ServiceSpec;
  const v = compileValidators(spec, catalog);
  let e: ApiError | undefined;
  try {
    v.body("things", { method: { type: "bank", iban: "nope" } }, new Set());
  } catch (x) {
    e = x as ApiError;
  }
  assert.is(e?.body.property, "method.iban");
});

test.run();
