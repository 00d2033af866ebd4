/** The memo of incremental generation (emit/memo.ts): found entries are taken, made ones kept, and only a memo of the same generator is read. */
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { test } from "uvu";
import * as assert from "uvu/assert";
import { keyOf } from "../../../src/emit/keys.js";
import { Memo, MEMO_FILE } from "../../../src/emit/memo.js";

const tmp = fs.mkdtempSync(path.join(os.tmpdir(), "resourcery-memo-"));
test.after(() => fs.rmSync(tmp, { recursive: true, force: true }));

test("a result is computed once, saved, and found by the next generation of the same generator only", () => {
  let computed = 0;
  const first = new Memo();
  assert.equal(first.get("samples", [{ a: 1 }], () => (computed++, { bodies: [1, 2] })), { bodies: [1, 2] });
  assert.equal(first.get("samples", [{ a: 1 }], () => (computed++, { bodies: [3] })), { bodies: [1, 2] });
  assert.is(computed, 1);
  first.save(tmp, "gen-1");
  const again = Memo.read(tmp, "gen-1");
  assert.equal(again.get("samples", [{ a: 1 }], () => (computed++, { bodies: [9] })), { bodies: [1, 2] });
  assert.is(computed, 1);
  assert.ok(again.has(keyOf("samples", { a: 1 })));
  assert.not.ok(again.has(keyOf("samples", { a: 2 })), "other parts, another key");
  assert.not.ok(again.has(keyOf("other kind", { a: 1 })), "another kind, another key");
  const other = Memo.read(tmp, "gen-2");
  assert.not.ok(other.has(keyOf("samples", { a: 1 })), "another generator's memo is not read");
});

test("entries no generation asks for are dropped; a memo that changed nothing is not written again", () => {
  const memo = new Memo();
  memo.set(keyOf("x", 1), "one");
  memo.set(keyOf("x", 2), "two");
  memo.save(tmp, "gen");
  const next = Memo.read(tmp, "gen");
  next.keep(keyOf("x", 1));
  next.save(tmp, "gen");
  const third = Memo.read(tmp, "gen");
  assert.ok(third.has(keyOf("x", 1)));
  assert.not.ok(third.has(keyOf("x", 2)));
  const before = fs.statSync(path.join(tmp, MEMO_FILE)).mtimeMs;
  third.keep(keyOf("x", 1));
  third.save(tmp, "gen");
  assert.is(fs.statSync(path.join(tmp, MEMO_FILE)).mtimeMs, before);
});

test("what a worker's memo kept and made reaches the memo the main thread saves (entries, take)", () => {
  const found = new Memo();
  found.set(keyOf("x", 1), "one");
  found.set(keyOf("x", 2), "two");
  found.save(tmp, "gen");
  const worker = Memo.read(tmp, "gen");
  assert.is(worker.get("x", [1], () => "again"), "one", "found, not computed");
  assert.is(worker.get("x", [3], () => "three"), "three");
  const entries = JSON.parse(JSON.stringify(worker.entries())) as ReturnType<Memo["entries"]>;
  assert.equal(entries.kept, [keyOf("x", 1)]);
  assert.equal(entries.made, [[keyOf("x", 3), "three"]]);
  const main = Memo.read(tmp, "gen");
  main.take(entries);
  main.save(tmp, "gen");
  const next = Memo.read(tmp, "gen");
  assert.ok(next.has(keyOf("x", 1)), "a kept entry is saved");
  assert.ok(next.has(keyOf("x", 3)), "a made entry is saved");
  assert.not.ok(next.has(keyOf("x", 2)), "an entry neither thread asked for is dropped");
});

test("the same entries made in another order are saved as the same bytes (the docs worker's arrive at any moment)", () => {
  const texts = [[1, 2, 3], [3, 1, 2]].map((order) => {
    const memo = new Memo();
    for (const n of order) memo.set(keyOf("x", n), n);
    memo.save(tmp, "gen");
    return fs.readFileSync(path.join(tmp, MEMO_FILE), "utf8");
  });
  assert.is(texts[0], texts[1]);
});

test("a corrupt or foreign memo file is an empty memo, never an error", () => {
  for (const text of ["{", "null", '{"generator":"gen","entries":null}', '"text"', "[]"]) {
    fs.writeFileSync(path.join(tmp, MEMO_FILE), text);
    const memo = Memo.read(tmp, "gen");
    assert.is(memo.get("k", [], () => "computed"), "computed", text);
  }
});

test("only the head of a memo file is read until an entry is asked for: which generator wrote it decides `matched`, a damaged body is an empty memo", () => {
  const file = path.join(tmp, MEMO_FILE);
  const memo = new Memo();
  memo.set(keyOf("x", 1), "one");
  memo.save(tmp, "gen");
  const whole = fs.readFileSync(file, "utf8");
  // The body cut short after Memo.read: the entries are read when first asked for, and found damaged then.
  const lazy = Memo.read(tmp, "gen");
  fs.writeFileSync(file, whole.slice(0, whole.length - 5));
  assert.ok(lazy.matched, "the head names this generator");
  assert.is(lazy.get("x", [1], () => "computed"), "computed", "a damaged body: nothing found");
  // The same read before the damage finds the entry; another generator's memo is not matched and finds nothing.
  fs.writeFileSync(file, whole);
  assert.is(Memo.read(tmp, "gen").find("x", [1]), "one");
  const foreign = Memo.read(tmp, "other");
  assert.not.ok(foreign.matched);
  assert.is(foreign.find("x", [1]), undefined);
  // A file in another layout is read whole, as before.
  fs.writeFileSync(file, JSON.stringify({ entries: { [keyOf("x", 1)]: "one" }, generator: "gen" }));
  const reordered = Memo.read(tmp, "gen");
  assert.ok(reordered.matched);
  assert.is(reordered.find("x", [1]), "one");
});

test.run();
