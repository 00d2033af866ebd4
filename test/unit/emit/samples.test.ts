/**
 * Samples (src/emit/samples.ts, src/emit/contract-samples.ts): the quick sample check answers exactly as
 * ajv does: for every keyword it knows, on valid and invalid values, and on random schemas; a keyword it
 * does not know, or a keyword value ajv's meta-schema rejects, leaves the answer to ajv. Samples come from
 * the schema's own valid `examples` and `default` first (whole bodies at a resource's root, then each
 * property's), an invalid example never; a schema no sample satisfies says why.
 */
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { test } from "uvu";
import * as assert from "uvu/assert";
import { actionSamples, exampleBody, resourceSamples } from "../../../src/emit/contract-samples.js";
import { ajvIsValid, firstSample, givenValues, isValidSample, quickCheckOf, sampleOf, useSharedSchemas } from "../../../src/emit/samples.js";
import { bodySchemaOf } from "../../../src/emit/spec.js";
import type { JsonSchema, Model, SharedSchema } from "../../../src/model/types.js";
import { checkProject } from "../../../src/pipeline.js";

type Case = readonly [schema: JsonSchema, values: readonly unknown[]];

/** Values of every JSON type and a few edges, tried against every schema below besides its own values. */
const COMMON: readonly unknown[] = [
  null, true, false, 0, -0, 1, 1.5, -3, 1e21, 2 ** 53, "", "a", "abc", "😀😀", [], [1], ["a", "a"], {}, { a: 1 }, { __proto__: null, b: "x" },
  Object.create({ b: "inherited" }),
];

