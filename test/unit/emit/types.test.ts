/**
 * The types printer (src/emit/ts-types.ts) writes exactly what json-schema-to-typescript compiles, on
 * the examples, the fixture projects, the synthetic bench projects, hand-picked rare paths and
 * hundreds of random schemas within its subset; any other bundle is left to json-schema-to-typescript.
 */
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { test } from "uvu";
import * as assert from "uvu/assert";
import { writeResourcery } from "../../../bench/synth.js";
import { compileTypes, emitTypes, typesSchema } from "../../../src/emit/types.js";
import { printTypes, printTypesOf } from "../../../src/emit/ts-types.js";
import type { Model } from "../../../src/model/types.js";
import { checkProject } from "../../../src/pipeline.js";
import { repoRoot } from "../../helpers/cli.js";

type Schema = Record<string, unknown>;

/** Asserts the printer's output is json-schema-to-typescript's, showing the first line that differs. */
async function expectSame(bundle: Schema, label: string): Promise<void> {
  const printed = printTypes(bundle, "Types");
  assert.ok(printed !== undefined, `${label}: the printer declined a bundle within its subset`);
  const compiled = await compileTypes(bundle);
  if (printed === compiled) return;
  const a = printed.split("\n");
  const b = compiled.split("\n");
  const found = a.findIndex((line, n) => line !== b[n]);
  const i = found < 0 ? a.length : found;
  assert.fixture(a.slice(Math.max(0, i - 3), i + 3).join("\n"), b.slice(Math.max(0, i - 3), i + 3).join("\n"), `${label}: differs at line ${i + 1}\n${JSON.stringify(bundle)}`);
}

function modelOf(dir: string): Model {
  const { model } = checkProject(dir);
  assert.ok(model, dir);
  return model;
}

const bundleOf = (defs: Schema): Schema => ({ type: "object", additionalProperties: false, properties: {}, $defs: defs });

for (const example of fs.readdirSync(path.join(repoRoot, "examples")).sort()) {
  test(`${example}: printed as json-schema-to-typescript compiles it`, async () => {
    const model = modelOf(path.join(repoRoot, "examples", example));
    await expectSame(typesSchema(model), example);
    const [clientTypes] = await emitTypes(model);
    for (const shared of model.schemas) assert.match(clientTypes!.contents, new RegExp(`^export (type|interface) ${shared.name}\\b`, "m"));
  });
}

test("synthetic bench projects: printed as json-schema-to-typescript compiles them", async () => {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), "resourcery-types-"));
  try {
    for (const n of [10, 100, 500]) {
      writeResourcery(n, path.join(dir, `p${n}`));
      await expectSame(typesSchema(modelOf(path.join(dir, `p${n}`))), `synthetic ${n}`);
    }
  } finally {
    fs.rmSync(dir, { recursive: true, force: true });
  }
});

