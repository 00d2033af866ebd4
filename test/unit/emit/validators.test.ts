/**
 * The request validators resourcery precompiles at generate time (src/emit/validators.ts, written as
 * src/generated/validators.js): the runtime takes them when they were compiled from its spec's schemas,
 * and they answer every body and query exactly as validators compiled at start-up do — valid values
 * (defaults applied, queries coerced) and each kind of error. The definitions carry hostile text in the
 * schema values ajv writes into code (patterns, enum and const values, defaults, property names, titles,
 * descriptions, a format name): the module holds it only inside string literals, and loading and running
 * it runs none of it.
 */
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { pathToFileURL } from "node:url";
import ts from "typescript";
import { test } from "uvu";
import * as assert from "uvu/assert";
import { specOf } from "../../../src/emit/spec.js";
import { emitValidators } from "../../../src/emit/validators.js";
import { BUILTIN_ERRORS } from "../../../src/model/builtin-errors.js";
import { checkProject } from "../../../src/pipeline.js";
import { ApiError, catalogOf } from "../../../templates/runtime/errors.js";
import type { ServiceSpec } from "../../../templates/runtime/spec.js";
import { compileValidators, loadValidators, type PrecompiledValidators, type Validators } from "../../../templates/runtime/validate.js";
import { AT, writeHostileValidatorsProject } from "../../fixtures/hostile/validators-project.js";
import { payload } from "../../fixtures/hostile/payloads.js";
import { linkModules } from "../../helpers/package.js";

const tmp = fs.mkdtempSync(path.join(os.tmpdir(), "resourcery-validators-unit-"));
const sentinels = path.join(tmp, "sentinels");
fs.mkdirSync(sentinels);
writeHostileValidatorsProject(path.join(tmp, "defs"), sentinels);
const checked = checkProject(path.join(tmp, "defs"));
const text = (n: number) => payload(sentinels, n);
const catalog = catalogOf(BUILTIN_ERRORS.map((e) => ({ ...e, info: `https://docs.example.com/errors/${e.code}` })));

/** The module as the package holds it: src/generated/validators.js, with the package's node_modules beside src/. */
const pkg = path.join(tmp, "pkg");
const file = path.join(pkg, "src", "generated", "validators.js");
let source = "";
let spec: ServiceSpec;
let precompiled: PrecompiledValidators;
let fromModule: Validators;
let atStart: Validators;

test("the hostile definitions pass check, and their validators are emitted and load", async () => {
  assert.ok(checked.model, JSON.stringify(checked.diagnostics, null, 2));
  const files = emitValidators(checked.model!);
  assert.equal(files.map((f) => [f.path, f.owner]), [["src/generated/validators.js", "generated"]]);
  source = files[0]!.contents;
  fs.mkdirSync(path.dirname(file), { recursive: true });
  fs.writeFileSync(file, source);
  linkModules(pkg);
  spec = { ...specOf(checked.model!), errors: [], mediaTypes: [] } as unknown as ServiceSpec;
  precompiled = await loadValidators(pathToFileURL(file));
  fromModule = compileValidators(spec, catalog, spec.baseUrl, precompiled);
  atStart = quietly(() => compileValidators(spec, catalog, spec.baseUrl));
  assert.is(fromModule.origin, "precompiled");
  assert.is(atStart.origin, "compiled");
  assert.equal(Object.keys(precompiled.bodies).sort(), ["bins", "items", "shelves"]);
  assert.equal(Object.keys(precompiled.queries), ["find"]);
});

test("validators precompiled from other schemas are not used: a spec changed by hand compiles its own", () => {
  const changed = structuredClone(spec) as unknown as { resources: { collection: string; bodySchema: { properties: Record<string, unknown> } }[] };
  changed.resources.find((r) => r.collection === "items")!.bodySchema.properties.name = { type: "integer" };
  const v = quietly(() => compileValidators(changed as unknown as ServiceSpec, catalog, spec.baseUrl, precompiled));
  assert.is(v.origin, "compiled");
  assert.is(outcome(v, "items", { name: 12 }).ok, true, "the changed schema is the one validated");
  assert.is(outcome(fromModule, "items", { name: 12 }).ok, false);
});

