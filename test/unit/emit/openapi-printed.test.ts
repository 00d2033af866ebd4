/**
 * openapi.json as printed (emit/docs/openapi.ts): the document is printed entry by entry, byte for byte
 * JSON.stringify(doc, null, 2) + "\n"; a regeneration takes the path items of each resource whose operations
 * are made of what they were last time (and the components they refer to) from the last file as printed, and
 * gives the same bytes as building everything. Over the examples, the versions fixture and every clean case of
 * the check corpus (links, stored lists, id forms, actions, older versions, deprecated ones).
 */
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { test } from "uvu";
import * as assert from "uvu/assert";
import { openApiFiles, openApiOf, printedEntries } from "../../../src/emit/docs/openapi.js";
import { Memo, useMemo } from "../../../src/emit/memo.js";
import type { Model } from "../../../src/model/types.js";
import { modelOfVersion } from "../../../src/model/version-model.js";
import { checkProject } from "../../../src/pipeline.js";
import { repoRoot } from "../../helpers/cli.js";

type Json = Record<string, any>;

function modelOf(dir: string): Model {
  const { model, diagnostics } = checkProject(dir);
  const errors = diagnostics.filter((d) => d.severity === "error");
  if (!model || errors.length > 0) throw new Error(`${dir} does not check: ${errors.map((d) => d.message).join("; ")}`);
  return model;
}

const corpus = path.join(repoRoot, "test/fixtures/check");
const cases = [
  path.join(repoRoot, "examples/library"),
  path.join(repoRoot, "examples/directory"),
  path.join(repoRoot, "test/fixtures/versions-docs"),
  ...fs
    .readdirSync(corpus)
    .filter((d) => d.startsWith("clean-"))
    .map((d) => path.join(corpus, d)),
];
const tmp = fs.mkdtempSync(path.join(os.tmpdir(), "resourcery-openapi-printed-"));
test.after(() => fs.rmSync(tmp, { recursive: true, force: true }));

/** What a memo holds of openapi.json's path items (a group of operations: its paths and effects). */
const isPathItems = (v: unknown): boolean => v !== null && typeof v === "object" && "paths" in v && "effects" in v;

/** Each openapi file of `model` as bytes, built with `memo` and, when given, the last generation's files. */
function build(model: Model, memo: Memo, previous?: ReadonlyMap<string, Buffer>): Map<string, Buffer> {
  useMemo(memo);
  try {
    const files = openApiFiles(model, previous && ((p) => previous.get(p))).filter((f) => f.path.startsWith("openapi"));
    return new Map(files.map((f) => [f.path, Buffer.from(f.bytes!())]));
  } finally {
    useMemo(new Memo());
  }
}

/** A memo as the next generation reads it: what this one used and made. */
function nextMemo(memo: Memo): Memo {
  const { kept, made } = memo.entries();
  const entries = new Map<string, unknown>(made as [string, unknown][]);
  for (const key of kept) entries.set(key, memo.findKey(key));
  return new Memo(new Map(JSON.parse(JSON.stringify([...entries])) as [string, unknown][]), true);
}

test("printed piece by piece, the document is JSON.stringify's, as bytes and as text; its entries are found again as printed", () => {
  let entries = 0;
  for (const dir of cases) {
    const model = modelOf(dir);
    const files = openApiFiles(model).filter((f) => f.path === "openapi.json");
    const expected = JSON.stringify(openApiOf(modelOfVersion(model, model.service.version)), null, 2) + "\n";
    assert.is(files[0]!.render(), expected, dir);
    assert.ok(Buffer.from(files[0]!.bytes!()).equals(Buffer.from(expected)), dir);
    const doc = JSON.parse(expected) as Json;
    const found = printedEntries(Buffer.from(expected));
    const want = [...Object.keys(doc.paths).map((p) => `paths\n${p}`), ...["responses", "requestBodies", "examples"].flatMap((k) => Object.keys(doc.components[k] ?? {}).map((n) => `${k}\n${n}`))];
    assert.equal([...found.keys()].sort(), want.sort(), dir);
    for (const [key, printed] of found) {
      const [map, name] = key.split("\n") as [string, string];
      assert.equal(printed.json(), map === "paths" ? doc.paths[name] : doc.components[map][name], `${dir}: ${key}`);
    }
    entries += found.size;
  }
  assert.ok(entries > 500, `entries were compared (${entries})`);
  // Not a document of this layout: no entries (the regeneration then builds everything).
  assert.is(printedEntries(Buffer.from('{"paths":{"/a":{}}}')).size, 0);
  assert.is(printedEntries(Buffer.from("{\n  \"paths\": {\n    \"/a\": {\n")).size, 0);
});

test("a regeneration of the same model takes every group of operations as printed, and gives the same bytes", () => {
  let groups = 0;
  for (const dir of cases) {
    const model = modelOf(dir);
    const first = new Memo();
    const printed = build(model, first);
    const memo = nextMemo(first);
    const again = build(model, memo, printed);
    assert.equal([...again.keys()], [...printed.keys()], dir);
    for (const [file, bytes] of printed) assert.ok(again.get(file)!.equals(bytes), `${dir}: ${file}`);
    const { made, kept } = memo.entries();
    assert.is(made.filter(([, v]) => isPathItems(v)).length, 0, `${dir}: nothing built again`);
    groups += kept.filter((k) => isPathItems(memo.findKey(k))).length;
  }
  assert.ok(groups > cases.length, `groups were taken as printed (${groups})`);
});

test("after an edit of one resource, only its operations are built again, and the bytes are a full build's; a previous file cut short is not used", () => {
  const dir = path.join(tmp, "library");
  fs.cpSync(path.join(repoRoot, "examples/library"), dir, { recursive: true });
  const before = modelOf(dir);
  const first = new Memo();
  const printed = build(before, first);
  // An author's name described anew: the authors' operations change (their schemas), not the books' (which
  // show an author as a link only); the authors' sub-collection of books is the authors' group.
  const authorFile = path.join(dir, "resources/author.json");
  const author = JSON.parse(fs.readFileSync(authorFile, "utf8")) as Json;
  author.properties.name.description = "Edited for the test.";
  fs.writeFileSync(authorFile, JSON.stringify(author, null, 2));
  const after = modelOf(dir);
  const full = build(after, new Memo());
  const memo = nextMemo(first);
  const incremental = build(after, memo, printed);
  for (const [file, bytes] of full) assert.ok(incremental.get(file)!.equals(bytes), file);
  const made = memo.entries().made.filter(([, v]) => isPathItems(v));
  assert.is(made.length, 1, "one group built again");
  assert.equal((made[0]![1] as { paths: string[] }).paths, ["/authors", "/authors/{id}", "/authors/{id}/books"], "the authors' group");
  // A previous file cut short (a write that did not finish) gives a full build's bytes: no entry is taken from it.
  const truncated = new Map([...printed].map(([p, b]) => [p, b.subarray(0, b.length >> 1)]));
  const fromTruncated = build(after, nextMemo(first), truncated);
  for (const [file, bytes] of full) assert.ok(fromTruncated.get(file)!.equals(bytes), `truncated: ${file}`);
});

test.run();
