/**
 * The up-to-date check of `generate`: a regenerate whose definitions, target and generator are
 * unchanged, and whose generated files are all still as written, writes nothing and says so — and
 * any change that matters (a new resource file the globs find, an edited, deleted or touched file,
 * a changed $ref target, a warning to print again) still takes the full path.
 */
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { test } from "uvu";
import * as assert from "uvu/assert";
import { spawnSync } from "node:child_process";
import { binRun, repoRoot, runCli } from "../helpers/cli.js";
import { plainGenerate } from "../../src/cli/fast-path.js";
import { snapshot } from "../helpers/package.js";

const tmp = fs.mkdtempSync(path.join(os.tmpdir(), "resourcery-up-to-date-"));
const defs = path.join(tmp, "defs");
const out = path.join(tmp, "service");
fs.cpSync(path.join(repoRoot, "examples/library"), defs, { recursive: true });

const NOTHING = /^0 created, 0 updated, 0 deleted, \d+ unchanged, \d+ of yours kept$/m;

function generate(args: string[] = []) {
  return runCli(["generate", defs, "--out", out, ...args]);
}

/** Snapshot of OUT without resourcery's own bookkeeping. */
function files(): Map<string, string> {
  const all = snapshot(out);
  for (const k of [...all.keys()]) if (k.startsWith(".resourcery")) all.delete(k);
  return all;
}

test.after(() => fs.rmSync(tmp, { recursive: true, force: true }));

test("the manifest records the sources and a clean check; the stat cache each generated file's size and mtime", () => {
  const r = generate();
  assert.is(r.code, 0, r.stdout + r.stderr);
  const manifest = JSON.parse(fs.readFileSync(path.join(out, ".resourcery/manifest.json"), "utf8"));
  assert.equal(manifest.sources, ["resources/author.json", "resources/book.json", "resources/common.json", "service.json"]);
  assert.is(manifest.clean, true);
  const stats = JSON.parse(fs.readFileSync(path.join(out, ".resourcery/stat-cache.json"), "utf8"));
  const st = fs.statSync(path.join(out, "src/generated/spec.ts"));
  assert.equal(stats["src/generated/spec.ts"], [st.size, st.mtimeMs]);
  assert.is(stats["src/main.ts"], undefined, "user files are not judged by their stat");
  assert.match(fs.readFileSync(path.join(out, ".gitignore"), "utf8"), /^\.resourcery\/stat-cache\.json$/m, "the cache is machine-local");
});

test("a missing stat cache only means reading the files", () => {
  fs.rmSync(path.join(out, ".resourcery/stat-cache.json"));
  const r = generate();
  assert.match(r.stdout, NOTHING);
});

test("unchanged definitions: nothing written, not even the manifest; touching a definition changes nothing", () => {
  const before = snapshot(out);
  let r = generate();
  assert.is(r.code, 0, r.stdout + r.stderr);
  assert.match(r.stdout, NOTHING);
  const later = new Date(Date.now() + 5000);
  fs.utimesSync(path.join(defs, "resources/book.json"), later, later);
  r = generate();
  assert.match(r.stdout, NOTHING);
  assert.equal(snapshot(out), before);
});

test("a definition edited with its size and mtime kept is still a change (the stat cache only says which changed without reading them all)", () => {
  const file = path.join(defs, "resources/book.json");
  const text = fs.readFileSync(file, "utf8");
  assert.is(generate(["--force"]).code, 0); // (a test above removed the stat cache)
  const st = fs.statSync(file);
  const stats = JSON.parse(fs.readFileSync(path.join(out, ".resourcery/stat-cache.json"), "utf8")) as Record<string, unknown[]>;
  assert.equal(stats[file]?.slice(0, 2), [st.size, st.mtimeMs], "the definition's size and mtime are recorded");
  // The same length, another description; mtime put back: stat alone would call it unchanged.
  const edited = text.replace(/"description": "([^"]*)"/, (_, d: string) => `"description": "${d.split("").reverse().join("")}"`);
  assert.is.not(edited, text);
  assert.is(edited.length, text.length);
  fs.writeFileSync(file, edited);
  fs.utimesSync(file, st.atime, st.mtime);
  let r = generate();
  assert.is(r.code, 0, r.stdout + r.stderr);
  assert.not.match(r.stdout, NOTHING, "the edit is generated");
  // Back as it was, mtime moved on: read, found as recorded, nothing to do.
  fs.writeFileSync(file, text);
  r = generate();
  assert.is(r.code, 0, r.stdout + r.stderr);
  assert.not.match(r.stdout, NOTHING, "back to the first text: generated again");
  r = generate();
  assert.match(r.stdout, NOTHING);
});

