/**
 * The breaking-change gate (CONTRACT §7) through the CLI: a generation records the wire contract of its
 * versions; a regeneration whose definitions break a version refuses with one diagnostic per break and
 * leaves OUT byte for byte as it was; a new version that keeps the old one whole (x-until) passes;
 * --allow-breaking writes; `resourcery diff` prints the same classification with positions in both folders.
 */
import crypto from "node:crypto";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { test } from "uvu";
import * as assert from "uvu/assert";
import { repoRoot, runCli } from "../helpers/cli.js";

type Json = Record<string, any>;

const tmp = fs.mkdtempSync(path.join(os.tmpdir(), "resourcery-gate-"));
const published = path.join(tmp, "published");
const defs = path.join(tmp, "defs");
const out = path.join(tmp, "library-service");
const bookFile = path.join(defs, "resources/book.json");

/** A copy of examples/library in `dir`. */
function copyLibrary(dir: string): void {
  fs.cpSync(path.join(repoRoot, "examples/library"), dir, { recursive: true });
}
const readJson = (file: string): Json => JSON.parse(fs.readFileSync(file, "utf8"));
const writeJson = (file: string, value: unknown) => fs.writeFileSync(file, JSON.stringify(value, null, 2));
const changeBook = (change: (b: Json) => void) => {
  const b = readJson(bookFile);
  change(b);
  writeJson(bookFile, b);
};

/** Every file under `dir` (but the stat cache and lock, which a read-only run may touch) with its hash. */
function tree(dir: string): Record<string, string> {
  const out: Record<string, string> = {};
  const walk = (d: string) => {
    for (const e of fs.readdirSync(d, { withFileTypes: true })) {
      const p = path.join(d, e.name);
      if (e.isDirectory()) walk(p);
      else if (!/stat-cache\.json$|lock$/.test(p)) out[path.relative(dir, p)] = crypto.createHash("sha256").update(fs.readFileSync(p)).digest("hex");
    }
  };
  walk(dir);
  return out;
}

test.after(() => fs.rmSync(tmp, { recursive: true, force: true }));

test("a generation records the wire contract of the version it serves", () => {
  copyLibrary(published);
  copyLibrary(defs);
  const gen = runCli(["generate", defs, "--out", out]);
  assert.is(gen.code, 0, gen.stdout + gen.stderr);
  const contract = readJson(path.join(out, ".resourcery/contract.json"));
  assert.equal(Object.keys(contract.versions), ["2"]);
  const books = contract.versions["2"].resources.books;
  assert.is(books.mediaType, "application/vnd.library.v2.book+json");
  assert.equal(books.properties.author, { required: true, link: "authors", many: false, schema: {}, origin: { file: "resources/book.json", pointer: "/properties/author" } });
  assert.is(books.properties.pages.schema.type, "integer");
  assert.equal(books.unique, ["isbn"]);
});

test("definitions that break version 2 are refused: one diagnostic per break, exit 1, OUT as it was", () => {
  const before = tree(out);
  changeBook((b) => {
    delete b.properties.pages;
    b.required.push("published");
    b.properties.genres.items.enum.push("drama");
  });
  const gen = runCli(["generate", defs, "--out", out]);
  assert.is(gen.code, 1, gen.stdout + gen.stderr);
  const lines = gen.stdout.split("\n").filter((l) => l.includes("breaking-change"));
  assert.is(lines.length, 3, gen.stdout);
  assert.match(gen.stdout, /resources\/book\.json:\d+:\d+ {2}error {2}breaking-change {2}version 2: property "pages" was removed \(or renamed\), which breaks clients of version 2 that send or read books\.pages {2}\(\/properties\)/);
  assert.match(gen.stdout, /version 2: property "published" is now required, which breaks clients of version 2 that send books\.published/);
  assert.match(gen.stdout, /version 2: property "genres"\[\]: new values \["drama"\], which breaks clients of version 2 that read books\.genres/);
  assert.match(gen.stdout, /hint: ship it as version 3: set "version": 3, list 2 in "versions"/);
  assert.equal(tree(out), before, "nothing was written");
  const json = runCli(["generate", defs, "--out", out, "--json"]);
  assert.is(json.code, 1);
  assert.equal(JSON.parse(json.stdout).diagnostics.map((d: Json) => d.rule), ["breaking-change", "breaking-change", "breaking-change"]);
});

test("resourcery diff prints the same breaks, placing a removed property in the old folder, and the compatible changes", () => {
  const diff = runCli(["diff", published, defs, "--json"]);
  assert.is(diff.code, 1, diff.stdout + diff.stderr);
  const report = JSON.parse(diff.stdout);
  assert.equal(report.breaking.map((d: Json) => d.rule), ["breaking-change", "breaking-change", "breaking-change"]);
  const removed = report.breaking.find((d: Json) => d.message.includes('"pages"'));
  assert.ok(removed.file.endsWith(path.join("published", "resources", "book.json")), removed.file);
  assert.is(removed.pointer, "/properties/pages");
  assert.equal(report.compatible, []);
  const same = runCli(["diff", published, published]);
  assert.is(same.code, 0);
  assert.match(same.stdout, /no change to any served version's wire contract/);
});

test("the same change shipped as version 3, with version 2 kept by x-until, passes the gate; a compatible change is said so", () => {
  const service = readJson(path.join(defs, "service.json"));
  writeJson(path.join(defs, "service.json"), { ...service, version: 3, versions: { "2": {} }, baseUrl: service.baseUrl.replace("/v2", "/v3") });
  changeBook((b) => {
    b.properties.pages = { type: "integer", minimum: 1, "x-until": 2 };
    b.required = b.required.filter((r: string) => r !== "published");
    b.properties.genres.items.enum.pop();
    b.properties.subtitle = { type: "string" };
  });
  const check = runCli(["check", defs]);
  assert.is(check.code, 0, check.stdout + check.stderr);
  const diff = runCli(["diff", published, defs]);
  assert.is(diff.code, 0, diff.stdout + diff.stderr);
  assert.match(diff.stdout, /compatible {2}version 2: property "subtitle" is new {2}\(resources\/book\.json#\/properties\/subtitle\)/);
  const gen = runCli(["generate", defs, "--out", out]);
  assert.is(gen.code, 0, gen.stdout + gen.stderr);
  assert.equal(Object.keys(readJson(path.join(out, ".resourcery/contract.json")).versions), ["2", "3"]);
});

test("--allow-breaking writes a break and records the new contract; the next regeneration compares with that", () => {
  changeBook((b) => delete b.properties.subtitle);
  const refused = runCli(["generate", defs, "--out", out]);
  assert.is(refused.code, 1, refused.stdout);
  const allowed = runCli(["generate", defs, "--out", out, "--allow-breaking"]);
  assert.is(allowed.code, 0, allowed.stdout + allowed.stderr);
  assert.match(allowed.stdout, /updated {3}\.resourcery\/contract\.json/);
  assert.not.ok(readJson(path.join(out, ".resourcery/contract.json")).versions["2"].resources.books.properties.subtitle);
  const again = runCli(["generate", defs, "--out", out]);
  assert.is(again.code, 0, again.stdout + again.stderr);
});

test.run();
