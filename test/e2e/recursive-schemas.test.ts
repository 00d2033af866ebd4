/**
 * Recursive shared schemas (CONTRACT §2: shared schemas stay shared), over real HTTP against a generated,
 * built and started package: a tree whose children are trees and a JSON value whose items and properties are
 * JSON values generate (the docs name the schema where it recurs), type-check, and validate bodies at any
 * depth the body limit allows; a schema that refers to itself on the same value (`anyOf [itself, …]`) is
 * refused by `check` (schema-loop) instead of overflowing the validator's stack at the first request.
 */
import fs from "node:fs";
import path from "node:path";
import { test } from "uvu";
import * as assert from "uvu/assert";
import { runCli } from "../helpers/cli.js";
import { serve, serviceJson, writeDefinitions, type Served } from "../helpers/served.js";

const TREE = { type: "object", required: ["label"], properties: { label: { type: "string" }, children: { type: "array", items: { $ref: "#" } } } };
const JSON_VALUE = {
  anyOf: [{ type: ["string", "number", "boolean", "null"] }, { type: "array", items: { $ref: "#" } }, { type: "object", additionalProperties: { $ref: "#" } }],
};
const OUTLINE = {
  title: "Outline",
  type: "object",
  "x-collection": "outlines",
  required: ["root"],
  properties: { root: { $ref: "../shared/tree.json" }, settings: { $ref: "../shared/json.json" } },
};

/** A tree `depth` levels deep, its deepest node's label `leaf`. */
function tree(depth: number, leaf: unknown = "leaf"): unknown {
  let node: unknown = { label: leaf };
  for (let i = 1; i < depth; i++) node = { label: `level ${depth - i}`, children: [node] };
  return node;
}

let s: Served;

test.before(async () => {
  s = await serve("recursive", { "service.json": serviceJson("outlines"), "resources/outline.json": OUTLINE, "shared/tree.json": TREE, "shared/json.json": JSON_VALUE });
});
test.after(async () => {
  await s?.close();
});

test("recursive bodies are stored and read back whole, at any depth the body limit allows", async () => {
  const settings = { theme: "dark", sizes: [1, 2, [3, { deep: null }]], flags: { a: true } };
  const created = await s.call("POST", "/outlines", { root: tree(20), settings });
  assert.is(created.status, 201, JSON.stringify(created.body));
  const read = await s.call("GET", `/outlines/${created.body.id}`);
  assert.is(read.status, 200);
  assert.equal(read.body.root, tree(20));
  assert.equal(read.body.settings, settings);
});

test("a wrong value deep inside a recursive body is a 400 naming where it is", async () => {
  const wrong = await s.call("POST", "/outlines", { root: tree(5, 42) });
  assert.is(wrong.status, 400, JSON.stringify(wrong.body));
  assert.is(wrong.body.property, "root.children.0.children.0.children.0.children.0.label", JSON.stringify(wrong.body));
  const notJson = await s.call("POST", "/outlines", { root: { label: "x", children: "none" } });
  assert.is(notJson.status, 400);
  assert.is(notJson.body.property, "root.children");
});

test("a body nested past the limit is answered bodyTooDeep, never a 500", async () => {
  const deep = await s.call("POST", "/outlines", { root: tree(40) });
  assert.is(deep.status, 400, JSON.stringify(deep.body).slice(0, 300));
  assert.is(deep.body.code, 40012, JSON.stringify(deep.body).slice(0, 300));
});

test("the types and the docs name the recursive schema where it recurs", () => {
  const types = fs.readFileSync(path.join(s.out, "client/types.ts"), "utf8");
  assert.match(types, /children\?: Tree\[\]/);
  const page = fs.readFileSync(path.join(s.out, "docs/resources/outlines.md"), "utf8");
  assert.match(page, /array of Json/);
});

test("a schema that refers to itself on the same value is refused by check and generate, with the loop's place", () => {
  const { tmp, defs } = writeDefinitions("schema-loop", {
    "service.json": serviceJson("loops"),
    "resources/outline.json": { ...OUTLINE, properties: { ...OUTLINE.properties, formula: { $ref: "../shared/expression.json" } } },
    "shared/tree.json": TREE,
    "shared/json.json": JSON_VALUE,
    "shared/expression.json": { anyOf: [{ $ref: "#" }, { type: "string" }] },
  });
  try {
    const r = runCli(["check", defs]);
    assert.is(r.code, 1, r.stdout + r.stderr);
    assert.match(r.stdout + r.stderr, /expression\.json:\d+:\d+ {2}error {2}schema-loop {2}.*refers to itself through anyOf\/0/);
    assert.not.match(r.stdout + r.stderr, /internal error|RangeError|at .*\.js:\d+/);
    // generate renders the docs from the model while the lint runs: the loop must not crash it either.
    const out = path.join(tmp, "service");
    const g = runCli(["generate", defs, "--out", out]);
    assert.is(g.code, 1, g.stdout + g.stderr);
    assert.match(g.stdout + g.stderr, /schema-loop/);
    assert.not.match(g.stdout + g.stderr, /internal error|RangeError|at .*\.js:\d+/);
    assert.not.ok(fs.existsSync(out), "a refused generate writes nothing");
  } finally {
    fs.rmSync(tmp, { recursive: true, force: true });
  }
});

test.run();
