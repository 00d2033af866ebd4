/**
 * `check` implies the service starts (src/lint/compile-check.ts): every schema the service compiles is
 * compiled with the service's own ajv settings, and each failure is a diagnostic at the keyword that
 * causes it, with a fix. Each case below is also run through the generated service's runtime
 * (templates/runtime/validate.ts compileValidators): check fails it exactly when the service would not start.
 */
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { test } from "uvu";
import * as assert from "uvu/assert";
import type { Target } from "../../../src/diagnostics/diagnostic.js";
import { compileCheck, compileSetOf, type CompileUnit } from "../../../src/lint/compile-check.js";
import { sourceLocator } from "../../../src/lint/source-locator.js";
import { BUILTIN_ERRORS } from "../../../src/model/builtin-errors.js";
import { checkProject } from "../../../src/pipeline.js";
import { catalogOf } from "../../../templates/runtime/errors.js";
import type { JsonSchema, ServiceSpec } from "../../../templates/runtime/spec.js";
import { compileValidators } from "../../../templates/runtime/validate.js";

type Json = Record<string, unknown>;

const here = (pointer: string): Target => ({ file: "thing.json", pointer });
const unit = (schema: JsonSchema, what = "the body of things"): CompileUnit => ({ what, schema, locate: here });
const bodies = (...schemas: JsonSchema[]) => compileCheck({ shared: [], bodies: schemas.map((s) => unit(s)), queries: [], responses: [] });
const body = (properties: Json) => ({ type: "object", additionalProperties: false, properties });

/** True when the generated service's runtime cannot compile these bodies and queries: it would not start. */
function serviceFails(bodySchemas: readonly JsonSchema[], querySchemas: readonly JsonSchema[] = []): boolean {
  const spec = {
    baseUrl: "https://api.example.com/v1",
    resources: bodySchemas.map((bodySchema, i) => ({ collection: `c${i}`, fields: [], bodySchema })),
    actions: querySchemas.map((query, i) => ({ name: `a${i}`, query })),
  } as unknown as ServiceSpec;
  try {
    compileValidators(spec, catalogOf(BUILTIN_ERRORS.map((e) => ({ ...e, info: "" }))));
    return false;
  } catch {
    return true;
  }
}

test("OpenAPI nullable beside anyOf: at the keyword, with the 2020-12 form as the fix; the service would not start", () => {
  const schema = body({ name: { type: "string" }, a: { anyOf: [{ type: "string" }, { type: "integer" }], nullable: true } });
  const [d, ...rest] = bodies(schema);
  assert.equal(rest, []);
  assert.is(d!.code, "schema-compile");
  assert.is(d!.severity, "error");
  assert.is(d!.pointer, "/properties/a/nullable");
  assert.is(d!.message, 'the body of things would stop the service at start-up: its validator (ajv) cannot compile it: "nullable" cannot be used without "type"');
  assert.is(d!.hint, 'remove "nullable" and add { "type": "null" } to "anyOf"');
  assert.ok(serviceFails([schema]));
  // A nullable the service's ajv compiles (beside a type) is no start failure; unsupported-keyword still reports it.
  const beside = body({ a: { type: "string", nullable: true } });
  assert.equal(bodies(beside), []);
  assert.not.ok(serviceFails([beside]));
});

test("a pattern of another dialect: which escape JavaScript's u regexes reject, and the pattern rewritten; every one in the body", () => {
  const schema = body({ a: { type: "string", pattern: "\\A[a-z]+\\Z" }, b: { type: "object", properties: { c: { type: "string", pattern: "^\\h+$" } } } });
  const found = bodies(schema);
  assert.equal(found.map((d) => d.pointer), ["/properties/a/pattern", "/properties/b/properties/c/pattern"]);
  assert.match(found[0]!.message, /pattern "\\\\A\[a-z\]\+\\\\Z" is not a valid regular expression: \\A and \\Z are not escapes of JavaScript regular expressions \(JSON Schema patterns are ECMAScript ones, with the "u" flag\)/);
  assert.is(found[0]!.hint, 'write \\A as ^ (the start of the value) and \\Z as $ (the end of the value): "pattern": "^[a-z]+$"');
  assert.is(found[1]!.hint, 'write \\h as [ \\t] (a horizontal space): "pattern": "^[ \\\\t]+$"');
  assert.ok(serviceFails([schema]));
});

