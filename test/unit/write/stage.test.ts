/**
 * A first generation writes its files into a staging folder as they are emitted (the docs worker's
 * pages as they arrive) and renames it to OUT at the end: the same files as a generation planned and
 * written at the end, and on any failure no OUT and no staging folder.
 */
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { test } from "uvu";
import * as assert from "uvu/assert";
import { generate } from "../../../src/generate.js";
import { hashOf } from "../../../src/write/manifest.js";
import { FreshStage, freshTemp } from "../../../src/write/stage.js";
import { repoRoot } from "../../helpers/cli.js";

const tmp = fs.mkdtempSync(path.join(os.tmpdir(), "resourcery-stage-"));
const defs = path.join(repoRoot, "examples/library");
test.after(() => fs.rmSync(tmp, { recursive: true, force: true }));

/** Every file under `dir` with its contents, bookkeeping left out. */
function tree(dir: string): Map<string, string> {
  const out = new Map<string, string>();
  for (const entry of fs.readdirSync(dir, { recursive: true, withFileTypes: true })) {
    if (!entry.isFile()) continue;
    const rel = path.relative(dir, path.join(entry.parentPath, entry.name));
    if (rel.startsWith(".resourcery")) continue;
    out.set(rel, fs.readFileSync(path.join(dir, rel), "utf8"));
  }
  return out;
}

test("a staged first generation writes what a generation into an empty folder writes, manifest and stat cache included", async () => {
  const fresh = path.join(tmp, "fresh");
  const empty = path.join(tmp, "empty");
  fs.mkdirSync(empty); // an existing folder: planned and written at the end, nothing staged
  const a = await generate(defs, { out: fresh });
  const b = await generate(defs, { out: empty });
  assert.ok(a.written && b.written);
  assert.equal(tree(fresh), tree(empty));
  assert.ok(tree(fresh).size > 50);
  assert.not.ok(fs.existsSync(freshTemp(fresh)), "the staging folder became OUT");
  const manifest = (dir: string) => JSON.parse(fs.readFileSync(path.join(dir, ".resourcery/manifest.json"), "utf8"));
  assert.equal(manifest(fresh), manifest(empty));
  for (const [file, entry] of Object.entries(manifest(fresh).files as Record<string, { hash: string }>)) {
    assert.is(entry.hash, hashOf(fs.readFileSync(path.join(fresh, file))), file);
  }
  const stats = JSON.parse(fs.readFileSync(path.join(fresh, ".resourcery/stat-cache.json"), "utf8")) as Record<string, [number, number, string?]>;
  assert.ok(Object.keys(stats).some((f) => f.startsWith("docs/")), "docs pages are in the stat cache");
  // Generated files by their path in OUT; the definition files read, by their absolute path, with their hash.
  const sources = Object.keys(stats).filter((f) => path.isAbsolute(f));
  assert.equal(sources.sort(), (manifest(fresh).sources as string[]).map((f) => path.resolve(defs, f)).sort());
  for (const [file, [size, mtime, hash]] of Object.entries(stats)) {
    const st = fs.statSync(path.isAbsolute(file) ? file : path.join(fresh, file));
    assert.equal([st.size, st.mtimeMs], [size, mtime], file);
    if (path.isAbsolute(file)) assert.is(hash, hashOf(fs.readFileSync(file)), file);
  }
  const again = await generate(defs, { out: fresh });
  assert.not.ok(again.written, "up to date at once");
});

test("a failed write while staging leaves no OUT and no staging folder, whichever thread's file it was", async () => {
  const original = FreshStage.prototype.write;
  for (const victim of ["docs/openapi.json", "docs/resources/books.html", "src/generated/spec.ts"]) {
    const out = path.join(tmp, `failed-${path.basename(victim)}`);
    FreshStage.prototype.write = function (this: FreshStage, file, owner, contents) {
      if (file === victim) throw Object.assign(new Error(`ENOSPC: no space left on device, write '${file}'`), { code: "ENOSPC" });
      return original.call(this, file, owner, contents);
    };
    try {
      await generate(defs, { out }).then(
        () => assert.unreachable("generate must fail"),
        (error: Error) => assert.match(error.message, /ENOSPC/),
      );
    } finally {
      FreshStage.prototype.write = original;
    }
    if (victim.startsWith("src/")) {
      // This thread failed while the docs worker still rendered: none of its pages may land later.
      for (let i = 0; i < 30 && !fs.existsSync(freshTemp(out)); i++) await new Promise((r) => setTimeout(r, 100));
    }
    assert.not.ok(fs.existsSync(out), `${victim}: no OUT`);
    assert.not.ok(fs.existsSync(freshTemp(out)), `${victim}: no staging folder`);
  }
});

test("a staging folder left by a killed run is replaced; OUT created meanwhile by something else is left alone", async () => {
  const out = path.join(tmp, "leftover");
  fs.mkdirSync(path.join(freshTemp(out), "docs"), { recursive: true });
  fs.writeFileSync(path.join(freshTemp(out), "docs", "stale.html"), "from a killed run");
  const r = await generate(defs, { out });
  assert.ok(r.written);
  assert.not.ok(fs.existsSync(path.join(out, "docs/stale.html")));
  assert.not.ok(fs.existsSync(freshTemp(out)));

  const raced = path.join(tmp, "raced");
  const original = FreshStage.prototype.write;
  FreshStage.prototype.write = function (this: FreshStage, file, owner, contents) {
    if (file === "src/generated/spec.ts") {
      fs.mkdirSync(raced, { recursive: true });
      fs.writeFileSync(path.join(raced, "theirs.txt"), "someone else's");
    }
    return original.call(this, file, owner, contents);
  };
  try {
    await generate(defs, { out: raced }).then(
      () => assert.unreachable("generate must refuse"),
      (error: Error) => assert.match(error.message, /was created by something else/),
    );
  } finally {
    FreshStage.prototype.write = original;
  }
  assert.equal([...tree(raced).keys()], ["theirs.txt"]);
  assert.not.ok(fs.existsSync(freshTemp(raced)));
});

test.run();