const CASES: readonly Case[] = [
  [{}, []],
  [true, []],
  [false, []],
  [{ type: "string" }, ["x", 1]],
  [{ type: "integer" }, [1, 1.0, 1.5, "1", NaN, Infinity, -Infinity]],
  [{ type: "number" }, [1, 1.5, NaN, Infinity, "1"]],
  [{ type: "boolean" }, [true, 0]],
  [{ type: "null" }, [null, undefined, 0]],
  [{ type: "object" }, [{}, [], null]],
  [{ type: "array" }, [[], {}]],
  [{ type: ["string", "null"] }, ["x", null, 1]],
  [{ type: ["integer", "number"] }, [1, 1.5]],
  [{ type: ["array", "object"] }, [[], {}, null]],
  [{ type: ["array", "object", "null"] }, [[], {}, null, "x"]],
  [{ enum: ["a", "b", 3, null] }, ["a", "c", 3, "3", null]],
  [{ enum: [{ a: [1, 2] }, [1, { b: 2 }]] }, [{ a: [1, 2] }, { a: [2, 1] }, [1, { b: 2 }], [1, { b: 3 }]]],
  [{ enum: Array.from({ length: 250 }, (_, i) => i) }, [0, 249, 250, "1"]],
  [{ enum: [NaN, "a"] }, [NaN, "a"]],
  [{ enum: [...Array.from({ length: 250 }, (_, i) => i), NaN] }, [NaN]],
  [{ const: "x" }, ["x", "y"]],
  [{ const: { a: [1, { b: null }] } }, [{ a: [1, { b: null }] }, { a: [1, { b: 0 }] }]],
  [{ const: null }, [null, 0]],
  [{ minimum: 2 }, [1, 2, 3, NaN, "1"]],
  [{ maximum: 2 }, [1, 2, 3, NaN]],
  [{ exclusiveMinimum: 2 }, [2, 2.0001, NaN]],
  [{ exclusiveMaximum: 2 }, [2, 1.999, NaN]],
  [{ type: "integer", minimum: 0, maximum: 10 }, [0, 10, 11, -1, 5.5]],
  [{ multipleOf: 3 }, [9, 10, 0, -6, 1e21, "9"]],
  [{ multipleOf: 0.1 }, [0.3, 0.7, 1, 0.35]],
  [{ multipleOf: 0.01 }, [19.99, 1.23, 0.005]],
  [{ minLength: 2 }, ["a", "ab", "😀", "😀😀", 1]],
  [{ maxLength: 1 }, ["a", "ab", "😀", "é", "\u0065\u0301"]],
  [{ minLength: 0, maxLength: 0 }, ["", "a"]],
  [{ pattern: "^[A-Z]{3}-[0-9]{4}$" }, ["ABC-1234", "abc-1234", "ABC-123", 5]],
  [{ pattern: "\\p{Lu}" }, ["A", "a"]],
  [{ pattern: "^.$" }, ["😀", "ab"]],
  [{ pattern: "a" }, ["cat", "dog"]],
  [{ format: "email" }, ["someone@example.com", "not an email", 3]],
  [{ format: "uri" }, ["https://example.com/page", "example.com", "/relative"]],
  [{ format: "uri-reference" }, ["https://example.com/page", "/relative", "a b"]],
  [{ format: "hostname" }, ["example.com", "-bad-.com"]],
  [{ format: "ipv4" }, ["192.0.2.1", "256.0.0.1"]],
  [{ format: "ipv6" }, ["2001:db8::1", "2001:db8:::1"]],
  [{ format: "date" }, ["2024-01-15", "2024-02-30", "2024-1-5"]],
  [{ format: "date-time" }, ["2024-01-15T10:30:00Z", "2024-01-15 10:30:00", "2024-01-15T10:30:00"]],
  [{ format: "time" }, ["10:30:00Z", "25:30:00Z", "10:30:00"]],
  [{ format: "duration" }, ["P1D", "1D", "PT"]],
  [{ format: "uuid" }, ["6f1c2a8e-3b7d-4c5e-9a1f-2d3e4f5a6b7c", "6f1c2a8e"]],
  [{ format: "regex" }, ["^a+$", "(", "a\\Z"]],
  [{ format: "json-pointer" }, ["/a/b", "a/b", ""]],
  [{ format: "int32" }, [1, 2 ** 31, 1.5, "x"]],
  [{ format: "double" }, [1.5, "x"]],
  [{ format: "byte" }, ["aGVsbG8=", "not base64!"]],
  [{ format: "password" }, ["anything"]],
  [{ type: "string", format: "date", minLength: 10 }, ["2024-01-15", "2024-01-1"]],
  [{ items: { type: "integer" } }, [[1, 2], [1, "2"], "x", [1, , 2]]], // a hole is checked as undefined
  [{ items: true }, [[1]]],
  [{ items: false }, [[], [1]]],
  [{ minItems: 1 }, [[], [1]]],
  [{ maxItems: 1 }, [[1], [1, 2]]],
  [{ type: "array", items: { type: "string" }, maxItems: 10 }, [["a"], [1], Array(11).fill("a")]],
  [{ uniqueItems: true }, [[1, 2], [1, 1], [{ a: 1 }, { a: 1 }], [{ a: 1 }, { a: 2 }], [1, "1"], [[1], [1]]]],
  [{ uniqueItems: false }, [[1, 1]]],
  [{ uniqueItems: true, items: { type: "string" } }, [["a", "a"], ["a", "b"], ["__proto__", "__proto__"], ["constructor", "constructor"]]],
  [{ uniqueItems: true, items: { type: ["string", "number"] } }, [[1, "1"], [1, 1], ["1", "1"], [true, true]]],
  [{ uniqueItems: true, items: { type: "integer" } }, [[1, 1.0], [1, 2], [1, "1", "1"]]],
  [{ uniqueItems: true, items: { type: ["object", "string"] } }, [[{ a: 1 }, { a: 1 }], ["a", "a"]]],
  [{ uniqueItems: true, items: {} }, [[1, 1]]],
  [{ properties: { a: { type: "string" }, b: { type: "integer" } } }, [{ a: "x" }, { a: 1 }, { b: 1.5 }, { a: undefined }, { c: 1 }, []]],
  [{ properties: { constructor: { type: "string" } } }, [{}, { constructor: "x" }]],
  [{ properties: { toString: true, a: false } }, [{}, { a: 1 }]],
  [{ required: ["a", "b"] }, [{ a: 1, b: 2 }, { a: 1 }, { a: 1, b: undefined }, [], "x"]],
  [{ required: ["constructor"] }, [{}]],
  [{ required: [] }, [{}]],
  [{ additionalProperties: false }, [{}, { a: 1 }]],
  [{ properties: { a: true }, additionalProperties: false }, [{ a: 1 }, { a: 1, b: 2 }, { constructor: 1 }]],
  [{ properties: { a: true }, additionalProperties: { type: "integer" } }, [{ a: "x", b: 2 }, { b: "x" }]],
  [
    { properties: Object.fromEntries(Array.from({ length: 10 }, (_, i) => [`p${i}`, { type: "integer" }])), additionalProperties: false },
    [{ p0: 1, p9: 2 }, { p10: 1 }, { p1: "x" }],
  ],
  [
    {
      type: "object",
      additionalProperties: false,
      required: ["name", "code"],
      properties: {
        name: { type: "string", minLength: 1, maxLength: 100, description: "Name." },
        code: { type: "string", pattern: "^[A-Z]{3}-[0-9]{4}$" },
        quantity: { type: "integer", minimum: 0 },
        tags: { type: "array", items: { type: "string" }, maxItems: 10, uniqueItems: true },
        nested: { type: "object", properties: { when: { type: "string", format: "date-time" } }, required: ["when"] },
        status: { type: ["string", "null"], enum: ["draft", "active", null] },
      },
    },
    [
      { name: "n", code: "ABC-1234" },
      { name: "", code: "ABC-1234" },
      { name: "n" },
      { name: "n", code: "ABC-1234", extra: 1 },
      { name: "n", code: "ABC-1234", tags: ["a", "a"] },
      { name: "n", code: "ABC-1234", nested: {} },
      { name: "n", code: "ABC-1234", nested: { when: "2024-01-15T10:30:00Z" }, status: null },
      { name: "n", code: "ABC-1234", status: "gone" },
    ],
  ],
  [{ allOf: [{ type: "string" }, { minLength: 2 }] }, ["ab", "a", 1]],
  [{ anyOf: [{ type: "string" }, { type: "null" }] }, ["a", null, 1]],
  [{ anyOf: [{ type: "string", maxLength: 3 }, { $ref: "#/$defs/Address" }] }, ["abc", "abcd", { city: "x" }, { city: 1 }]],
  [{ oneOf: [{ type: "integer" }, { type: "number" }] }, [1, 1.5, "x"]],
  [{ oneOf: [{ minimum: 2 }, { maximum: 5 }] }, [1, 3, 6, "x"]],
  [{ not: { type: "string" } }, ["a", 1]],
  [{ properties: { a: { oneOf: [{ type: "string" }] } } }, [{ a: "x" }, { a: 1 }]],
  [{ additionalProperties: { not: {} } }, [{}, { a: 1 }]],
  [{ $ref: "#/$defs/Address" }, [{ city: "Oslo" }, { city: 1 }, { city: "Oslo", zip: "1" }, {}]],
  [{ $ref: "#/$defs/Address", required: ["city"] }, [{ city: "Oslo" }, {}]],
  [{ $ref: "#/$defs/Alias" }, [{ city: "Oslo" }, { city: 1 }]],
  [{ $ref: "#/$defs/Tree" }, [{ name: "a" }, { name: "a", children: [{ name: "b", children: [] }] }, { name: "a", children: [{ name: 1 }] }]],
  [{ $ref: "#/$defs/Ping" }, [{ pong: { ping: {} } }, { pong: { ping: { pong: 1 } } }]],
  [{ type: "object", properties: { home: { $ref: "#/$defs/Address" }, tags: { type: "array", items: { $ref: "#/$defs/Tag" } } } }, [{ home: { city: "x" }, tags: ["a"] }, { tags: ["ab"] }, { tags: [1] }]],
  [
    { title: "T", description: "D", examples: [1], default: 2, readOnly: true, writeOnly: false, deprecated: true, $comment: "c", "x-anything": { a: [1] }, type: "integer" },
    [1, "x"],
  ],
];

