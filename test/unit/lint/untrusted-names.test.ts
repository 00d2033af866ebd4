/**
 * What `check` refuses because it would break the generator or the service, decided by helpers of
 * src/model (names, patterns, the schema walk) and used by the lint rules; and prototype names
 * (toString, valueOf …) that are ordinary property names all the way to the samples and examples.
 */
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { test } from "uvu";
import * as assert from "uvu/assert";
import { resourceSamples } from "../../../src/emit/contract-samples.js";
import { exampleInstance } from "../../../src/emit/docs/operations.js";
import { isValidSample } from "../../../src/emit/samples.js";
import { bodySchemaOf } from "../../../src/emit/spec.js";
import { isCamelName, isDeviceName } from "../../../src/model/names.js";
import { compileLinear, patternProblem } from "../../../src/model/patterns.js";
import { walkSchemas } from "../../../src/model/schema-walk.js";
import { checkProject } from "../../../src/pipeline.js";
import { linearRegExp } from "../../../templates/runtime/validate.js";

const fixtures = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "../../fixtures/check");

/** Applies `fn` to every key of `cases` and compares the results with the values, all at once. */
function table<T>(fn: (name: string) => T, cases: Record<string, T>): void {
  const actual = Object.fromEntries(Object.keys(cases).map((name) => [name, fn(name)]));
  assert.equal(actual, cases);
}

test("isCamelName: only letters and digits, starting with a lower-case letter (nothing that is a path)", () => {
  table(isCamelName, {
    convert: true,
    convertCurrency: true,
    isbn13: true,
    "../../../../x/ESCAPED-lookup": false,
    "a/b": false,
    "a\\b": false,
    ".hidden": false,
    "books.json": false,
    "C:\\x": false,
    Convert: false,
    "convert-currency": false,
    "": false,
    "é": false,
    "a\u2028b": false,
  });
});

test("isDeviceName: the device names Windows reserves, in any case, and nothing else", () => {
  table(isDeviceName, {
    con: true,
    CON: true,
    prn: true,
    aux: true,
    nul: true,
    NuL: true,
    com0: true,
    com1: true,
    COM9: true,
    lpt1: true,
    lpt9: true,
    com10: false,
    console: false,
    cons: false,
    nulls: false,
    lpt: false,
  });
});

test("patternProblem: valid ECMAScript that RE2 compiles passes; what RE2 lacks is named, with a hint", () => {
  const problem = (p: string) => patternProblem(p)?.problem;
  table(problem, {
    "^(a+)+$": undefined,
    "^\\p{L}+$": undefined,
    "^[A-Z]{3}(-[0-9]{2,4})?$": undefined,
    "(?<year>[0-9]{4})": undefined,
    "\\(\\?=\\\\1[(?=]": undefined,
    "([a-": "is not a valid regular expression (unterminated character class)",
    "(a)\\1": "uses a backreference (\\1), which RE2 does not have",
    "(?<n>a)\\k<n>": "uses a backreference (\\k<n>), which RE2 does not have",
    "^(?=a)": 'uses a lookahead "(?=", which RE2 does not have',
    "x(?!a)": 'uses a lookahead "(?!", which RE2 does not have',
    "(?<=a)b": 'uses a lookbehind "(?<=", which RE2 does not have',
    "(?<!a)b": 'uses a lookbehind "(?<!", which RE2 does not have',
    "\\u00e9": "is not accepted by RE2, the linear-time engine the service tests patterns with (invalid escape sequence: `\\u`)",
    "a{1001}": "is not accepted by RE2, the linear-time engine the service tests patterns with (invalid repeat count: `{1001}`)",
  });
  assert.match(patternProblem("(a)\\1")!.fix, /^RE2 syntax: no backreferences or lookaround; rewrite/);
  assert.match(patternProblem("^(?=a)")!.fix, /^RE2 syntax: no backreferences or lookaround; rewrite/);
});

test("compileLinear compiles exactly what the generated service's linearRegExp compiles, and matches as it does", () => {
  const patterns = ["^(a+)+$", "\\p{Lu}", "(a)\\1", "(?=a)", "\\u00e9", "a{1001}", "(?<n>x)", "[[:alpha:]]", "\\z", "^.$", "a|b", "\\d{2,}"];
  const compiles = (f: () => unknown) => {
    try {
      f();
      return true;
    } catch {
      return false;
    }
  };
  for (const p of patterns) {
    assert.is(compiles(() => compileLinear(p)), compiles(() => linearRegExp(p, "u")), p);
    if (!compiles(() => compileLinear(p))) continue;
    for (const s of ["a", "aaa!", "A", "é", "", "12", "x", "😀"]) assert.is(compileLinear(p).test(s), linearRegExp(p, "u").test(s), `${p} on ${s}`);
  }
  // Linear: 41 characters against a catastrophic pattern, at once.
  const started = Date.now();
  assert.is(compileLinear("^(a+)+$").test(`${"a".repeat(41)}!`), false);
  assert.ok(Date.now() - started < 1000);
});

