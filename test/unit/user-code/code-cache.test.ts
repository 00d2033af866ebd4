/**
 * The V8 code cache of TypeScript for the user-code check (src/user-code/code-cache.ts): made once a check has
 * run, taken by the next process, never read from a folder others may write, remade when V8 refuses it. Each
 * case loads TypeScript in a process of its own (a process loads it once).
 */
import { spawnSync } from "node:child_process";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { test } from "uvu";
import * as assert from "uvu/assert";
import { repoRoot } from "../../helpers/cli.js";

const tmp = fs.mkdtempSync(path.join(os.tmpdir(), "resourcery-code-cache-"));
const home = path.join(tmp, "cache");
const folder = path.join(home, "resourcery", "v8-code");

/** Loads TypeScript as the check does, type-checks a line, saves the cache: what the process saw. */
function load(env: NodeJS.ProcessEnv = { XDG_CACHE_HOME: home }): { fromCache: boolean; checked: boolean } {
  const script = `
    const { loadTsMorphCommon } = await import(${JSON.stringify(path.join(repoRoot, "src/user-code/code-cache.ts"))});
    const { common, fromCache, save } = loadTsMorphCommon();
    const { ts } = common;
    const sf = ts.createSourceFile("a.ts", "const n: number = 1;", ts.ScriptTarget.ES2022, true);
    save();
    console.log(JSON.stringify({ fromCache, checked: sf.statements.length === 1 }));`;
  const r = spawnSync(process.execPath, ["--import", "tsx", "--input-type=module", "-e", script], { cwd: repoRoot, encoding: "utf8", env: { ...process.env, ...env } });
  assert.is(r.status, 0, r.stderr);
  return JSON.parse(r.stdout.trim().split("\n").at(-1)!);
}

test.after(() => fs.rmSync(tmp, { recursive: true, force: true }));

test("made by the first check, in a folder of the user's alone (0700, files 0600), taken by the next process", () => {
  assert.equal(load(), { fromCache: false, checked: true });
  const files = fs.readdirSync(folder).sort();
  assert.equal(files.map((f) => f.replace(/-\d+-\d+-v[\d.]+-\w+\.bin$/, "")), ["ts-morph-common", "typescript"]);
  assert.is(fs.statSync(folder).mode & 0o777, 0o700);
  for (const f of files) assert.is(fs.statSync(path.join(folder, f)).mode & 0o777, 0o600);
  assert.equal(load(), { fromCache: true, checked: true });
});

test("a cache V8 refuses (another build's bytes) is not used, and is made again", () => {
  for (const f of fs.readdirSync(folder)) fs.writeFileSync(path.join(folder, f), Buffer.alloc(4096, 7));
  assert.equal(load(), { fromCache: false, checked: true });
  assert.equal(load(), { fromCache: true, checked: true });
});

test("a cache in a folder others may write is never read (its code would run as the user)", () => {
  fs.chmodSync(folder, 0o777);
  try {
    assert.equal(load(), { fromCache: false, checked: true });
  } finally {
    fs.chmodSync(folder, 0o700);
  }
  assert.equal(load(), { fromCache: true, checked: true });
});

test("without XDG_CACHE_HOME (or with a relative one), under ~/.cache", () => {
  const own = path.join(tmp, "home");
  fs.mkdirSync(own);
  assert.equal(load({ HOME: own, XDG_CACHE_HOME: "relative/cache" }), { fromCache: false, checked: true });
  assert.equal(fs.readdirSync(path.join(own, ".cache", "resourcery", "v8-code")).length, 2);
  assert.equal(load({ HOME: own, XDG_CACHE_HOME: "" }), { fromCache: true, checked: true });
});

test.run();