/** Rare paths, each as a definition and as a property. */
const CASES: readonly unknown[] = [
  // An index signature widened by the other properties' types
  {
    type: "object",
    required: ["a"],
    properties: { a: { tsType: "Record<string, A|B>" }, b: { tsType: "A | B" }, c: { tsType: "Pair[0]" }, d: false, e: { tsType: "any" }, f: { enum: ["x", 1, null] }, g: { type: ["string", "null"] }, h: { type: "array", items: { type: "integer" } } },
    additionalProperties: { type: "boolean", description: "Flags." },
  },
  { type: "object", properties: { a: { tsType: "undefined" }, b: { type: "string" } }, additionalProperties: { type: "string" } },
  { type: "object", properties: { a: {} }, additionalProperties: { type: "string" } },
  { type: "object", properties: { a: { tsType: "unknown" } }, additionalProperties: { type: "number" } },
  { type: "object", properties: { a: { type: "string" } }, additionalProperties: { enum: [] } },
  { type: "object", additionalProperties: {} },
  // Bounds: tuples, multiplied through nested arrays, and properties named like the keywords
  { type: "array", items: true, minItems: 2 },
  { type: "array", items: false, minItems: 1 },
  { type: "array", minItems: 2 },
  { type: "array", maxItems: 2 },
  { type: "array", minItems: 1, maxItems: 3, description: "Pairs." },
  { type: "array", maxItems: 0 },
  { type: "array", items: { type: "array", items: { type: "string" }, maxItems: 5 }, maxItems: 5 },
  { type: "array", items: { type: "array", items: { type: "string" }, maxItems: 8 }, minItems: 3 },
  { type: "array", items: { type: "array", items: { type: "string" }, maxItems: 5 }, maxItems: 30 },
  { type: "array", items: { type: "string", description: "A tag." }, minItems: 1, description: "Tags." },
  { type: "array", items: { type: "string", description: "A tag." }, maxItems: 2 },
  { type: "object", properties: { items: { type: "array", maxItems: 30, items: { type: "string" } }, minItems: { type: "object" } } },
  { type: "object", properties: { items: { type: "array", maxItems: 30, items: { type: "string" } }, minItems: true } },
  { type: ["array", "null"], items: { type: "string" }, maxItems: 2, minItems: 1 },
  // Unions, enums and defaults
  { type: ["string", "number"], default: "x" },
  { type: ["object", "null"] },
  { type: ["null"], enum: [null] },
  { type: ["string", "null"], enum: ["a", null], description: "Maybe." },
  { enum: [] },
  { type: ["string", "string"] },
  { const: "only" },
  { default: "text" },
  { default: 3, description: "A number, by its default." },
  { default: null },
  { format: "email" },
  // Comments
  { type: "string", description: "Ends */ and has\nlines", deprecated: true },
  { type: "string", description: "", deprecated: true },
  { type: "array", items: { type: "string", description: "@internal" } },
];

test("rare paths: printed as json-schema-to-typescript compiles them", async () => {
  for (const [i, schema] of CASES.entries()) {
    await expectSame(bundleOf({ Case: schema, CaseFields: { type: "object", properties: { value: structuredClone(schema) } } }), `case ${i}: ${JSON.stringify(schema)}`);
  }
});

test("fixture projects: printed as json-schema-to-typescript compiles them, or left to it", async () => {
  const dirs: string[] = [];
  const walk = (dir: string): void => {
    if (fs.existsSync(path.join(dir, "service.json"))) dirs.push(dir);
    for (const e of fs.readdirSync(dir, { withFileTypes: true })) if (e.isDirectory()) walk(path.join(dir, e.name));
  };
  walk(path.join(repoRoot, "test", "fixtures"));
  let printed = 0;
  for (const dir of dirs.sort()) {
    const { model } = checkProject(dir);
    if (!model) continue;
    const bundle = typesSchema(model);
    if (printTypes(bundle, "Types") === undefined) continue;
    await expectSame(bundle, path.relative(repoRoot, dir));
    printed++;
  }
  assert.ok(printed >= dirs.length / 2, `printed ${printed} of ${dirs.length}`);
});

// ---------------------------------------------------------------------------------------------
// Random schemas within the subset

/** A small seeded generator (mulberry32), so a failure can be replayed. */
class Random {
  constructor(private state: number) {}
  next(): number {
    let t = (this.state = (this.state + 0x6d2b79f5) | 0);
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  }
  chance(p: number): boolean {
    return this.next() < p;
  }
  int(min: number, max: number): number {
    return min + Math.floor(this.next() * (max - min + 1));
  }
  pick<T>(xs: readonly T[]): T {
    return xs[Math.floor(this.next() * xs.length)]!;
  }
  some<T>(xs: readonly T[], max = xs.length): T[] {
    return xs.filter(() => this.chance(0.5)).slice(0, max);
  }
}