const timed = (args: string[]) => spawnSync(process.execPath, [binRun, ...args], { encoding: "utf8", env: { ...process.env, RESOURCERY_TIMING: "1", NO_COLOR: "1" } });

test("the plain form is answered before oclif loads, printing what the full command prints", () => {
  const fast = timed(["generate", defs, "--out", out]);
  assert.is(fast.status, 0, fast.stderr);
  assert.match(fast.stderr, /plain form, no oclif/);
  assert.match(fast.stderr, /up-to-date check/);
  assert.not.match(fast.stderr, /oclif command/, "oclif never ran");
  // `--` ends the flags for oclif; the fast path leaves anything but the plain form to the command.
  const full = timed(["generate", "--out", out, "--", defs]);
  assert.is(full.status, 0, full.stderr);
  assert.match(full.stderr, /oclif command/);
  assert.is(fast.stdout, full.stdout);
  assert.match(fast.stdout, /^kept {6}package\.json$/m);
});

test("the plain form without oclif prints and exits as the command does: first generation, errors, hand edits", () => {
  const scratch = fs.mkdtempSync(path.join(tmp, "plain-"));
  const both = (dir: string, target: string) => {
    const fast = timed(["generate", dir, "--out", path.join(scratch, `${target}-fast`)]);
    const full = timed(["generate", "--out", path.join(scratch, `${target}-full`), "--", dir]);
    assert.match(fast.stderr, /plain form, no oclif/);
    assert.match(full.stderr, /oclif command/);
    assert.is(fast.status, full.status, target);
    assert.is(fast.stdout, full.stdout, target);
    const quiet = (text: string) => text.replace(/^resourcery timing:.*\n/gm, "");
    assert.is(quiet(fast.stderr), quiet(full.stderr), target);
    return fast;
  };
  const first = both(defs, "first");
  assert.is(first.status, 0, first.stderr);
  assert.match(first.stdout, /^\d+ created, 0 updated/m);
  const spec = (target: string) => fs.readFileSync(path.join(scratch, target, "src/generated/spec.ts"), "utf8");
  assert.is(spec("first-fast"), spec("first-full"));

  const broken = path.join(scratch, "broken");
  fs.cpSync(defs, broken, { recursive: true });
  fs.writeFileSync(path.join(broken, "resources/book.json"), '{ "type": "object", "x-collection": 3 }');
  const failed = both(broken, "broken");
  assert.is(failed.status, 1);
  assert.match(failed.stdout, /resources\/book\.json:1:\d+/);
  assert.not.ok(fs.existsSync(path.join(scratch, "broken-fast")), "nothing written");

  for (const target of ["first-fast", "first-full"]) {
    const file = path.join(scratch, target, "src/generated/errors.ts");
    fs.appendFileSync(file, "// edited\n");
    fs.renameSync(path.join(scratch, target), path.join(scratch, `edited-${target.split("-")[1]}`));
  }
  const edited = both(defs, "edited");
  assert.is(edited.status, 1);
  assert.match(edited.stderr, /nothing was written: 1 generated file\(s\) were changed by hand:\n {2}src\/generated\/errors\.ts/);
});

test("the fast path recognizes only the plain form", () => {
  assert.equal(plainGenerate(["defs", "--out", "o"]), { dir: "defs", out: "o" });
  assert.equal(plainGenerate(["-o", "o", "defs"]), { dir: "defs", out: "o" });
  assert.equal(plainGenerate(["--out=o"]), { dir: ".", out: "o" });
  for (const args of [["defs"], ["defs", "--out"], ["defs", "--out", "o", "--force"], ["defs", "--out", "o", "--json"], ["defs", "--out", "o", "--dry-run"], ["defs", "--out", "o", "--client-only"], ["a", "b", "--out", "o"], ["--out", "o", "--out", "p"], ["--out", "--force"], ["--help"], ["--out", "o", "--", "defs"]]) {
    assert.is(plainGenerate(args), undefined, args.join(" "));
  }
});

