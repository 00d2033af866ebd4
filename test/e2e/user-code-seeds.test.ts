/**
 * The user-code check skips what compiles by construction: seeds left as the last generation wrote them,
 * which the new generation seeds alike (its own build compiles them). A package of untouched seeds is
 * regenerated without loading TypeScript; a seed the user edited is checked; so is an untouched seed the
 * new generation would write otherwise (a resource's type renamed by its title).
 */
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { test } from "uvu";
import * as assert from "uvu/assert";
import { repoRoot, runCli } from "../helpers/cli.js";

type Json = Record<string, any>;
const tmp = fs.mkdtempSync(path.join(os.tmpdir(), "resourcery-user-code-seeds-"));
const defs = path.join(tmp, "defs");
const out = path.join(tmp, "library-service");
const bookFile = path.join(defs, "resources/book.json");
const readJson = (file: string): Json => JSON.parse(fs.readFileSync(file, "utf8"));
const writeJson = (file: string, value: unknown) => fs.writeFileSync(file, JSON.stringify(value, null, 2) + "\n");

/** Adds a property to books (their generated types change), regenerates with timings on: the run's stdout and stderr. */
function regenerateWithNewProperty(name: string, edit?: (book: Json) => void): { code: number; stdout: string; stderr: string } {
  const book = readJson(bookFile);
  book.properties[name] = { type: "string" };
  edit?.(book);
  writeJson(bookFile, book);
  return runCli(["generate", defs, "--out", out, "--allow-breaking"], undefined, { RESOURCERY_TIMING: "1" });
}

test.before(() => {
  fs.cpSync(path.join(repoRoot, "examples/library"), defs, { recursive: true });
  const first = runCli(["generate", defs, "--out", out]);
  assert.is(first.code, 0, first.stdout + first.stderr);
});
test.after(() => fs.rmSync(tmp, { recursive: true, force: true }));

test("untouched seeds: the generated types change, TypeScript is never loaded", () => {
  const gen = regenerateWithNewProperty("subtitle");
  assert.is(gen.code, 0, gen.stdout + gen.stderr);
  assert.match(fs.readFileSync(path.join(out, "client/types.ts"), "utf8"), /subtitle/);
  assert.match(gen.stderr, /resourcery timing: committed/);
  assert.not.match(gen.stderr, /user-code worker/);
  assert.not.match(gen.stderr, /user code checked/);
});

test("a seed the user edited is checked against the new generation", () => {
  const hook = path.join(out, "src/hooks/books.ts");
  fs.writeFileSync(hook, fs.readFileSync(hook, "utf8") + "// reviewed\n");
  const gen = regenerateWithNewProperty("series");
  assert.is(gen.code, 0, gen.stdout + gen.stderr);
  assert.match(gen.stderr, /user-code worker: ts loaded/);
  assert.match(gen.stderr, /user code checked/);
});

test("an edited description changes only comments of the generated code: the user's code is not checked again", () => {
  const book = readJson(bookFile);
  book.properties.title.description = `The title, as printed (${Date.now()}).`;
  writeJson(bookFile, book);
  const gen = runCli(["generate", defs, "--out", out], undefined, { RESOURCERY_TIMING: "1" });
  assert.is(gen.code, 0, gen.stdout + gen.stderr);
  assert.match(gen.stdout, /updated\s+client\/types\.ts/, "the doc comment changed");
  assert.match(gen.stderr, /resourcery timing: committed/);
  assert.not.match(gen.stderr, /user code checked/);
  assert.not.match(gen.stderr, /user-code worker: next program/);
});

test("a title that renames the resource's types: the user's files are renamed with them (the seed too), checked, and compile", () => {
  const hook = path.join(out, "src/hooks/books.ts");
  assert.match(fs.readFileSync(hook, "utf8"), /types\.BookInput/);
  const gen = regenerateWithNewProperty("edition", (book) => {
    book.title = "Volume";
  });
  assert.is(gen.code, 0, gen.stdout + gen.stderr);
  assert.match(gen.stdout, /renamed\s+src\/hooks\/books\.ts/);
  const text = fs.readFileSync(hook, "utf8");
  assert.match(text, /types\.VolumeInput/);
  assert.not.match(text, /\bBookInput\b/);
  assert.match(text, /\/\/ reviewed\n/, "the user's line is kept");
  assert.match(gen.stderr, /user code checked/);
});

test.run();
