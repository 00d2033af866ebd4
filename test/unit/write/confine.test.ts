/**
 * Every path the writer touches stays inside OUT: unsafe emitted paths are a bug refused before
 * anything is staged, a symbolic link on the way is refused before anything is written, and a
 * manifest or journal that names a path outside OUT is not followed.
 */
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { test } from "uvu";
import * as assert from "uvu/assert";
import { InternalError } from "../../../src/diagnostics/internal-error.js";
import { commitPlan, recover } from "../../../src/write/commit.js";
import { assertSafePaths, confined, makeDirs, unsafeReason } from "../../../src/write/confine.js";
import { hashOf, readManifest } from "../../../src/write/manifest.js";
import { OutError } from "../../../src/write/out-error.js";
import { planWrite } from "../../../src/write/plan.js";
import { FreshStage, freshTemp } from "../../../src/write/stage.js";

const tmp = fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), "resourcery-confine-")));
test.after(() => fs.rmSync(tmp, { recursive: true, force: true }));

/** A fresh folder under tmp. */
function folder(name: string): string {
  const dir = path.join(tmp, name);
  fs.mkdirSync(dir, { recursive: true });
  return dir;
}

const throwsA = (fn: () => unknown, type: Function, pattern: RegExp) => {
  try {
    fn();
  } catch (error) {
    assert.instance(error, type);
    assert.match((error as Error).message, pattern);
    return;
  }
  assert.unreachable(`expected ${type.name} matching ${pattern}`);
};

test("unsafe relative paths are named as such; the paths a package has are not", () => {
  for (const bad of ["", "../x", "src/actions/../../../../tmp/ESCAPED-lookup.ts", "/etc/passwd", "C:\\x", "C:x", "a\\b", "a\u0000b", "a\nb", "con", "src/actions/nul.ts", "COM1.txt", "lpt9", "a//b", "./a", "a/.", "a/b ", "a/b.", "a|b", `${"x".repeat(256)}.ts`]) {
    assert.type(unsafeReason(bad), "string", JSON.stringify(bad));
  }
  for (const good of ["src/generated/spec.ts", ".gitignore", "docs/40000/index.html", "src/actions/convert.ts", "docs/assets/search-index.js", "console.ts", "src/hooks/nullable.ts"]) {
    assert.is(unsafeReason(good), undefined, good);
  }
});

test("two emitted paths that are one file on a case-insensitive disk are a bug", () => {
  throwsA(() => assertSafePaths(["src/actions/convert.ts", "src/actions/Convert.ts"]), InternalError, /case-insensitive/);
  throwsA(() => assertSafePaths(["src/actions/../x.ts"]), InternalError, /"\.\." segment/);
  assertSafePaths(["a/b.ts", "a/c.ts"]);
});

test("confined refuses a symbolic link on the way and at the end; makeDirs never creates through one", () => {
  const out = folder("confined");
  const elsewhere = folder("elsewhere");
  fs.mkdirSync(path.join(out, "src"));
  fs.symlinkSync(elsewhere, path.join(out, "src/generated"));
  throwsA(() => confined(out, "src/generated/spec.ts"), OutError, /src\/generated .*symbolic link/);
  throwsA(() => makeDirs(out, "src/generated/runtime"), OutError, /symbolic link/);
  fs.symlinkSync(path.join(elsewhere, "x.ts"), path.join(out, "src/x.ts"));
  throwsA(() => confined(out, "src/x.ts"), OutError, /symbolic link/);
  fs.writeFileSync(path.join(out, "file"), "");
  throwsA(() => makeDirs(out, "file/sub"), OutError, /is a file where resourcery needs a folder/);
  assert.is(confined(out, "src/new/deep.ts"), path.join(out, "src/new/deep.ts"), "missing components are fine");
  assert.equal(fs.readdirSync(elsewhere), [], "nothing was created in the link's target");
});