/** Schemas left to ajv: other keywords, values ajv's meta-schema rejects, and what ajv would throw on. */
const UNKNOWN: readonly JsonSchema[] = [
  { oneOf: [] },
  { anyOf: {} },
  { allOf: [{ type: "string" }, 1] },
  { not: [] },
  { allOf: [{ if: { type: "string" } }] },
  { $ref: "#/$defs/Missing" },
  { $ref: "#/$defs/WithIf" },
  { $ref: "#/$defs/ReachesIf" },
  { $ref: "#/$defs/LoopA" },
  { $ref: "#/$defs/Odd~1Name" },
  { if: { type: "string" }, then: { minLength: 1 } },
  { $ref: "#/definitions/a", definitions: { a: {} } },
  { $id: "https://example.com/a" },
  { $schema: "https://json-schema.org/draft/2020-12/schema" },
  { patternProperties: { "^a": {} } },
  { propertyNames: { maxLength: 3 } },
  { contains: { type: "string" } },
  { prefixItems: [{ type: "string" }] },
  { items: [{ type: "string" }] },
  { additionalItems: false },
  { dependentRequired: { a: ["b"] } },
  { unevaluatedProperties: false },
  { nullable: true, type: "string" },
  { minProperties: 1 },
  { format: "toString" },
  { formatMinimum: "2024-01-01", format: "date" },
  { items: { $ref: "#" } },
  { type: "any" },
  { type: [] },
  { type: ["string", "string"] },
  { enum: [] },
  { enum: [1, 1] },
  { enum: "a" },
  { minimum: "1" },
  { exclusiveMinimum: true },
  { multipleOf: 0 },
  { multipleOf: -1 },
  { minLength: -1 },
  { maxLength: 1.5 },
  { pattern: "(" },
  { pattern: "\\Z" },
  { pattern: "\\-" },
  { format: 1 },
  { minItems: "1" },
  { uniqueItems: "yes" },
  { required: "a" },
  { required: ["a", "a"] },
  { required: [1] },
  { properties: [] },
  { properties: { a: 1 } },
  { properties: JSON.parse('{"__proto__": {"type": "string"}}') as JsonSchema },
  { additionalProperties: 1 },
  { title: 1 },
  { description: null },
  { examples: "x" },
  { readOnly: "yes" },
  { "x-thing": { $id: "https://example.com/x" } },
  { "x-thing": { nested: [{ $anchor: "a" }] } },
];