test("a generated file edited by hand is refused, even with its size and mtime kept", () => {
  const file = path.join(out, "src/generated/errors.ts");
  const st = fs.statSync(file);
  const text = fs.readFileSync(file, "utf8");
  fs.writeFileSync(file, text.replace("export", "EXPORT"));
  let r = generate();
  assert.is(r.code, 1, r.stdout + r.stderr);
  assert.match(r.stderr, /src\/generated\/errors\.ts/);
  // Same size, mtime reset: judged by stat alone this would pass for unchanged. A changed mtime
  // makes the hash decide; the file is written back only when nothing else changed.
  fs.utimesSync(file, st.atime, new Date(st.mtimeMs + 1000));
  r = generate();
  assert.is(r.code, 1, "still refused: its hash differs");
  fs.writeFileSync(file, text);
  r = generate();
  assert.is(r.code, 0, r.stdout + r.stderr);
  assert.match(r.stdout, NOTHING, "the same contents again, whatever the mtime");
});

test("a deleted generated file is written again", () => {
  fs.rmSync(path.join(out, "src/generated/media-types.json"));
  const r = generate();
  assert.is(r.code, 0, r.stdout + r.stderr);
  assert.match(r.stdout, /created\s+src\/generated\/media-types\.json/);
  assert.match(r.stdout, /^1 created, 0 updated, 0 deleted/m);
});

test("a changed $ref target regenerates what depends on it", () => {
  const common = path.join(defs, "resources/common.json");
  const value = JSON.parse(fs.readFileSync(common, "utf8"));
  value.$defs.isbn.description = "The 13-digit ISBN, as printed on the back cover.";
  fs.writeFileSync(common, JSON.stringify(value, null, 2) + "\n");
  const r = generate();
  assert.is(r.code, 0, r.stdout + r.stderr);
  assert.match(r.stdout, /updated\s+src\/generated\/spec\.ts/);
  assert.match(generate().stdout, NOTHING);
});

test("a new resource file found by a glob is generated", () => {
  const service = JSON.parse(fs.readFileSync(path.join(defs, "service.json"), "utf8"));
  service.resources = ["resources/{author,book,s*}.json"]; // common.json holds only $defs
  fs.writeFileSync(path.join(defs, "service.json"), JSON.stringify(service, null, 2) + "\n");
  let r = generate();
  assert.is(r.code, 0, r.stdout + r.stderr);
  assert.match(generate().stdout, NOTHING);
  const before = files();
  fs.writeFileSync(
    path.join(defs, "resources/shelf.json"),
    JSON.stringify({ type: "object", "x-collection": "shelves", required: ["label"], additionalProperties: false, properties: { label: { type: "string", maxLength: 40 } } }, null, 2),
  );
  r = generate();
  assert.is(r.code, 0, r.stdout + r.stderr);
  assert.match(r.stdout, /created\s+src\/hooks\/shelves\.ts/);
  assert.ok(files().size > before.size);
});

test("a warning is printed on every regenerate, the unchanged ones too", () => {
  const warnDefs = path.join(tmp, "warn");
  const warnOut = path.join(tmp, "warn-service");
  fs.cpSync(path.join(repoRoot, "test/fixtures/check/a5-basic-only"), warnDefs, { recursive: true });
  for (let i = 0; i < 2; i++) {
    const r = runCli(["generate", warnDefs, "--out", warnOut]);
    assert.is(r.code, 0, r.stdout + r.stderr);
    assert.match(r.stdout, /warning\s+A5/, `run ${i + 1} prints the warning`);
  }
  const manifest = JSON.parse(fs.readFileSync(path.join(warnOut, ".resourcery/manifest.json"), "utf8"));
  assert.is(manifest.clean, false);
});

test("--force and --client-only never take the shortcut of another target", () => {
  let r = generate(["--force"]);
  assert.is(r.code, 0, r.stdout + r.stderr);
  assert.match(r.stdout, NOTHING, "forced, but every file is the same");
  const clientOut = path.join(tmp, "client");
  r = runCli(["generate", defs, "--out", clientOut, "--client-only"]);
  assert.is(r.code, 0, r.stdout + r.stderr);
  assert.ok(fs.existsSync(path.join(clientOut, "client/index.ts")), "the client package");
  assert.match(runCli(["generate", defs, "--out", clientOut, "--client-only"]).stdout, NOTHING);
});

test.run();
