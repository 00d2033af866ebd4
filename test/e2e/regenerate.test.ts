/**
 * Regeneration through real changes of a definitions project, with user code in the hooks: after each
 * step every user line survives, the package type-checks and passes its own tests, and a regenerate
 * of unchanged definitions writes nothing. Then generate is killed at random moments.
 */
import { spawn } from "node:child_process";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { test } from "uvu";
import * as assert from "uvu/assert";
import { binRun, repoRoot, runCli } from "../helpers/cli.js";
import { linkModules, run, snapshot } from "../helpers/package.js";
import { recover } from "../../src/write/commit.js";

const tmp = fs.mkdtempSync(path.join(os.tmpdir(), "resourcery-evolve-"));
const defs = path.join(tmp, "defs");
const out = path.join(tmp, "service");
fs.cpSync(path.join(repoRoot, "examples/library"), defs, { recursive: true });

type Json = Record<string, any>;
const read = (file: string): Json => JSON.parse(fs.readFileSync(path.join(defs, file), "utf8"));
const write = (file: string, value: Json) => fs.writeFileSync(path.join(defs, file), JSON.stringify(value, null, 2) + "\n");
const edit = (file: string, change: (v: Json) => void) => {
  const v = read(file);
  change(v);
  write(file, v);
};
/** Lines of user code written into user-owned files, which must survive every step. */
const userLines = new Map<string, string[]>();
const addUserCode = (file: string, marker: string, code: string) => {
  const p = path.join(out, file);
  const text = fs.readFileSync(p, "utf8").replace(marker, `${marker}\n${code}`);
  fs.writeFileSync(p, text);
  userLines.set(file, [...(userLines.get(file) ?? []), ...code.split("\n")]);
};

/**
 * Regenerates; a step that `breaks` the version the package served is first refused by the breaking-change
 * gate (exit 1, a breaking-change error, nothing written), then written with --allow-breaking.
 */
function regenerate(step: string, breaks = false): string {
  if (breaks) {
    const before = snapshot(out);
    const refused = runCli(["generate", defs, "--out", out]);
    assert.is(refused.code, 1, `${step}: the gate refuses\n${refused.stdout}${refused.stderr}`);
    assert.match(refused.stdout, "breaking-change", step);
    assert.equal(snapshot(out), before, `${step}: nothing written`);
  }
  const r = runCli(["generate", defs, "--out", out, ...(breaks ? ["--allow-breaking"] : [])]);
  assert.is(r.code, 0, `${step}: ${r.stdout}${r.stderr}`);
  return r.stdout;
}

function verify(step: string): void {
  for (const [file, lines] of userLines) {
    const text = fs.readFileSync(path.join(out, file), "utf8");
    for (const line of lines) assert.ok(text.includes(line), `${step}: "${line}" survives in ${file}`);
  }
  // npm test builds first (pretest: tsc -p tsconfig.json, strict), so a type error fails it too.
  const tests = run("npm", ["test", "--silent"], out, { NO_COLOR: "1" });
  assert.is(tests.code, 0, `${step}: type-check (npm run build) and npm test\n${tests.output}`);
  const before = snapshot(out);
  const again = runCli(["generate", defs, "--out", out]);
  assert.match(again.stdout, /0 created, 0 updated, 0 deleted/, `${step}: a no-change regenerate writes nothing`);
  const after = snapshot(out);
  for (const [file, value] of before) if (!file.startsWith("dist/")) assert.is(after.get(file), value, `${step}: ${file} untouched`);
}

test("0. first generation, with user code in a hook and an action handler", () => {
  regenerate("first");
  linkModules(out);
  addUserCode(
    "src/hooks/books.ts",
    "export const hooks: ResourceHooks<types.BookInput, types.Book> = {",
    "  async beforeCreate(input) {\n    return { ...input, title: input.title.trim() }; // user: trim titles\n  },",
  );
  addUserCode(
    "src/actions/lookup.ts",
    'ctx.log.debug({ params }, "lookup called");',
    '  if (params.isbn === "0000000000") return { found: false }; // user: a known miss',
  );
  verify("first");
});

test("1. add a resource", () => {
  write("resources/publisher.json", {
    type: "object",
    "x-collection": "publishers",
    "x-unique": ["name"],
    required: ["name"],
    additionalProperties: false,
    properties: { name: { type: "string", minLength: 1 }, city: { type: "string" } },
  });
  edit("service.json", (s) => s.resources.push("resources/publisher.json"));
  const log = regenerate("add a resource");
  assert.match(log, "created   src/hooks/publishers.ts");
  addUserCode("src/hooks/publishers.ts", "export const hooks: ResourceHooks<types.PublisherInput, types.Publisher> = {", "  // user: publishers are checked by hand");
  verify("add a resource");
});