test("an unsafe emitted path is refused before anything is staged or written", () => {
  const out = folder("escape/out");
  fs.writeFileSync(path.join(out, "kept.txt"), "mine");
  const files = [
    { path: "src/generated/spec.ts", contents: "x", owner: "generated" as const },
    { path: "src/actions/../../../ESCAPED-lookup.ts", contents: "x", owner: "user" as const },
  ];
  throwsA(() => planWrite(out, files, undefined, false), InternalError, /ESCAPED-lookup/);
  const fresh = path.join(tmp, "escape/fresh");
  const stage = new FreshStage(fresh);
  throwsA(() => stage.write("../../ESCAPED.ts", "user", "x"), InternalError, /"\.\." segment/);
  stage.discard();
  assert.equal(fs.readdirSync(path.join(tmp, "escape")).sort(), ["out"]);
  assert.equal(fs.readdirSync(out), ["kept.txt"]);
  assert.not.ok(fs.existsSync(path.join(tmp, "ESCAPED-lookup.ts")));
  assert.not.ok(fs.existsSync(freshTemp(fresh)));
});

test("a generated folder replaced by a symbolic link: planned and committed writes are refused, nothing written", () => {
  const out = folder("linked");
  const elsewhere = folder("linked-target");
  const old = { path: "src/generated/spec.ts", contents: "old", owner: "generated" as const };
  commitPlan(out, planWrite(out, [old], undefined, false), { generator: "test" });
  fs.rmSync(path.join(out, "src/generated"), { recursive: true });
  fs.symlinkSync(elsewhere, path.join(out, "src/generated"));
  const next = [{ path: "src/generated/spec.ts", contents: "new", owner: "generated" as const }, { path: "src/generated/types.ts", contents: "t", owner: "generated" as const }];
  throwsA(() => planWrite(out, next, readManifest(out), true), OutError, /refusing to write through .*src\/generated/);
  // commitPlan checks on its own too (a plan made before the link appeared).
  const before = fs.readFileSync(path.join(out, ".resourcery/manifest.json"), "utf8");
  const plan = { steps: next.map((file) => ({ kind: "create" as const, file })), conflicts: [] };
  throwsA(() => commitPlan(out, plan, { generator: "test" }), OutError, /symbolic link/);
  assert.equal(fs.readdirSync(elsewhere), [], "nothing written through the link");
  assert.is(fs.readFileSync(path.join(out, ".resourcery/manifest.json"), "utf8"), before);
  assert.not.ok(fs.existsSync(path.join(out, ".resourcery/staging")));
});

test("a manifest naming a path outside OUT is not taken; a journal naming one is refused", () => {
  const out = folder("tampered/out");
  const victim = path.join(tmp, "tampered/victim.txt");
  fs.writeFileSync(victim, "precious");
  fs.mkdirSync(path.join(out, ".resourcery"));
  const files = { "../victim.txt": { hash: hashOf("precious"), owner: "generated" } };
  fs.writeFileSync(path.join(out, ".resourcery/manifest.json"), JSON.stringify({ version: 1, generator: "x", files }));
  assert.is(readManifest(out), undefined);
  fs.writeFileSync(path.join(out, ".resourcery/journal.json"), JSON.stringify({ moves: [], deletes: ["../victim.txt"], manifest: { version: 1, generator: "x", files: {} } }));
  throwsA(() => recover(out), OutError, /names a path outside it/);
  fs.writeFileSync(path.join(out, ".resourcery/journal.json"), JSON.stringify({ moves: [["../../victim.txt", "x"]], deletes: [], manifest: { version: 1, generator: "x", files: {} } }));
  throwsA(() => recover(out), OutError, /names a path outside it/);
  assert.is(fs.readFileSync(victim, "utf8"), "precious");
});

test("a symbolic link as OUT/.resourcery is refused, not written through", () => {
  const out = folder("state-link/out");
  const elsewhere = folder("state-link/elsewhere");
  fs.symlinkSync(elsewhere, path.join(out, ".resourcery"));
  const plan = { steps: [{ kind: "create" as const, file: { path: "a.txt", contents: "a", owner: "generated" as const } }], conflicts: [] };
  throwsA(() => commitPlan(out, plan, { generator: "test" }), OutError, /\.resourcery .*symbolic link/);
  assert.equal(fs.readdirSync(elsewhere), []);
});

test.run();