const TYPES = ["string", "number", "integer", "boolean", "null", "object", "array"];
const INERT = [
  "format", "pattern", "minLength", "maxLength", "minimum", "maximum", "exclusiveMinimum", "exclusiveMaximum", "multipleOf", "uniqueItems",
  "minProperties", "maxProperties", "minContains", "maxContains", "readOnly", "writeOnly", "contentMediaType", "contentEncoding",
  "unevaluatedProperties", "unevaluatedItems", "$anchor",
];
const KEYS = ["id", "name", "title", "items", "minItems", "maxItems", "type", "a-b", "2fa", "_x", "$y", "snake_case", "", "__proto__", "constructor", "$ref", "with space", 'q"uote'];
const DESCRIPTIONS = ["", "Plain.", "Two\nlines.", "Ends with */ here.", "@deprecated use x", "See @link y.", "Has \"quotes\" and `ticks`.", "Trailing space ", "Items: look"];
const SCALARS = ["a", "", "b c", 'q"', 0, 1, -2.5, 1e21, true, false, null];
const TS_TYPES = ["LinkInput", "LinkInput[]", "A | B", "unknown", "any", "string | undefined", "() => void", " any ", "Record<string, A|B>", "Pair[0]"];
const DEF_NAMES = ["AuthorFields", "AuthorInput", "Widget1Fields", "X2yParams", "foo_bar", "FooBar", "a-b", "Types", "_lead", "9lives", "$dollar", "42", "LookupResult"];

function setOwn(target: Schema, key: string, value: unknown): void {
  Object.defineProperty(target, key, { value, enumerable: true, writable: true, configurable: true });
}

function scalarOf(r: Random, type?: string): unknown {
  switch (type) {
    case "string":
      return r.pick(["x", "", "*/"]);
    case "number":
    case "integer":
      return r.pick([0, 3, -1.5]);
    case "boolean":
      return r.chance(0.5);
    case "null":
      return null;
    case "array":
      return r.pick([[], ["a"], [1, { k: "v" }]]);
    case "object":
      return r.pick([{}, { k: 1 }, { id: 2, name: "n", nested: { type: "object" } }]);
    default:
      return r.pick(SCALARS);
  }
}

/** Annotations and validation keywords, which never change the type (a default that fits the type does not either). */
function annotate(r: Random, s: Schema, type?: string): Schema {
  if (r.chance(0.35)) s.description = r.pick(DESCRIPTIONS);
  if (r.chance(0.06)) s.deprecated = r.chance(0.7);
  if (r.chance(0.15)) s.default = scalarOf(r, type);
  if (r.chance(0.1)) s.examples = [scalarOf(r, type), scalarOf(r, type)];
  if (r.chance(0.25)) s[r.pick(INERT)] = r.pick(["email", "^a$", 0, 10, true, false]);
  return s;
}

function propertiesOf(r: Random, depth: number, chaotic: boolean): Schema {
  const out: Schema = {};
  for (const key of r.some(KEYS, r.int(0, 6))) setOwn(out, key, randomSchema(r, depth + 1, chaotic));
  return out;
}

function objectSchema(r: Random, depth: number, chaotic: boolean, typed = r.chance(0.8)): Schema {
  const s: Schema = typed ? { type: "object" } : {};
  if (r.chance(0.85)) s.properties = propertiesOf(r, depth, chaotic);
  if (r.chance(0.7)) s.required = r.some([...Object.keys((s.properties as Schema | undefined) ?? {}), "missing"]);
  const extra = r.int(0, 4);
  if (extra === 1) s.additionalProperties = false;
  if (extra === 2) s.additionalProperties = true;
  if (extra === 3) s.additionalProperties = randomSchema(r, depth + 1, chaotic);
  return annotate(r, s, "object");
}

function arraySchema(r: Random, depth: number, chaotic: boolean): Schema {
  const s: Schema = r.chance(0.85) ? { type: "array" } : {};
  if (r.chance(0.85)) s.items = r.chance(0.1) ? r.chance(0.5) : randomSchema(r, depth + 1, chaotic);
  if (r.chance(0.3)) s.minItems = r.int(0, 3);
  if (r.chance(0.3)) s.maxItems = r.int(typeof s.minItems === "number" ? s.minItems : 0, 25);
  return annotate(r, s, "array");
}

/**
 * A schema as definitions write them, or, when chaotic, any mix of the subset's keywords (which may be
 * one json-schema-to-typescript reads as an intersection of types, e.g. a string with a numeric default).
 */