test("2. add a required field", () => {
  edit("resources/book.json", (b) => {
    b.properties.language = { type: "string", enum: ["en", "fr", "de"] };
    b.required.push("language");
  });
  regenerate("add a required field", true);
  verify("add a required field");
});

test("3. add a link and an action", () => {
  edit("resources/book.json", (b) => (b.properties.publisher = { $ref: "publisher.json" }));
  edit("resources/publisher.json", (p) => (p.properties.books = { type: "array", items: { $ref: "book.json" } }));
  edit("service.json", (s) => {
    s.actions.translate = { method: "GET", query: { type: "object", required: ["text", "to"], properties: { text: { type: "string" }, to: { type: "string" } } }, response: { type: "object", properties: { text: { type: "string" } } } };
  });
  const log = regenerate("add a link and an action");
  assert.match(fs.readFileSync(path.join(out, "src/generated/spec.ts"), "utf8"), '"inverse": "publisher"');
  assert.match(log, "created   src/actions/translate.ts");
  verify("add a link and an action");
});

test("4. change a unique key and the version", () => {
  edit("resources/author.json", (a) => (a["x-unique"] = []));
  edit("resources/book.json", (b) => (b["x-unique"] = ["isbn", "title"]));
  edit("service.json", (s) => {
    s.version = 3;
    s.baseUrl = "http://localhost:3000/v3";
  });
  regenerate("change a unique key and the version", true);
  assert.match(fs.readFileSync(path.join(out, "src/generated/media-types.ts"), "utf8"), "application/vnd.library.v3.book+json");
  verify("change a unique key and the version");
});

test("5. rename a resource: the old hook file is kept (and still compiles), a new one is created", () => {
  fs.renameSync(path.join(defs, "resources/publisher.json"), path.join(defs, "resources/imprint.json"));
  edit("resources/imprint.json", (p) => (p["x-collection"] = "imprints"));
  edit("service.json", (s) => (s.resources = s.resources.map((r: string) => r.replace("publisher", "imprint"))));
  edit("resources/book.json", (b) => {
    delete b.properties.publisher;
    b.properties.imprint = { $ref: "imprint.json" };
  });
  const log = regenerate("rename a resource", true);
  assert.match(log, "orphaned  src/hooks/publishers.ts");
  assert.match(log, "created   src/hooks/imprints.ts");
  assert.not.ok(fs.readFileSync(path.join(out, "src/generated/handlers.ts"), "utf8").includes("publishers"));
  verify("rename a resource");
});

test("6. remove a resource and an action", () => {
  fs.rmSync(path.join(defs, "resources/imprint.json"));
  edit("service.json", (s) => {
    s.resources = s.resources.filter((r: string) => !r.includes("imprint"));
    delete s.actions.translate;
  });
  edit("resources/book.json", (b) => delete b.properties.imprint);
  const log = regenerate("remove a resource and an action", true);
  assert.match(log, "orphaned  src/actions/translate.ts");
  assert.match(log, "orphaned  src/hooks/imprints.ts");
  verify("remove a resource and an action");
});

test("7. a resource comes back: its kept hook file is used again", () => {
  fs.writeFileSync(path.join(defs, "resources/publisher.json"), JSON.stringify({ type: "object", "x-collection": "publishers", properties: { name: { type: "string" } } }));
  edit("service.json", (s) => s.resources.push("resources/publisher.json"));
  const log = regenerate("a resource comes back");
  assert.match(log, "kept      src/hooks/publishers.ts");
  assert.match(fs.readFileSync(path.join(out, "src/generated/handlers.ts"), "utf8"), "../hooks/publishers.js");
  verify("a resource comes back");
});