test("walkSchemas visits schemas only: a property named pattern, enum values and unknown keywords are not schemas", () => {
  const seen: string[] = [];
  const schema = {
    type: "object",
    properties: { pattern: { type: "string" }, list: { type: "array", items: [{ pattern: "a" }], prefixItems: [{ pattern: "b" }] } },
    patternProperties: { "^x": { pattern: "c" } },
    $defs: { d: { anyOf: [{ pattern: "d" }, { not: { pattern: "e" } }] } },
    enum: [{ pattern: "not a schema" }],
    "x-thing": { pattern: "not a schema" },
    dependencies: { a: ["b"], c: { pattern: "f" } },
  };
  walkSchemas(schema, "", (s, pointer) => {
    if (typeof s.pattern === "string") seen.push(`${pointer} ${s.pattern}`);
  });
  assert.equal(seen, [
    "/properties/list/items/0 a",
    "/properties/list/prefixItems/0 b",
    "/patternProperties/^x c",
    "/$defs/d/anyOf/0 d",
    "/$defs/d/anyOf/1/not e",
    "/dependencies/c f",
  ]);
});

test("prototype names (toString, valueOf, hasOwnProperty …) are ordinary names: check is clean, samples and examples have them as data", () => {
  const dir = path.join(fixtures, "clean-prototype-names");
  const { model, diagnostics } = checkProject(dir);
  assert.equal(diagnostics, []);
  const books = model!.resources[0]!;
  assert.ok(resourceSamples(books).bodies.length > 0, "the contract tests get sample bodies");
  // A body without the optional toString and valueOf is valid: they are not read from Object.prototype.
  assert.ok(isValidSample(bodySchemaOf(books), { title: "Dune" }));
  assert.not.ok(isValidSample(bodySchemaOf(books), { title: "Dune", toString: 1 }));
  const example = exampleInstance(model!, books);
  for (const [k, v] of Object.entries(example)) assert.not.type(v, "function", `example field ${k}`);
  assert.is(typeof example.valueOf, "number");
  // With no sample body at all (a title no sample satisfies), the example leaves the fields out.
  const impossible = { ...books, fields: books.fields.map((f) => (f.name === "title" ? { ...f, schema: { type: "string", minLength: 5, maxLength: 2 } } : f)) };
  const bare = exampleInstance(model!, impossible);
  assert.equal(Object.keys(bare), ["meta", "id", "createdAt", "modifiedAt"]);
  assert.equal(model!.actions[0]!.params.map((p) => p.name), ["toString", "valueOf"]);
  assert.is(model!.errors.find((e) => e.code === 1001)!.key, "toLocaleString");
});

test("property names with quotes, backslashes, control characters and U+2028 are allowed (and unique): emitters quote them", () => {
  // They never become file names or bare identifiers; where a name would (collections, actions,
  // collection links), it must be a URL-safe name: see unsafe-collection-link and unsafe-action-path.
  // fields= cannot write them, which is a warning each, and nothing else.
  const { model, diagnostics } = checkProject(path.join(fixtures, "unselectable-quoted-property-names"));
  assert.equal(
    diagnostics.map((d) => `${d.severity} ${d.code} ${d.pointer}`),
    ['say "hi"', "back\\slash", "tab\tand\u0001ctl", "line\u2028sep\u2029para", "*~1 end", "${x}"].map((n) => `warning unselectable-name /properties/${n}`),
  );
  const books = model!.resources[0]!;
  assert.equal(books.unique, ['say "hi"', "back\\slash", "tab\tand\u0001ctl", "line\u2028sep\u2029para", "*/ end"]);
  for (const name of books.unique) {
    const field = books.fields.find((f) => f.name === name)!;
    assert.is(JSON.parse(field.propertyKey), name, `the key of ${JSON.stringify(name)} is a quoted string`);
  }
  assert.equal(model!.actions[0]!.params.map((p) => JSON.parse(p.propertyKey)), ['a"b', "c\\d"]);
});

test("derived error keys never collide, also in case, and never reach the prototype; keys written as key are kept", () => {
  const written = checkProject(path.join(fixtures, "name-collision-error-key")).model!;
  assert.equal(written.errors.filter((e) => !e.builtin).map((e) => e.key), ["notfound", "onLoan", "onloan"]);
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), "resourcery-keys-"));
  try {
    fs.copyFileSync(path.join(fixtures, "name-collision-error-key", "book.json"), path.join(dir, "book.json"));
    const titles = ["Not found", "Constructor", "Notfound", "Shelf missing", "Shelf Missing", "Taken"];
    const errors = titles.map((title, i) => ({ code: 1001 + i, status: 409, title, message: title, ...(title === "Taken" ? { key: "shelfmissing2" } : {}) }));
    const service = { name: "shop-service", vendor: "acme", version: 1, baseUrl: "https://api.example.com/v1", errorDocsUrl: "https://docs.example.com/errors", resources: ["book.json"], errors };
    fs.writeFileSync(path.join(dir, "service.json"), JSON.stringify(service));
    const { model, diagnostics } = checkProject(dir);
    assert.equal(diagnostics, []);
    const keys = model!.errors.filter((e) => !e.builtin).map((e) => e.key);
    assert.equal(keys, ["notFound1001", "error1002", "notfound1003", "shelfMissing", "shelfMissing1005", "shelfmissing2"]);
  } finally {
    fs.rmSync(dir, { recursive: true, force: true });
  }
});

test.run();