/** Shared schemas the cases above refer to, as a model gives them. */
const SHARED: readonly SharedSchema[] = Object.entries({
  Address: { type: "object", properties: { city: { type: "string" }, zip: { type: "string", pattern: "^[0-9]{4}$" } }, additionalProperties: false },
  Alias: { $ref: "#/$defs/Address", description: "Another name." },
  Tag: { type: "string", maxLength: 1 },
  Tree: { type: "object", required: ["name"], properties: { name: { type: "string" }, children: { type: "array", items: { $ref: "#/$defs/Tree" } } } },
  Ping: { type: "object", properties: { pong: { $ref: "#/$defs/Pong" } } },
  Pong: { type: "object", properties: { ping: { $ref: "#/$defs/Ping" } }, additionalProperties: false },
  WithIf: { if: { type: "string" }, then: { minLength: 2 } },
  ReachesIf: { type: "object", properties: { a: { $ref: "#/$defs/Back" }, b: { $ref: "#/$defs/WithIf" } } },
  Back: { type: "object", properties: { again: { $ref: "#/$defs/ReachesIf" } } },
  LoopA: { $ref: "#/$defs/LoopB" },
  LoopB: { $ref: "#/$defs/LoopA", title: "Loop" },
  "Odd~1Name": { type: "string" },
}).map(([name, schema]): SharedSchema => ({ name, schema, origin: { file: "shared.json", pointer: `/${name}` } }));

function agree(schema: JsonSchema, value: unknown, where: string): void {
  useSharedSchemas(SHARED);
  const quick = quickCheckOf(schema);
  assert.ok(quick, `the quick check knows ${where}`);
  const expected = ajvIsValid(schema, value);
  assert.is(quick(value), expected, `${where} on ${show(value)}: ajv says ${expected}`);
  assert.is(isValidSample(schema, value), expected);
}

function show(value: unknown): string {
  return value === undefined ? "undefined" : Number.isNaN(value) ? "NaN" : JSON.stringify(value) ?? String(value);
}