test("8. a seed you delete stays deleted; a hook file the generated code imports is created again, and reported", () => {
  for (const file of ["test/service.test.ts", "src/main.ts", "src/hooks/authors.ts"]) fs.rmSync(path.join(out, file));
  const log = regenerate("delete files of yours");
  assert.match(log, "not recreated test/service.test.ts  (you deleted it; resourcery seeds a file of yours once)");
  assert.match(log, "not recreated src/main.ts  (you deleted it;");
  assert.match(log, "recreated src/hooks/authors.ts  (you deleted it, but src/generated/handlers.ts imports it)");
  assert.match(log, /^1 created, 0 updated, 0 deleted, \d+ unchanged, \d+ of yours kept, 2 of yours not recreated$/m);
  assert.not.ok(fs.existsSync(path.join(out, "test/service.test.ts")));
  assert.not.ok(fs.existsSync(path.join(out, "src/main.ts")));
  assert.match(fs.readFileSync(path.join(out, "src/hooks/authors.ts"), "utf8"), "export const hooks");
  // Remembered: neither the up-to-date answer (in verify) nor a full regeneration seeds them again.
  verify("delete files of yours");
  const full = runCli(["generate", defs, "--out", out, "--force"]);
  assert.is(full.code, 0, full.stdout + full.stderr);
  assert.match(full.stdout, "not recreated test/service.test.ts");
  assert.not.ok(fs.existsSync(path.join(out, "test/service.test.ts")));
  const json = runCli(["generate", defs, "--out", out, "--json"]);
  assert.is(json.code, 0, json.stdout + json.stderr);
  const files = (JSON.parse(json.stdout) as Json).files as Json[];
  assert.equal(files.find((f) => f.path === "src/main.ts"), { path: "src/main.ts", action: "not recreated", reason: "you deleted it; resourcery seeds a file of yours once" });
});

test("generate killed at random moments leaves the old or the new generation", async () => {
  // The old generation (examples/library) and the new one: the same tree regenerated from the evolved
  // definitions without interruption (user files kept, orphans reported, as a real regenerate does).
  const old = path.join(tmp, "old");
  assert.is(runCli(["generate", "examples/library", "--out", old]).code, 0);
  const oldTree = snapshotContents(old);
  const expected = path.join(tmp, "expected-new");
  fs.cpSync(old, expected, { recursive: true });
  // The evolved definitions break what examples/library served: --allow-breaking (see regenerate()).
  assert.is(runCli(["generate", defs, "--out", expected, "--allow-breaking"]).code, 0);
  const newTree = snapshotContents(expected);
  assert.not.ok(same(oldTree, newTree));
  const target = path.join(tmp, "killed");
  for (let i = 0; i < 8; i++) {
    fs.rmSync(target, { recursive: true, force: true });
    fs.cpSync(old, target, { recursive: true });
    const child = spawn(process.execPath, [binRun, "generate", defs, "--out", target, "--allow-breaking"], { stdio: "ignore" });
    const exited = new Promise<NodeJS.Signals | null>((r) => child.once("exit", (_code, signal) => r(signal)));
    const delay = 150 + Math.floor(Math.random() * 700);
    await new Promise((r) => setTimeout(r, delay));
    child.kill("SIGKILL");
    const killed = (await exited) === "SIGKILL";
    // Killed before the journal (the commit point) was written, the tree is untouched.
    const committed = fs.existsSync(path.join(target, ".resourcery/journal.json"));
    if (killed && !committed && !fs.existsSync(path.join(target, "src/hooks/publishers.ts"))) {
      assert.ok(same(snapshotContents(target), oldTree), `killed at ${delay} ms before the commit point: the old tree, untouched`);
    }
    // The next run first rolls an interrupted commit forward (or discards its staging).
    recover(target);
    const tree = snapshotContents(target);
    assert.ok(same(tree, oldTree) || same(tree, newTree), `after a kill at ${delay} ms the tree is the old or the new generation`);
  }
});

test("a first generation killed at any moment leaves no output folder, or a complete one", async () => {
  for (let i = 0; i < 4; i++) {
    const target = path.join(tmp, `first-${i}`);
    const child = spawn(process.execPath, [binRun, "generate", defs, "--out", target], { stdio: "ignore" });
    const exited = new Promise((r) => child.once("exit", r));
    await new Promise((r) => setTimeout(r, 200 + Math.floor(Math.random() * 600)));
    child.kill("SIGKILL");
    await exited;
    if (!fs.existsSync(target)) continue;
    const manifest = JSON.parse(fs.readFileSync(path.join(target, ".resourcery/manifest.json"), "utf8"));
    for (const file of Object.keys(manifest.files)) assert.ok(fs.existsSync(path.join(target, file)), `${file} is there`);
  }
});

function same(a: Record<string, string>, b: Record<string, string>): boolean {
  return JSON.stringify(a) === JSON.stringify(b);
}

/** Contents (not mtimes) of every file, without resourcery's bookkeeping. */
function snapshotContents(dir: string): Record<string, string> {
  return Object.fromEntries(
    [...snapshot(dir)].filter(([k]) => !k.startsWith(".resourcery")).map(([k, v]) => [k, v.slice(v.indexOf(":") + 1)]).sort(([a], [b]) => ((a ?? "") < (b ?? "") ? -1 : 1)),
  );
}

test.after(() => fs.rmSync(tmp, { recursive: true, force: true }));
test.run();