test("meta-schema failures of the service's draft, unresolvable $refs, shared $ids, nested $async: at their keyword", () => {
  const cases: [Json, string, RegExp][] = [
    [body({ a: { type: "strin" } }), "/properties/a/type", /"type" must be equal to one of the allowed values/],
    [body({ a: { type: "string", minLength: -1 } }), "/properties/a/minLength", /"minLength" must be >= 0/],
    [body({ a: { $ref: "#/$defs/missing" } }), "/properties/a/$ref", /can't resolve reference #\/\$defs\/missing/],
    [body({ a: { $id: "x", type: "string" }, b: { $id: "x", type: "string" } }), "/properties/b/$id", /reference "x" resolves to more than one schema/],
    [body({ a: { $async: true, type: "string" } }), "/properties/a/$async", /async schema in sync schema/],
  ];
  for (const [schema, pointer, message] of cases) {
    const found = bodies(schema);
    assert.equal(found.map((d) => d.pointer), [pointer], JSON.stringify(schema));
    assert.match(found[0]!.message, message);
    assert.ok(found[0]!.hint.length > 0);
    assert.ok(serviceFails([schema]), `the service compiles ${JSON.stringify(schema)}`);
  }
});

test("check fails exactly what the service fails to compile: schemas that start pass, in bodies and in queries", () => {
  const starts: Json[] = [
    body({ a: { type: ["string", "null"], format: "email" }, b: { anyOf: [{ type: "string" }, { type: "null" }] }, c: { type: "string", pattern: "^(a+)+$" } }),
    body({ a: { type: "string", format: "no-such-format" }, b: { $ref: "#/properties/a" } }),
    body({ a: { type: "object", properties: { b: { type: "array", items: { type: "integer", minimum: 1 } } } } }),
    body({ a: { type: "string", nullable: true }, b: { $schema: "http://example.com/nope", type: "string" } }),
  ];
  for (const schema of starts) {
    assert.equal(bodies(schema), [], JSON.stringify(schema));
    assert.not.ok(serviceFails([schema]), JSON.stringify(schema));
  }
  const query = { type: "object", properties: { from: { type: "string", pattern: "\\Z" }, n: { type: "integer" } } };
  const found = compileCheck({ shared: [], bodies: [], queries: [unit(query, "the query of the action convert")], responses: [] });
  assert.equal(found.map((d) => d.pointer), ["/properties/from/pattern"]);
  assert.match(found[0]!.message, /^the query of the action convert would stop the service/);
  assert.ok(serviceFails([], [query]));
  assert.not.ok(serviceFails([], [{ type: "object", properties: { n: { type: "integer" } } }]));
});

test("the same property schema in many bodies is compiled once and reported where each is written; a body of parts that refer to each other is compiled whole", () => {
  // RE2, which the service tests patterns with, has \A but no \Z.
  const bad = { type: "string", pattern: "a\\Z" };
  const units = Array.from({ length: 300 }, (_, i): CompileUnit => ({
    what: `the body of c${i}`,
    schema: body({ [`p${i}`]: bad, q: { type: "integer" } }),
    locate: (pointer) => ({ file: `c${i}.json`, pointer }),
  }));
  const found = compileCheck({ shared: [], bodies: units, queries: [], responses: [] });
  assert.is(found.length, 300);
  assert.equal([found[0]!.file, found[0]!.pointer], ["c0.json", "/properties/p0/pattern"]);
  assert.equal([found[299]!.file, found[299]!.pointer], ["c299.json", "/properties/p299/pattern"]);
  // The same place reached from several bodies is reported once.
  const same = compileCheck({ shared: [], bodies: [unit(body({ a: bad })), unit(body({ a: bad, b: {} }))], queries: [], responses: [] });
  assert.is(same.length, 1);
});

test("shared schemas (ajv.addSchema) are compiled on their own and reported where they are written, not again in each body that $refs them", () => {
  const found = compileCheck({
    shared: [
      { id: "https://schemas.example/Code", what: "the shared schema Code", schema: { type: "string", pattern: "[A-Z]+\\Z" }, locate: (p) => ({ file: "common.json", pointer: `/$defs/Code${p}` }) },
      { id: "https://schemas.example/Name", what: "the shared schema Name", schema: { type: "string", minLength: 1 }, locate: (p) => ({ file: "common.json", pointer: `/$defs/Name${p}` }) },
    ],
    bodies: [unit(body({ code: { $ref: "https://schemas.example/Code" }, name: { $ref: "https://schemas.example/Name" } }))],
    queries: [],
    responses: [],
  });
  assert.equal(found.map((d) => `${d.file}${d.pointer}`), ["common.json/$defs/Code/pattern"]);
  assert.match(found[0]!.message, /^the shared schema Code would stop the service/);
  // A body that $refs a shared schema that compiles is fine; one that $refs an unknown id is reported at its $ref.
  const unknown = compileCheck({ shared: [], bodies: [unit(body({ code: { $ref: "https://schemas.example/Nope" } }))], queries: [], responses: [] });
  assert.equal(unknown.map((d) => d.pointer), ["/properties/code/$ref"]);
});

test("through the model: a keyword reached through $refs is located in the file that writes it, and check reports each failure once", () => {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), "rsc-compile-"));
  try {
    const write = (file: string, value: unknown) => fs.writeFileSync(path.join(dir, file), JSON.stringify(value, null, 2));
    write("service.json", {
      name: "things-service",
      vendor: "acme",
      version: 1,
      baseUrl: "http://localhost:3000/v1",
      errorDocsUrl: "http://localhost:3000/docs/errors",
      resources: ["thing.json"],
      actions: { convert: { method: "GET", query: { type: "object", properties: { from: { $ref: "common.json#/$defs/wrapped" } } }, response: { type: "object" } } },
    });
    write("thing.json", {
      title: "Thing",
      type: "object",
      "x-collection": "things",
      properties: { a: { $ref: "common.json#/$defs/wrapped", description: "beside" }, b: { type: "object", properties: { c: { $ref: "common.json#/$defs/ids" } } } },
    });
    write("common.json", { $defs: { wrapped: { $ref: "#/$defs/inner" }, inner: { type: "object", properties: { x: { $id: "same", type: "string" } } }, ids: { type: "object", properties: { y: { enum: [] } } } } });
    const { model, diagnostics } = checkProject(dir);
    assert.ok(model, JSON.stringify(diagnostics));
    const locate = sourceLocator(model!);
    const a = model!.resources[0]!.fields.find((f) => f.name === "a")!;
    assert.equal(locate(a.origin, "/properties/x/$id"), { file: path.join(dir, "common.json"), pointer: "/$defs/inner/properties/x/$id" });
    assert.equal(locate(a.origin, "/description"), { file: path.join(dir, "thing.json"), pointer: "/properties/a/description" });
    assert.equal(locate(a.origin, "/properties/nope/type"), { file: path.join(dir, "common.json"), pointer: "/$defs/inner/properties" });
    const found = compileCheck(compileSetOf(model!));
    // ($ids are dropped as $refs are resolved: "same" twice is no failure.)
    assert.equal(found.map((d) => `${path.basename(d.file)}${d.pointer}`), ["common.json/$defs/ids/properties/y/enum"]);
    assert.ok(diagnostics.some((d) => d.code === "schema-compile" && d.pointer === "/$defs/ids/properties/y/enum"), "check reports it");
  } finally {
    fs.rmSync(dir, { recursive: true, force: true });
  }
});

test("through check: a finding another rule makes at the same keyword (nullable, a pattern) is not repeated", () => {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), "rsc-compile-"));
  try {
    const write = (file: string, value: unknown) => fs.writeFileSync(path.join(dir, file), JSON.stringify(value, null, 2));
    write("service.json", { name: "things-service", vendor: "acme", version: 1, baseUrl: "http://localhost:3000/v1", errorDocsUrl: "http://localhost:3000/docs/errors", resources: ["thing.json"] });
    write("thing.json", {
      title: "Thing",
      type: "object",
      "x-collection": "things",
      properties: { a: { anyOf: [{ type: "string" }, { type: "integer" }], nullable: true }, b: { type: "string", pattern: "\\A[a-z]+\\Z" } },
    });
    const { diagnostics } = checkProject(dir);
    assert.equal(diagnostics.map((d) => `${d.code} ${d.pointer}`).sort(), ["invalid-pattern /properties/b/pattern", "unsupported-keyword /properties/a/nullable"]);
  } finally {
    fs.rmSync(dir, { recursive: true, force: true });
  }
});

test.run();