test("every known keyword answers as ajv on valid and invalid values", () => {
  let valid = 0;
  let invalid = 0;
  for (const [schema, values] of CASES) {
    for (const value of [...values, ...COMMON]) {
      agree(schema, value, JSON.stringify(schema));
      if (ajvIsValid(schema, value)) valid++;
      else invalid++;
    }
  }
  assert.ok(valid > 200 && invalid > 200, `both answers are exercised (${valid} valid, ${invalid} invalid)`);
});

test("other keywords and values ajv's meta-schema rejects are left to ajv", () => {
  const warn = console.warn;
  console.warn = () => {}; // ajv's "unknown format ... ignored"
  useSharedSchemas(SHARED);
  try {
    for (const schema of UNKNOWN) {
      assert.is(quickCheckOf(schema), undefined, JSON.stringify(schema));
      for (const value of COMMON) assert.is(isValidSample(schema, value), ajvIsValid(schema, value));
    }
  } finally {
    console.warn = warn;
  }
});

test("a format ajv-formats does not define constrains nothing, as in ajv (which warns)", () => {
  const warn = console.warn;
  console.warn = () => {};
  try {
    for (const schema of [{ type: "integer", format: "unix-time" }, { format: "decimal" }, { format: "idn-email" }, { anyOf: [{ format: "unix-time" }, { $ref: "#/$defs/Tag" }] }]) {
      for (const value of [1, "1.5", "ab", ...COMMON]) agree(schema, value, JSON.stringify(schema));
    }
  } finally {
    console.warn = warn;
  }
});

test("random schemas of the known keywords answer as ajv on random values", () => {
  let state = 42;
  const rand = (n: number) => (state = (state * 48271) % 2147483647) % n;
  const pick = <T>(xs: readonly T[]): T => xs[rand(xs.length)]!;
  const TYPES = ["string", "integer", "number", "boolean", "null", "object", "array"];
  const FORMATS = ["email", "date", "date-time", "uuid", "ipv4", "int32", "uri"];
  const STRINGS = ["", "a", "ab", "ABC", "😀", "someone@example.com", "2024-01-15", "2024-01-15T10:30:00Z", "192.0.2.1", "6f1c2a8e-3b7d-4c5e-9a1f-2d3e4f5a6b7c", "https://e.com/"];

  const randomValue = (depth: number): unknown => {
    switch (rand(depth > 2 ? 4 : 6)) {
      case 0:
        return pick([null, true, false]);
      case 1:
        return pick([0, 1, 2, 3, 5, 7.5, -1, 100, 2 ** 31, 0.3]);
      case 2:
      case 3:
        return pick(STRINGS);
      case 4:
        return Array.from({ length: rand(4) }, () => randomValue(depth + 1));
      default:
        return Object.fromEntries(Array.from({ length: rand(4) }, () => [pick(["a", "b", "c", "d"]), randomValue(depth + 1)]));
    }
  };
  const randomSchema = (depth: number): JsonSchema => {
    if (depth > 0 && rand(8) === 0) return pick([true, false]);
    const s: Record<string, unknown> = {};
    const keywords = rand(4) + 1;
    for (let k = 0; k < keywords; k++) {
      switch (rand(depth > 2 ? 12 : 21)) {
        case 0:
          s.type = rand(3) === 0 ? [pick(TYPES), "null"].filter((t, i, a) => a.indexOf(t) === i) : pick(TYPES);
          break;
        case 1:
          s.enum = [...new Set(Array.from({ length: rand(3) + 1 }, () => randomValue(2)).map((v) => JSON.stringify(v)))].map((v) => JSON.parse(v));
          break;
        case 2:
          s.const = randomValue(1);
          break;
        case 3:
          s[pick(["minimum", "maximum", "exclusiveMinimum", "exclusiveMaximum"])] = pick([0, 1, 2.5, 100]);
          break;
        case 4:
          s.multipleOf = pick([1, 2, 0.5, 0.1]);
          break;
        case 5:
          s[pick(["minLength", "maxLength"])] = rand(4);
          break;
        case 6:
          s.pattern = pick(["^a", "b$", "^[A-Z]+$", "\\d", "^.$"]);
          break;
        case 7:
          s.format = pick(FORMATS);
          break;
        case 8:
          s[pick(["minItems", "maxItems"])] = rand(3);
          break;
        case 9:
          s.uniqueItems = rand(3) !== 0;
          break;
        case 10:
          s.required = [...new Set(Array.from({ length: rand(3) }, () => pick(["a", "b", "c"])))];
          break;
        case 11:
          s[pick(["description", "title", "$comment"])] = "text";
          break;
        case 12:
        case 13:
          s.properties = Object.fromEntries(Array.from({ length: rand(3) + 1 }, () => [pick(["a", "b", "c"]), randomSchema(depth + 1)]));
          break;
        case 14:
          s.additionalProperties = rand(2) ? pick([true, false]) : randomSchema(depth + 1);
          break;
        case 15:
        case 16:
          s[pick(["allOf", "anyOf", "oneOf"])] = Array.from({ length: rand(3) + 1 }, () => randomSchema(depth + 1));
          break;
        case 17:
          s.not = randomSchema(depth + 1);
          break;
        case 18:
        case 19:
          s.$ref = `#/$defs/${pick(["Address", "Alias", "Tag", "Tree", "Ping"])}`;
          break;
        default:
          s.items = randomSchema(depth + 1);
      }
    }
    return s;
  };

  let pairs = 0;
  for (let i = 0; i < 400; i++) {
    const schema = randomSchema(0);
    for (let j = 0; j < 12; j++) {
      agree(schema, randomValue(0), `random schema ${JSON.stringify(schema)}`);
      pairs++;
    }
    // Values built for the schema are mostly valid ones: the other half of the answers.
    for (let seed = 0; seed < 3; seed++) {
      const sample = sampleOf(schema, seed);
      if (sample !== undefined) agree(schema, sample, `random schema ${JSON.stringify(schema)}`);
    }
  }
  assert.ok(pairs >= 4800);
});