test("a module that is not the package's validators is refused with a clear message", async () => {
  const other = path.join(pkg, "src", "generated", "other.js");
  fs.writeFileSync(other, "export const x = 1;\n");
  try {
    await loadValidators(pathToFileURL(other));
    assert.unreachable("loaded");
  } catch (e) {
    assert.match(String(e), /does not hold precompiled validators: regenerate/);
  }
  try {
    await loadValidators(pathToFileURL(path.join(pkg, "src", "generated", "missing.js")));
    assert.unreachable("loaded");
  } catch (e) {
    assert.match(String(e), /cannot be loaded \(regenerate the package/);
  }
});

/** `f()` without ajv's warnings (the hostile format is unknown to it, and each compile says so on the console). */
function quietly<T>(f: () => T): T {
  const warn = console.warn;
  console.warn = () => undefined;
  try {
    return f();
  } finally {
    console.warn = warn;
  }
}

/** What validating `body` (a copy) does: the value it leaves (defaults applied), or the error it throws. */
function outcome(v: Validators, collection: string, body: unknown, patch?: unknown): { ok: boolean; value?: unknown; error?: unknown } {
  const copy = structuredClone(body);
  try {
    v.body(collection, copy, new Set(), patch);
    return { ok: true, value: copy };
  } catch (e) {
    if (!(e instanceof ApiError)) throw e;
    return { ok: false, error: { status: e.status, body: e.body } };
  }
}

/** What validating a query does: the parameters it returns (coerced, defaults applied), or the error. */
function queryOutcome(v: Validators, params: Record<string, unknown>): { ok: boolean; value?: unknown; error?: unknown } {
  try {
    return { ok: true, value: v.query("find", structuredClone(params)) };
  } catch (e) {
    if (!(e instanceof ApiError)) throw e;
    return { ok: false, error: { status: e.status, body: e.body } };
  }
}

const odd = () => `z ${text(AT.propertyName)}`;
const link = (collection: string) => ({ meta: { href: `${spec.baseUrl}/${collection}/x` } });

/** Bodies of items: valid ones, and one of each kind of error (the label says which). */
const BODIES: readonly (readonly [label: string, body: () => unknown, valid: boolean])[] = [
  ["the least valid body: defaults are applied", () => ({ name: "plain" }), true],
  ["every property, the hostile texts as values", () => ({ name: text(AT.namePattern), kind: text(AT.kindEnum), fixed: text(AT.fixedConst), [odd()]: "x", when: "2024-05-01T12:00:00Z", size: 3, tags: ["a"], shelf: link("shelves") }), true],
  ["a nullable link set to null", () => ({ name: "plain", shelf: null }), true],
  ["not an object", () => ["plain"], false],
  ["a required property missing", () => ({ kind: "plain" }), false],
  ["one unknown property", () => ({ name: "plain", colour: 1 }), false],
  ["many unknown properties", () => ({ name: "plain", ...Object.fromEntries(Array.from({ length: 25 }, (_, i) => [`u${i}`, i])) }), false],
  ["a pattern not matched", () => ({ name: "nope" }), false],
  ["a type: a number for a string", () => ({ name: 12 }), false],
  ["an enum value not allowed", () => ({ name: "plain", kind: "other" }), false],
  ["a const value not allowed", () => ({ name: "plain", fixed: "other" }), false],
  ["a format not met", () => ({ name: "plain", when: "yesterday" }), false],
  ["a shared schema's maximum", () => ({ name: "plain", size: 11 }), false],
  ["a shared schema's type", () => ({ name: "plain", size: "3" }), false],
  ["an item of an array", () => ({ name: "plain", tags: [""] }), false],
  ["too many items", () => ({ name: "plain", tags: ["a", "b", "c", "d"] }), false],
  ["a link without meta", () => ({ name: "plain", shelf: { href: "x" } }), false],
  ["a link of the wrong type", () => ({ name: "plain", shelf: "x" }), false],
  ["a server-owned property", () => ({ name: "plain", id: "x" }), false],
  ["a property named as Object.prototype's members", () => ({ name: "plain", toString: "x" }), false],
];

test("every body gets the same answer from the precompiled validators as from those compiled at start-up", () => {
  for (const [label, body, valid] of BODIES) {
    const precompiledOutcome = outcome(fromModule, "items", body());
    assert.equal(precompiledOutcome, outcome(atStart, "items", body()), label);
    assert.is(precompiledOutcome.ok, valid, `${label}: ${JSON.stringify(precompiledOutcome)}`);
  }
  const defaults = outcome(fromModule, "items", { name: "plain" }).value as Record<string, unknown>;
  assert.is(defaults.kind, text(AT.kindEnum), "the hostile default is applied as a value");
  assert.is(defaults[odd()], text(AT.propertyDefault));
  const e = outcome(fromModule, "items", { name: "plain", kind: "other" }).error as { body: { dev: string } };
  assert.ok(e.body.dev.includes(JSON.stringify(text(AT.kindEnum))), "the enum error lists the hostile value");
  assert.equal(outcome(fromModule, "shelves", { label: "x".repeat(21) }), outcome(atStart, "shelves", { label: "x".repeat(21) }));
});

test("bodies that differ only in their annotations share one validator, which answers both alike", () => {
  assert.is(precompiled.bodies.bins, precompiled.bodies.shelves);
  assert.is.not(precompiled.bodies.items, precompiled.bodies.shelves);
  assert.ok(/\["bins", bodies\.v(\d+)\],\n\s+\["items", bodies\.v\d+\],\n\s+\["shelves", bodies\.v\1\]/.test(source), "one export for both");
  for (const body of [{ label: "x" }, { label: "x".repeat(21) }, { label: 1 }, { other: 1 }]) {
    assert.equal(outcome(fromModule, "bins", body), outcome(atStart, "bins", body));
    assert.equal(outcome(fromModule, "bins", body), outcome(fromModule, "shelves", body));
  }
});

test("a merge patch that removes a required property is answered alike", () => {
  const patched = outcome(fromModule, "items", { kind: "plain" }, { name: null });
  assert.equal(patched, outcome(atStart, "items", { kind: "plain" }, { name: null }));
  assert.match(JSON.stringify(patched.error), /cannot be null/);
});

test("every query gets the same answer: coerced, defaults applied, each kind of error", () => {
  const cases: readonly (readonly [string, Record<string, unknown>, boolean])[] = [
    ["the least valid query", { q: "plain" }, true],
    ["the hostile texts as values, a number coerced", { q: text(AT.queryPattern), [`n ${text(AT.queryName)}`]: "3", mode: text(AT.queryEnum) }, true],
    ["a repeated parameter: its last value", { q: ["nope", "plain"] }, true],
    ["a shared schema's number, coerced", { q: "plain", size: "3" }, true],
    ["a shared schema's maximum", { q: "plain", size: "11" }, false],
    ["a required parameter missing", {}, false],
    ["a pattern not matched", { q: "nope" }, false],
    ["a number that is not one", { q: "plain", [`n ${text(AT.queryName)}`]: "three" }, false],
    ["an enum value not allowed", { q: "plain", mode: "other" }, false],
  ];
  for (const [label, params, valid] of cases) {
    const got = queryOutcome(fromModule, params);
    assert.equal(got, queryOutcome(atStart, params), label);
    assert.is(got.ok, valid, `${label}: ${JSON.stringify(got)}`);
  }
  assert.equal(queryOutcome(fromModule, { q: "plain" }).value, { q: "plain", [`n ${text(AT.queryName)}`]: 1, mode: text(AT.queryEnum) });
  assert.is((queryOutcome(fromModule, { q: "plain", size: "3" }).value as Record<string, unknown>).size, 3, "coerced through the shared schema's validator");
});

test("the module holds the hostile text only inside string literals", () => {
  const scanner = ts.createScanner(ts.ScriptTarget.ES2022, false, ts.LanguageVariant.Standard, source);
  const markers = ["PWNED", "«", "getBuiltinModule", "</script>", "\u2028", "\u2029"];
  let strings = 0;
  let hostileStrings = 0;
  for (let kind = scanner.scan(); kind !== ts.SyntaxKind.EndOfFileToken; kind = scanner.scan()) {
    const token = scanner.getTokenText();
    if (kind === ts.SyntaxKind.StringLiteral) {
      strings++;
      if (token.includes("PWNED")) hostileStrings++;
      assert.not.ok(/[\u2028\u2029]/.test(token), "U+2028 and U+2029 are escaped inside strings too");
      continue;
    }
    assert.not.ok(kind === ts.SyntaxKind.Unknown, `a token the scanner cannot read at ${scanner.getTokenStart()}`);
    for (const marker of markers) assert.not.ok(token.includes(marker), `hostile text outside a string literal: ${JSON.stringify(token.slice(0, 200))}`);
  }
  assert.ok(strings > 100 && hostileStrings >= 8, `${strings} string literals, ${hostileStrings} of them hostile text`);
  // Each kind of value ajv validates with is in it (the scan above is not vacuous): pattern, enum, const, default, property name.
  for (const n of [AT.namePattern, AT.kindEnum, AT.fixedConst, AT.propertyDefault, AT.propertyName, AT.queryPattern, AT.queryEnum]) {
    assert.ok(source.includes(`«${n}»`), `payload «${n}» is in the module`);
  }
  // Annotations are not compiled: titles and descriptions are not in it at all.
  for (const n of [AT.title, AT.queryTitle, AT.resourceTitle, AT.resourceDescription, AT.nameTitle, AT.nameDescription, AT.sharedDescription, AT.binTitle, AT.binDescription]) {
    assert.not.ok(source.includes(`«${n}»`), `annotation «${n}» is not in the module`);
  }
  assert.equal(fs.readdirSync(sentinels), [], "no payload ran while the module was loaded and used");
});

test.after(() => fs.rmSync(tmp, { recursive: true, force: true }));
test.run();