function randomSchema(r: Random, depth: number, chaotic: boolean): unknown {
  if (r.chance(0.04)) return r.chance(0.5);
  if (chaotic) return chaoticSchema(r, depth);
  const leaf = depth >= 3;
  if (refNames.length > 0 && r.chance(leaf ? 0.3 : 0.15)) return { $ref: `#/$defs/${r.pick(refNames)}` };
  if (!leaf && r.chance(0.12)) {
    // allOf, anyOf, oneOf: of references, inline schemas, `{}` and description-only members
    const key = r.pick(["allOf", "anyOf", "oneOf"]);
    const members = Array.from({ length: r.int(1, 3) }, () => (r.chance(0.15) ? r.pick([{}, { description: r.pick(DESCRIPTIONS) }]) : randomSchema(r, depth + 1, false)));
    const s: Schema = { [key]: members };
    if (r.chance(0.3)) s.description = r.pick(DESCRIPTIONS);
    if (r.chance(0.05)) s.deprecated = true;
    return s;
  }
  switch (r.int(0, leaf ? 4 : 9)) {
    case 0: {
      const type = r.pick(["string", "number", "integer", "boolean", "null"]);
      return annotate(r, { type }, type);
    }
    case 1: {
      const values = r.some(SCALARS, 5);
      const s: Schema = r.chance(0.5) ? { type: r.pick(["string", ["string", "null"], ["string", "number"], ["null"]]) } : {};
      return annotate(r, { ...s, enum: r.chance(0.3) ? [...values, null] : values });
    }
    case 2:
      return annotate(r, { const: r.pick(SCALARS) });
    case 3:
      return annotate(r, { tsType: r.pick(TS_TYPES) });
    case 4:
      return r.chance(0.5) ? {} : annotate(r, {});
    case 5:
    case 6:
      return objectSchema(r, depth, false);
    case 7:
    case 8:
      return arraySchema(r, depth, false);
    default: {
      // A union of types, with what its object and array members read
      const types = r.some(TYPES, 3);
      const s: Schema = { type: types.length ? types : ["string", "null"] };
      if (types.includes("object") && r.chance(0.6)) s.properties = propertiesOf(r, depth, false);
      if (types.includes("array") && r.chance(0.6)) s.items = randomSchema(r, depth + 1, false);
      if (types.includes("array") && r.chance(0.3)) s.maxItems = r.int(0, 4);
      return annotate(r, s, types[0]);
    }
  }
}

function chaoticSchema(r: Random, depth: number): Schema {
  const s: Schema = {};
  if (r.chance(0.1)) s.$ref = `#/$defs/${r.pick([...refNames, "Missing"])}`;
  if (depth < 3 && r.chance(0.15)) s[r.pick(["allOf", "anyOf", "oneOf"])] = Array.from({ length: r.int(0, 2) }, () => chaoticSchema(r, depth + 1));
  if (r.chance(0.5)) s.type = r.chance(0.7) ? r.pick(TYPES) : r.some(TYPES, 3).concat(r.pick(TYPES));
  if (r.chance(0.15)) s.enum = r.some(SCALARS, 4);
  if (r.chance(0.1)) s.const = r.pick(SCALARS);
  if (depth < 3 && r.chance(0.3)) s.properties = propertiesOf(r, depth, true);
  if (r.chance(0.15)) s.required = r.some(KEYS, 3);
  if (depth < 3 && r.chance(0.2)) s.additionalProperties = r.chance(0.5) ? r.chance(0.5) : chaoticSchema(r, depth + 1);
  if (depth < 3 && r.chance(0.3)) s.items = r.chance(0.2) ? r.chance(0.5) : chaoticSchema(r, depth + 1);
  if (r.chance(0.15)) s.minItems = r.int(0, 4);
  if (r.chance(0.15)) s.maxItems = r.int(typeof s.minItems === "number" ? s.minItems : 0, 30);
  if (r.chance(0.05)) s.tsType = r.pick(TS_TYPES);
  if (r.chance(0.15)) s.default = scalarOf(r);
  return annotate(r, s);
}

/** The definitions a random bundle's schemas may refer to (decided before they are made). */
let refNames: string[] = [];

