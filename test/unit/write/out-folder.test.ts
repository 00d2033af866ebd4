/**
 * Where a generation may go: OUT as a real path, refused when it is the definitions folder, inside it,
 * around it, the root, the home folder, a file, a dangling link, or a folder of someone else's files
 * (the last allowed with --force); and disk errors in words that name OUT.
 */
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { test } from "uvu";
import * as assert from "uvu/assert";
import { outErrorOf } from "../../../src/write/out-error.js";
import { outFolderProblem, realOut } from "../../../src/write/out-folder.js";

const tmp = fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), "resourcery-out-folder-")));
test.after(() => fs.rmSync(tmp, { recursive: true, force: true }));
const defs = path.join(tmp, "project/defs");
fs.mkdirSync(defs, { recursive: true });
fs.writeFileSync(path.join(defs, "service.json"), "{}");

const problem = (out: string, force = false) => outFolderProblem(defs, realOut(out), force);

test("a new folder, an empty one, a fresh git repository and an earlier generation are fine", () => {
  assert.is(problem(path.join(tmp, "project/service")), undefined);
  assert.is(problem(path.join(tmp, "a/b/c")), undefined);
  fs.mkdirSync(path.join(tmp, "empty"));
  assert.is(problem(path.join(tmp, "empty")), undefined);
  fs.mkdirSync(path.join(tmp, "repo/.git"), { recursive: true });
  assert.is(problem(path.join(tmp, "repo")), undefined);
  fs.mkdirSync(path.join(tmp, "earlier/.resourcery"), { recursive: true });
  fs.writeFileSync(path.join(tmp, "earlier/.resourcery/manifest.json"), "{}");
  fs.writeFileSync(path.join(tmp, "earlier/package.json"), "{}");
  assert.is(problem(path.join(tmp, "earlier")), undefined);
});

test("the definitions folder, a folder inside it and one around it are refused, even with --force", () => {
  assert.match(problem(defs, true)!, "it is the definitions folder");
  assert.match(problem(path.join(defs, "out"), true)!, "inside the definitions folder");
  assert.match(problem(path.join(defs, "resources/generated"), true)!, "inside the definitions folder");
  assert.match(problem(path.join(tmp, "project"), true)!, `holds the definitions folder ${defs}`);
  assert.match(problem(tmp, true)!, "holds the definitions folder");
  // Spelled through a link, the folder is still the definitions folder.
  fs.symlinkSync(defs, path.join(tmp, "defs-link"));
  assert.match(problem(path.join(tmp, "defs-link"), true)!, "it is the definitions folder");
});

test("the root and the home folder are refused, even with --force", () => {
  assert.match(problem("/", true)!, "root of the file system");
  const home = process.env.HOME;
  process.env.HOME = path.join(tmp, "home");
  fs.mkdirSync(process.env.HOME, { recursive: true });
  try {
    assert.match(problem(process.env.HOME, true)!, "your home folder");
    assert.is(problem(path.join(process.env.HOME, "service")), undefined, "a folder of its own inside home is fine");
  } finally {
    process.env.HOME = home;
  }
});

test("a folder of files resourcery did not write is refused unless --force; a file or a dangling link always", () => {
  const theirs = path.join(tmp, "theirs");
  fs.mkdirSync(theirs);
  for (const f of ["a.txt", "b.txt", "c.txt", "d.txt"]) fs.writeFileSync(path.join(theirs, f), "");
  const message = problem(theirs)!;
  assert.match(message, "holds files that resourcery did not write (a.txt, b.txt, c.txt, …)");
  assert.match(message, "--force");
  assert.is(problem(theirs, true), undefined);
  fs.writeFileSync(path.join(tmp, "plain-file"), "");
  assert.match(problem(path.join(tmp, "plain-file"), true)!, "it is a file");
  fs.symlinkSync(path.join(tmp, "missing"), path.join(tmp, "dangling"));
  assert.match(problem(path.join(tmp, "dangling"), true)!, "symbolic link to a folder that does not exist");
});

test("realOut follows a link named as OUT, and keeps the missing rest", () => {
  fs.mkdirSync(path.join(tmp, "real"));
  fs.symlinkSync(path.join(tmp, "real"), path.join(tmp, "alias"));
  assert.is(realOut(path.join(tmp, "alias")), path.join(tmp, "real"));
  assert.is(realOut(path.join(tmp, "alias/x/y")), path.join(tmp, "real/x/y"));
});

test("disk errors become one line naming OUT and the cause; other errors stay bugs", () => {
  const out = path.join(tmp, "disk");
  const err = (code: string, at?: string) => Object.assign(new Error(`${code}: boom`), { code, path: at });
  assert.match(outErrorOf(err("ENOSPC"), out, false)!.message, `cannot write ${out}: no space left on the device (ENOSPC); nothing was written: ${out} was not created`);
  fs.mkdirSync(out);
  assert.match(outErrorOf(err("EROFS", path.join(out, "x")), out, false)!.message, `the file system is read-only (EROFS at ${path.join(out, "x")}); nothing was written: ${out} is as it was`);
  assert.match(outErrorOf(err("EACCES"), out, false)!.message, "permission denied");
  assert.match(outErrorOf(err("EPERM"), out, false)!.message, "operation not permitted");
  assert.match(outErrorOf(err("EDQUOT"), out, true)!.message, "disk quota is exceeded (EDQUOT); the new generation was committed but not completely applied: run generate again");
  assert.is(outErrorOf(err("ENOENT"), out, false), undefined);
  assert.is(outErrorOf(new TypeError("x"), out, false), undefined);
});

test.run();
