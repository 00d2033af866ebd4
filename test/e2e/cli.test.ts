import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { test } from "uvu";
import * as assert from "uvu/assert";
import { precompiledValidators, readMetaSchemas } from "../../src/load/validate-meta.js";
import { repoRoot, runCli } from "../helpers/cli.js";

const tmp = fs.mkdtempSync(path.join(os.tmpdir(), "resourcery-cli-"));
const write = (file: string, value: unknown) => {
  fs.mkdirSync(path.dirname(file), { recursive: true });
  fs.writeFileSync(file, typeof value === "string" ? value : JSON.stringify(value, null, 2));
};

/** A small broken project: a verb-led collection and a trailing comma. */
const broken = path.join(tmp, "broken");
write(path.join(broken, "service.json"), {
  name: "broken", vendor: "acme", version: 1, baseUrl: "https://api.example.com/v1",
  errorDocsUrl: "https://docs.example.com/errors", resources: ["*.json"],
});
write(path.join(broken, "book.json"), { type: "object", "x-collection": "getBooks", properties: { title: { type: "string" } } });
write(path.join(broken, "author.json"), '{\n  "type": "object",\n  "x-collection": "authors",\n}\n');

test("--help works on every command", () => {
  for (const cmd of ["init", "check", "generate", "docs"]) {
    const r = runCli([cmd, "--help"]);
    assert.is(r.code, 0, `${cmd} --help exits 0`);
    assert.match(r.stdout, "USAGE");
    assert.match(r.stdout, `resourcery ${cmd}`);
  }
});

test("check exits 0 on every example", () => {
  for (const example of fs.readdirSync(path.join(repoRoot, "examples"))) {
    const r = runCli(["check", path.join("examples", example)]);
    assert.is(r.code, 0, `${example}: ${r.stdout}${r.stderr}`);
    assert.match(r.stdout, /^ok: \d+ resources/m);
  }
});

test("check on broken definitions exits 1 with file:line:col, rule, pointer and hint", () => {
  const r = runCli(["check", "."], broken);
  assert.is(r.code, 1, r.stderr);
  assert.match(r.stdout, 'author.json:3:28  error  json-syntax  invalid JSON: trailing comma');
  assert.match(r.stdout, 'book.json:3:19  error  R1  collection "getBooks" starts with the verb "get"  (/x-collection)');
  assert.match(r.stdout, '  hint: name the collection with a plural noun, e.g. "books"');
  assert.match(r.stdout, /^2 errors, 0 warnings$/m);
  assert.is.not(r.stdout.includes("    at "), true, "no stack trace");
});

test("check --json prints the contract's array", () => {
  const r = runCli(["check", broken, "--json"], tmp);
  assert.is(r.code, 1);
  const items = JSON.parse(r.stdout) as Record<string, unknown>[];
  assert.is(items.length, 2);
  for (const item of items) {
    assert.equal(Object.keys(item).sort(), ["column", "file", "hint", "line", "message", "pointer", "rule", "severity"]);
  }
  const r1 = items.find((i) => i.rule === "R1")!;
  assert.equal([r1.file, r1.line, r1.pointer, r1.severity], ["broken/book.json", 3, "/x-collection", "error"]);
  const clean = runCli(["check", "examples/library", "--json"]);
  assert.is(clean.code, 0);
  assert.equal(JSON.parse(clean.stdout), []);
});

test("check prints meta-schema findings exactly as the corpus records them (precompiled validators)", () => {
  // The built CLI uses dist/meta-validators.precompiled.cjs only while it is current: so it must be here.
  assert.ok(precompiledValidators(readMetaSchemas()), "npm run build precompiles the meta-schema validators");
  for (const name of ["invalid-schema-minimum-string", "invalid-schema-type-typo", "meta-missing-required", "meta-unknown-key", "meta-wrong-type"]) {
    const dir = path.join(repoRoot, "test", "fixtures", "check", name);
    const r = runCli(["check", "."], dir);
    assert.is(r.code, 1, r.stderr);
    const printed = r.stdout.replace(/^\d+ errors?, \d+ warnings?\n$/m, "");
    assert.fixture(printed, fs.readFileSync(path.join(dir, "expected.txt"), "utf8"), name);
  }
});

test("usage errors exit 2: unknown flag, missing folder", () => {
  assert.is(runCli(["check", "--bogus"]).code, 2);
  const missing = runCli(["check", path.join(tmp, "nope")]);
  assert.is(missing.code, 2);
  assert.match(missing.stderr, "is not a directory");
});

test("a folder without service.json is an error naming the file", () => {
  const empty = path.join(tmp, "empty");
  fs.mkdirSync(empty);
  const r = runCli(["check", "."], empty);
  assert.is(r.code, 1);
  assert.match(r.stdout, 'service.json:1:1  error  missing-file  service definition "service.json" does not exist');
});

test("init writes a project that check accepts, named after the folder", () => {
  for (const example of ["directory", "library"]) {
    const dir = path.join(tmp, `My ${example} API`);
    const r = runCli(["init", dir, "--example", example]);
    assert.is(r.code, 0, r.stderr);
    const service = JSON.parse(fs.readFileSync(path.join(dir, "service.json"), "utf8"));
    assert.is(service.name, `my-${example}-api`);
    assert.ok(fs.existsSync(path.resolve(dir, service.$schema)), "$schema points at the installed meta-schema");
    const check = runCli(["check", dir]);
    assert.is(check.code, 0, check.stdout);
  }
});

test("init refuses a folder that is not empty, and an unknown example", () => {
  const r = runCli(["init", broken]);
  assert.is.not(r.code, 0);
  assert.match(r.stderr, "not empty");
  assert.is(fs.readdirSync(broken).length, 3, "nothing was written");
  assert.is.not(runCli(["init", path.join(tmp, "x"), "--example", "nope"]).code, 0);
  assert.not.ok(fs.existsSync(path.join(tmp, "x")));
});

test("generate and docs refuse broken definitions and write nothing", () => {
  for (const cmd of ["generate", "docs"]) {
    const out = path.join(tmp, `${cmd}-out`);
    const r = runCli([cmd, broken, "--out", out]);
    assert.is(r.code, 1);
    assert.match(r.stdout, "R1");
    assert.not.ok(fs.existsSync(out), `${cmd} wrote nothing`);
  }
});

test.after(() => fs.rmSync(tmp, { recursive: true, force: true }));
test.run();