/**
 * A bundle shaped as typesSchema makes it: resources' Fields and Input sharing property schemas, shared
 * definitions, others; schemas may $ref the shared definitions (and those each other).
 */
function randomBundle(r: Random, chaotic: boolean): Schema {
  const defs: Schema = {};
  const shared = r.some(["Address", "Tag", "Money", "Node", "node", "Address1", "$dollar", "with_snake", "Items"], r.int(0, 4));
  refNames = shared;
  const sharedDefs: Schema = {};
  for (const name of shared) sharedDefs[name] = chaotic ? chaoticSchema(r, 1) : r.chance(0.5) ? randomSchema(r, 1, false) : objectSchema(r, 1, false);
  // (typesSchema writes a boolean shared schema as the schema it stands for.)
  if (!chaotic) for (const [name, def] of Object.entries(sharedDefs)) if (typeof def === "boolean") sharedDefs[name] = def ? {} : { tsType: "never" };
  for (let i = r.int(0, 2); i > 0; i--) {
    const properties = propertiesOf(r, 0, chaotic);
    const names = Object.keys(properties);
    const input: Schema = {};
    for (const k of r.some(names)) setOwn(input, k, properties[k]);
    const plain: Schema = {};
    for (const k of r.some(names)) setOwn(plain, k, properties[k]);
    const name = r.pick(["Author", "Book", "Widget1", "Order", "Folder"]);
    defs[`${name}Fields`] = { type: "object", additionalProperties: false, description: `The plain (non-link) fields of ${name}.`, required: r.some(Object.keys(plain)), properties: plain };
    defs[`${name}Input`] = { type: "object", additionalProperties: false, description: `Request body of ${name}.`, required: r.some(Object.keys(input)), properties: input };
  }
  for (let i = r.int(0, 4); i > 0; i--) defs[r.pick(DEF_NAMES)] = randomSchema(r, 0, chaotic);
  Object.assign(defs, sharedDefs);
  if (r.chance(0.3)) defs.SomeParams = { ...objectSchema(r, 0, chaotic), description: "Query parameters of some." };
  // A definition that is itself a bare $ref is one typesSchema never makes (it wraps it in an allOf).
  if (!chaotic) for (const [name, def] of Object.entries(defs)) if (isBareRef(def)) defs[name] = { allOf: [def] };
  return bundleOf(defs);
}

function isBareRef(s: unknown): boolean {
  return typeof s === "object" && s !== null && "$ref" in s;
}

test("random schemas within the subset: printed as json-schema-to-typescript compiles them", async () => {
  let printed = 0;
  let declined = 0;
  for (let seed = 1; seed <= 500; seed++) {
    const chaotic = seed % 4 === 0;
    const bundle = randomBundle(new Random(seed), chaotic);
    if (printTypes(bundle, "Types") === undefined) {
      assert.ok(chaotic, `seed ${seed}: declined ${JSON.stringify(bundle)}`);
      declined++;
      continue;
    }
    await expectSame(bundle, `seed ${seed}${chaotic ? " (chaotic)" : ""}`);
    printed++;
  }
  assert.ok(printed >= 380, `printed ${printed}, declined ${declined}`);
});

// ---------------------------------------------------------------------------------------------
// Outside the subset

