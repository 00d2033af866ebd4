import { test } from "uvu";
import * as assert from "uvu/assert";
import { locate, positionAt } from "../../../src/diagnostics/locate.js";
import { parseJson } from "../../../src/load/parse-json.js";
import { pointerOf, tokensOf } from "../../../src/diagnostics/diagnostic.js";

const text = '{\n  "a": { "b/c": [10, 20] },\n  "name": "x"\n}\n';
const [doc] = parseJson("f.json", text);

test("positionAt counts 1-based lines and columns", () => {
  assert.equal(positionAt(text, 0), { line: 1, column: 1 });
  assert.equal(positionAt(text, text.indexOf('"name"')), { line: 3, column: 3 });
});

test("locate points at a value or at its key", () => {
  assert.equal(locate(doc, { file: "f.json", pointer: "/name" }), { line: 3, column: 11 });
  assert.equal(locate(doc, { file: "f.json", pointer: "/name", kind: "key" }), { line: 3, column: 3 });
  assert.equal(locate(doc, { file: "f.json", pointer: "/a/b~1c/1" }), { line: 2, column: 22 });
});

test("a pointer deeper than the document points at its deepest existing ancestor", () => {
  assert.equal(locate(doc, { file: "f.json", pointer: "/a/missing/deeper" }), { line: 2, column: 8 });
});

test("a raw offset wins over the pointer", () => {
  assert.equal(locate(doc, { file: "f.json", pointer: "", offset: text.indexOf("20") }), { line: 2, column: 22 });
});

test("pointers escape ~ and / both ways", () => {
  assert.is(pointerOf(["a/b", "c~d", 0]), "/a~1b/c~0d/0");
  assert.equal(tokensOf("/a~1b/c~0d/0"), ["a/b", "c~d", "0"]);
  assert.equal(tokensOf(""), []);
});

test("parseJson keeps __proto__ as data and reports syntax errors with offsets", () => {
  const [poisoned, none] = parseJson("p.json", '{"__proto__": {"polluted": true}}');
  assert.equal(none, []);
  assert.is(Object.getPrototypeOf(poisoned.value), Object.prototype);
  assert.ok(Object.prototype.hasOwnProperty.call(poisoned.value, "__proto__"));
  assert.is(({} as Record<string, unknown>).polluted, undefined);
  const [, errors] = parseJson("bad.json", '{"a": 1,}');
  assert.is(errors.length, 1);
  assert.is(errors[0]!.code, "json-syntax");
  assert.is(errors[0]!.offset, 7, "a trailing comma is reported at the comma");
});

test("parseJson: a key repeated in any object is found, whatever colons and quotes the strings hold", () => {
  const tricky = '{"a": "x: \\"y\\": z", "b": [{"c": ":"}, {"d": 1, "e": {"f": "\\\\"}}], "g": {}}';
  const [ok, none] = parseJson("ok.json", tricky);
  assert.equal(none, []);
  assert.equal(ok.value, JSON.parse(tricky));
  for (const [name, dup, key] of [
    ["top.json", '{"a": 1, "b": ":", "a": 2}', "a"],
    ["nested.json", '{"a": [{"x": "\\"", "y": 1, "x": 2}]}', "x"],
    ["string-colons.json", '{"k": "a:b:c", "m": {"n": 1, "n": "::"}}', "n"],
  ] as const) {
    const [doc, errors] = parseJson(name, dup);
    assert.is(doc.value, undefined, name);
    assert.is(errors.length, 1, name);
    assert.match(errors[0]!.message, `duplicate key "${key}"`);
  }
});

test("parseJson: the position tree of a document read natively is there when a diagnostic asks", () => {
  const [fresh] = parseJson("f.json", text);
  assert.equal(fresh.value, { a: { "b/c": [10, 20] }, name: "x" });
  assert.equal(locate(fresh, { file: "f.json", pointer: "/a/b~1c/1" }), { line: 2, column: 22 });
  assert.is(fresh.tree, fresh.tree, "built once");
});

test.run();