test("a sample is tested against a catastrophic pattern in linear time (RE2, as the service tests it)", () => {
  // With a backtracking RegExp, 27 a's and a "!" against ^(a+)+$ take over ten seconds; RE2 answers at once.
  const input = `${"a".repeat(27)}!`;
  let started = Date.now();
  assert.is(quickCheckOf({ pattern: "^(a+)+$" })!(input), false);
  assert.ok(Date.now() - started < 3000, `the quick check took ${Date.now() - started} ms`);
  // allOf is left to ajv: its sample comes from the allOf's pattern and fails the outer one.
  started = Date.now();
  assert.is(sampleOf({ type: "string", pattern: "^(a+)+$", allOf: [{ pattern: "^a{27}!$" }] }), undefined);
  assert.is(ajvIsValid({ pattern: "^(a+)+$", allOf: [{}] }, input), false);
  assert.ok(Date.now() - started < 3000, `ajv took ${Date.now() - started} ms`);
});

test("a pattern RE2 rejects gets no sample, and ajv's answer is as the service's (the schema accepts nothing)", () => {
  assert.is(sampleOf({ type: "string", pattern: "(a)\\1" }), undefined);
  assert.is(ajvIsValid({ type: "string", pattern: "(?=a)a", allOf: [{}] }, "a"), false);
});

test("a schema's own valid examples, then its default, come first, seed by seed; generated values follow", () => {
  const name = { type: "string", minLength: 2, examples: ["Ursula", "x", "Octavia"], default: "Ann" };
  assert.equal(givenValues(name), ["Ursula", "Octavia", "Ann"], "the example shorter than minLength is left out");
  assert.equal([0, 1, 2, 3].map((seed) => sampleOf(name, seed)), ["Ursula", "Octavia", "Ann", "sample-3"]);
  assert.is(sampleOf({ type: "integer", minimum: 1, default: 7 }), 7);
  assert.is(sampleOf({ type: "integer", minimum: 1, default: 0 }), 1, "an invalid default is not used either");
  assert.is(sampleOf({ enum: ["a", "b"], examples: ["b"] }), "b", "examples come before the enum's first value");
  // Inside an object, each property's examples; the object's own examples before them.
  const object = { type: "object", required: ["code"], properties: { code: { type: "string", pattern: "^[A-Z]{3}$", examples: ["eur", "EUR"] } } };
  assert.equal(sampleOf(object), { code: "EUR" });
  assert.equal(sampleOf({ ...object, examples: [{ code: "USD" }, { code: 1 }] }), { code: "USD" });
  assert.equal(sampleOf({ ...object, examples: [{ code: 1 }] }), { code: "EUR" }, "an invalid whole example gives way to the properties'");
});