const OUTSIDE: readonly (readonly [string, unknown])[] = [
  ["not", { not: { type: "string" } }],
  ["if/then/else", { if: { type: "string" }, then: { minLength: 1 }, else: { type: "number" } }],
  ["patternProperties", { type: "object", patternProperties: { "^x-": { type: "string" } } }],
  ["prefixItems", { type: "array", prefixItems: [{ type: "string" }] }],
  ["tuple items", { type: "array", items: [{ type: "string" }, { type: "number" }] }],
  ["additionalItems", { type: "array", items: { type: "string" }, additionalItems: false }],
  ["$ref beside other keywords", { $ref: "#/$defs/AuthorFields", description: "Its author." }],
  ["$ref to no definition", { $ref: "#/$defs/Other" }],
  ["$ref to another document", { $ref: "other.json" }],
  ["$ref with an escaped token", { $ref: "#/$defs/A~1B" }],
  ["$ref to a boolean definition", { type: "object", properties: { a: { $ref: "#/$defs/Anything" } } }],
  ["a definition that is a $ref", { $ref: "#/$defs/AuthorFields" }],
  ["allOf that is not a list", { allOf: { type: "string" } }],
  ["nested $defs", { type: "object", properties: {}, $defs: { X: { type: "string" } } }],
  ["nullable", { type: "string", nullable: true }],
  ["title", { type: "string", title: "Named" }],
  ["$id", { type: "object", $id: "thing", properties: {} }],
  ["tsEnumNames", { type: "string", enum: ["a"], tsEnumNames: ["A"] }],
  ["type any", { type: "any" }],
  ["unknown keyword", { type: "string", "x-vendor": 1 }],
  ["schema keyword in enum data", { enum: [{ items: [1] }] }],
  ["$ref inside examples", { type: "object", examples: [{ $ref: "elsewhere.json" }] }],
  ["maxItems < minItems", { type: "array", minItems: 3, maxItems: 1 }],
  ["non-boolean deprecated", { type: "string", deprecated: "yes" }],
  ["intersection (string with a numeric default)", { type: "string", default: 5 }],
  ["intersection (enum with items)", { enum: ["a"], items: { type: "string" } }],
  ["intersection (oneOf with a type)", { oneOf: [{ type: "string" }, { type: "number" }], type: "null" }],
  ["intersection (allOf with properties)", { allOf: [{ type: "object" }], properties: { a: { type: "string" } } }],
  ["intersection (allOf with a default)", { allOf: [{ type: "string" }], default: "x" }],
  ["nested in a property", { type: "object", properties: { a: { type: "object", properties: { b: { not: true } } } } }],
  ["nested in items", { type: "array", items: { anyOf: [{ if: {} }] } }],
];

test("a bundle with anything outside the subset is left to json-schema-to-typescript", () => {
  for (const [label, schema] of OUTSIDE) {
    const bundle = bundleOf({ AuthorFields: { type: "object", properties: { name: { type: "string" } } }, LookupResult: schema, Anything: true });
    const printed = printTypesOf(bundle, "Types");
    assert.is(printed.text, undefined, label);
    assert.type(printed.declined, "string", label);
  }
  assert.is(printTypes({ ...bundleOf({}), title: "Bundle" }, "Types"), undefined, "a root with more keywords");
  const shared = { type: "string" };
  assert.is(printTypes(bundleOf({ Name: shared, Fields: { type: "object", properties: { name: shared } } }), "Types"), undefined, "a definition used as a property");
  assert.is(printTypes(bundleOf({ Fields: { type: "object", properties: { name: shared } }, Name: shared }), "Types"), undefined, "a property used as a definition");
  assert.is(printTypes(bundleOf({ Name: shared, Other: shared }), "Types"), undefined, "one schema as two definitions");
  const tags = { type: "array", items: shared };
  assert.is(printTypes(bundleOf({ Fields: { type: "object", properties: { a: tags, b: { type: "array", items: shared } } } }), "Types"), undefined, "items shared");
  assert.ok(printTypes(bundleOf({ Fields: { type: "object", properties: { a: tags } }, Input: { type: "object", properties: { a: tags } } }), "Types"), "a property shared, as typesSchema does");
  assert.is(printTypes(bundleOf({ "Ünïcode": { type: "string" } }), "Types"), undefined, "a non-ASCII definition name");
  assert.is(printTypes(bundleOf({}), "my types"), undefined, "a root name that is not a plain identifier");
});

test("emitTypes compiles such a bundle with json-schema-to-typescript", async () => {
  const library = modelOf(path.join(repoRoot, "examples", "library"));
  const model: Model = { ...library, actions: library.actions.map((a) => ({ ...a, response: { type: "object", patternProperties: { "^x-": { type: "number" } } } })) };
  assert.is(printTypes(typesSchema(model), "Types"), undefined);
  const [client] = await emitTypes(model);
  assert.ok(client!.contents.includes("  [k: string]: number | undefined\n}"), client!.contents);
  assert.ok(client!.contents.includes("export interface AuthorFields {"));
});

test.run();