test("firstSample: an example another level rejects gives way to the next seed's value", () => {
  // Valid for the property, but the object's "not" rejects it: seed 0 fails as a whole, seed 1 does not.
  const schema = { type: "object", required: ["a"], properties: { a: { type: "string", examples: ["taken"] } }, not: { properties: { a: { const: "taken" } } } };
  assert.is(sampleOf(schema, 0), undefined);
  assert.equal(firstSample(schema), { a: "sample-1" });
  assert.is(firstSample({ type: "string", not: { pattern: "^sample" } }), undefined);
  assert.is(firstSample({ type: "string", not: { pattern: "^sample" }, examples: ["EUR"] }), "EUR", "an example is the way out");
});

/** The model of a definitions project written to a temporary folder: service.json and resources by file name. */
function modelOf(service: Record<string, unknown>, resources: Record<string, unknown>): Model {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), "resourcery-samples-"));
  try {
    fs.mkdirSync(path.join(dir, "resources"));
    const base = { name: "samples-service", vendor: "acme", version: 1, baseUrl: "http://localhost:3000/v1", errorDocsUrl: "http://localhost:3000/docs/errors", resources: ["resources/*.json"] };
    fs.writeFileSync(path.join(dir, "service.json"), JSON.stringify({ ...base, ...service }));
    for (const [file, schema] of Object.entries(resources)) fs.writeFileSync(path.join(dir, "resources", file), JSON.stringify(schema));
    const { model, diagnostics } = checkProject(dir);
    assert.ok(model, JSON.stringify(diagnostics));
    return model;
  } finally {
    fs.rmSync(dir, { recursive: true, force: true });
  }
}

const author = { title: "Author", type: "object", "x-collection": "authors", required: ["name"], additionalProperties: false, properties: { name: { type: "string" } } };

test("resource samples: whole-body examples first (without what a body cannot carry), then the properties' examples; every body valid", () => {
  const book = {
    title: "Book",
    type: "object",
    "x-collection": "books",
    "x-unique": ["isbn"],
    required: ["title", "author"],
    additionalProperties: false,
    examples: [
      // The representation's shape: id, meta and the link are dropped, the rest is a body.
      { id: "b1", meta: { href: "http://localhost:3000/v1/books/b1" }, title: "Dune", isbn: "9780441013593", author: { meta: { href: "http://localhost:3000/v1/authors/a1" } } },
      { title: "", isbn: "9780441013594" }, // minLength: left out
      { title: "Dune Messiah", isbn: "9780441013593" }, // repeats the first one's unique isbn: left out
      { title: "Children of Dune", isbn: "9780441013600", colour: "red" }, // a property the body does not have: left out
      "not an object",
    ],
    properties: {
      title: { type: "string", minLength: 1, examples: ["Kindred"] },
      isbn: { type: "string", pattern: "^\\d{13}$", examples: ["9780807083697", "12"] },
      pages: { type: "integer", minimum: 1, default: 100 },
      author: { $ref: "author.json" },
    },
  };
  const model = modelOf({}, { "author.json": author, "book.json": book });
  const books = model.resources.find((r) => r.collection === "books")!;
  const { bodies, invalid, noBody } = resourceSamples(books);
  assert.equal(bodies[0], { title: "Dune", isbn: "9780441013593" });
  assert.equal(bodies[1], { title: "Kindred", isbn: "9780807083697", pages: 100 }, "then the properties' examples and default");
  assert.ok(bodies.length >= 10, `generated bodies follow (${bodies.length})`);
  assert.is(exampleBody(books), bodies[0], "the docs' example is the first body");
  // The service's body schema, but for the required link, which the tests add to each body.
  const schema = { ...bodySchemaOf(books), required: ["title"] };
  for (const body of bodies) {
    assert.ok(ajvIsValid(schema, body), JSON.stringify(body));
    assert.not.ok("author" in (body as object), "links are left to the tests");
  }
  const isbns = bodies.map((b) => (b as { isbn?: string }).isbn);
  assert.is(new Set(isbns).size, isbns.length, "no two bodies share a unique value");
  assert.equal(invalid, { property: "isbn", value: 12345 });
  assert.is(noBody, undefined);
});

test("resource samples: with no valid example and a schema the generator cannot satisfy, no body and the reason", () => {
  const gadget = (code: Record<string, unknown>, examples?: unknown[]) => ({
    title: "Gadget",
    type: "object",
    "x-collection": "gadgets",
    required: ["code"],
    additionalProperties: false,
    ...(examples ? { examples } : {}),
    properties: { code: { type: "string", not: { pattern: "^sample" }, ...code } },
  });
  const none = resourceSamples(modelOf({}, { "gadget.json": gadget({ examples: ["sample-9"] }, [{ code: "sample" }]) }).resources[0]!);
  assert.equal(none.bodies, []);
  assert.match(none.noBody!, 'no value satisfies the schema of the required property "code" (give it a valid "examples" entry, or the resource valid whole-body "examples" at its root)');
  const byProperty = resourceSamples(modelOf({}, { "gadget.json": gadget({ examples: ["sample", "G-1"] }) }).resources[0]!);
  assert.equal(byProperty.bodies[0], { code: "G-1" });
  const byBody = resourceSamples(modelOf({}, { "gadget.json": gadget({}, [{ code: "G-2" }]) }).resources[0]!);
  assert.equal(byBody.bodies, [{ code: "G-2" }]);
  // A wrongly typed value only where the schema really rejects it: a string-or-number property takes 12345.
  const loose = { ...author, properties: { name: { type: ["string", "number"] } } };
  assert.is(resourceSamples(modelOf({}, { "author.json": loose }).resources[0]!).invalid, undefined);
});

test("action samples: parameters and response from examples first, every one valid; else the reason", () => {
  const model = modelOf(
    {
      actions: {
        convert: {
          method: "GET",
          query: {
            type: "object",
            required: ["from", "to"],
            properties: { from: { type: "string", pattern: "^[A-Z]{3}$", examples: ["eur", "EUR"] }, to: { type: "string", pattern: "^[A-Z]{3}$", examples: ["USD"] }, amount: { type: "number", default: 10 } },
          },
          response: { type: "object", required: ["rate"], properties: { rate: { type: "number", exclusiveMinimum: 0 } }, examples: [{ rate: -1 }, { rate: 1.08 }] },
        },
        fetch: {
          method: "GET",
          query: { type: "object", examples: [{ id: "x" }, { id: "A-1" }], required: ["id"], properties: { id: { type: "string", pattern: "^[A-Z]-\\d$" } } },
          response: { type: "string", format: "date" },
        },
        forbid: {
          method: "GET",
          query: { type: "object", required: ["code"], properties: { code: { type: "string", not: { pattern: "^sample" } } } },
          response: { type: "object", required: ["value"], properties: { value: { type: "string", not: { pattern: "^sample" } } } },
        },
      },
    },
    { "author.json": author },
  );
  const samples = Object.fromEntries(model.actions.map((a) => [a.name, actionSamples(a)]));
  assert.equal(samples.convert, { params: { from: "EUR", to: "USD", amount: 10 }, response: { value: { rate: 1.08 } } });
  assert.equal(samples.fetch, { params: { id: "A-1" }, response: { value: "2024-01-15" } });
  for (const a of model.actions) {
    const s = samples[a.name]!;
    if (s.params !== undefined) assert.ok(ajvIsValid(a.query, s.params), `${a.name}: params valid`);
    if (s.response !== undefined) assert.ok(ajvIsValid(a.response, s.response.value), `${a.name}: response valid`);
  }
  assert.equal(samples.forbid, {
    noParams: 'no value satisfies the schema of the required parameter "code" (give it a valid "examples" entry)',
    noResponse: 'no value satisfies the schema of the required property "value" (give it a valid "examples" entry)',
  });
});

test.run();
