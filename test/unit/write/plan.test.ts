/**
 * A file of the user's is seeded once: deleted by the user, it is not created again, unless the package
 * needs it (a hook or action file the generated wiring imports, package.json, tsconfig.json). The manifest
 * remembers the deletion, so that it holds through regenerations, up-to-date ones included, until the user
 * writes the file again.
 */
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { test } from "uvu";
import * as assert from "uvu/assert";
import { describeStep, planLines } from "../../../src/cli/report.js";
import { encodedFile, type EmittedFile } from "../../../src/emit/emitted-file.js";
import { commitPlan } from "../../../src/write/commit.js";
import { hashOf, readManifest } from "../../../src/write/manifest.js";
import { planUnchanged, planWrite, type Plan } from "../../../src/write/plan.js";

const tmp = fs.mkdtempSync(path.join(os.tmpdir(), "resourcery-plan-"));
test.after(() => fs.rmSync(tmp, { recursive: true, force: true }));

const IMPORTED = "src/generated/handlers.ts imports it";
const files: EmittedFile[] = [
  { path: "src/generated/handlers.ts", contents: 'import { hooks } from "../hooks/books.js";\n', owner: "generated" },
  { path: "src/hooks/books.ts", contents: "export const hooks = {};\n", owner: "user", required: IMPORTED },
  { path: "src/main.ts", contents: "// main\n", owner: "user" },
  { path: "test/service.test.ts", contents: "// an example test\n", owner: "user" },
];
const INPUTS = "inputs-hash";

/** A first generation of `files` into a new folder. */
function firstGeneration(name: string): string {
  const out = path.join(tmp, name);
  commitPlan(out, planWrite(out, files, undefined, false), { generator: "test", inputs: INPUTS });
  return out;
}

const kinds = (plan: Plan) => Object.fromEntries(plan.steps.map((s) => ["file" in s ? s.file.path : s.path, s.kind]));

test("a seed the user deleted is not created again; a required one is, with what requires it; one never seeded is created", () => {
  const out = firstGeneration("deleted");
  fs.rmSync(path.join(out, "test/service.test.ts"));
  fs.rmSync(path.join(out, "src/hooks/books.ts"));
  const more: EmittedFile = { path: "src/hooks/authors.ts", contents: "export const hooks = {};\n", owner: "user", required: IMPORTED };
  const plan = planWrite(out, [...files, more], readManifest(out), false);
  assert.equal(kinds(plan), {
    "src/generated/handlers.ts": "unchanged",
    "src/hooks/books.ts": "create",
    "src/main.ts": "keep",
    "test/service.test.ts": "absent",
    "src/hooks/authors.ts": "create",
  });
  const books = plan.steps.find((s) => s.kind === "create" && s.file.path === "src/hooks/books.ts");
  assert.equal(books && "recreated" in books ? books.recreated : undefined, IMPORTED);
  const authors = plan.steps.find((s) => s.kind === "create" && s.file.path === "src/hooks/authors.ts");
  assert.is(authors && "recreated" in authors ? authors.recreated : undefined, undefined, "a new resource's hook file is simply created");
  const absent = plan.steps.find((s) => s.kind === "absent");
  assert.equal(absent, { kind: "absent", path: "test/service.test.ts", hash: hashOf("// an example test\n") });
});

test("generate says what it did: recreated with the reason, not recreated, and the count", () => {
  const out = firstGeneration("report");
  fs.rmSync(path.join(out, "test/service.test.ts"));
  fs.rmSync(path.join(out, "src/hooks/books.ts"));
  const plan = planWrite(out, files, readManifest(out), false);
  assert.equal(plan.steps.map(describeStep).filter((d) => d.action !== "unchanged"), [
    { path: "src/hooks/books.ts", action: "recreated", reason: `you deleted it, but ${IMPORTED}` },
    { path: "src/main.ts", action: "kept" },
    { path: "test/service.test.ts", action: "not recreated", reason: "you deleted it; resourcery seeds a file of yours once" },
  ]);
  assert.equal(planLines(plan.steps, false), [
    `recreated src/hooks/books.ts  (you deleted it, but ${IMPORTED})`,
    "kept      src/main.ts",
    "not recreated test/service.test.ts  (you deleted it; resourcery seeds a file of yours once)",
    "1 created, 0 updated, 0 deleted, 1 unchanged, 1 of yours kept, 1 of yours not recreated",
  ]);
});

test("the manifest remembers the deletion: later generations, up-to-date ones too, leave the file out until the user writes it again", () => {
  const out = firstGeneration("remembered");
  fs.rmSync(path.join(out, "test/service.test.ts"));
  // Inputs unchanged, a file gone: the up-to-date plan cannot tell a deleted seed from a file to create.
  assert.is(planUnchanged(out, readManifest(out), INPUTS), undefined);
  commitPlan(out, planWrite(out, files, readManifest(out), false), { generator: "test", inputs: INPUTS });
  assert.not.ok(fs.existsSync(path.join(out, "test/service.test.ts")));
  assert.equal(readManifest(out)!.files["test/service.test.ts"], { hash: hashOf("// an example test\n"), owner: "user", deleted: true });

  assert.is(kinds(planWrite(out, files, readManifest(out), false))["test/service.test.ts"], "absent", "a regeneration leaves it out again");
  const unchanged = planUnchanged(out, readManifest(out), INPUTS);
  assert.ok(unchanged, "up to date, with the file deleted");
  assert.equal(unchanged.steps.find((s) => s.kind === "absent"), { kind: "absent", path: "test/service.test.ts", hash: hashOf("// an example test\n") });

  // Without a manifest entry, the file is a new one to seed: a new generation would create it.
  const manifest = readManifest(out)!;
  const { ["test/service.test.ts"]: _gone, ...others } = manifest.files;
  assert.is(kinds(planWrite(out, files, { ...manifest, files: others }, false))["test/service.test.ts"], "create");

  // The user writes it again: it is theirs, kept, and the manifest no longer says deleted.
  fs.writeFileSync(path.join(out, "test/service.test.ts"), "// my own test\n");
  assert.is(planUnchanged(out, readManifest(out), INPUTS), undefined, "the full plan records the file again");
  const plan = planWrite(out, files, readManifest(out), false);
  assert.is(kinds(plan)["test/service.test.ts"], "keep");
  commitPlan(out, plan, { generator: "test", inputs: INPUTS });
  assert.is(readManifest(out)!.files["test/service.test.ts"]!.deleted, undefined);
  assert.is(fs.readFileSync(path.join(out, "test/service.test.ts"), "utf8"), "// my own test\n");
});

test("a required file the user deleted is written again, whole", () => {
  const out = firstGeneration("required");
  fs.rmSync(path.join(out, "src/hooks/books.ts"));
  commitPlan(out, planWrite(out, files, readManifest(out), false), { generator: "test", inputs: INPUTS });
  assert.is(fs.readFileSync(path.join(out, "src/hooks/books.ts"), "utf8"), "export const hooks = {};\n");
  assert.equal(readManifest(out)!.files["src/hooks/books.ts"], { hash: hashOf("export const hooks = {};\n"), owner: "user" });
});


test("a worker's page arrives encoded: written and hashed from its bytes, its text decoded only when read", () => {
  const out = firstGeneration("encoded");
  const text = '{ "title": "Pages … and “quotes”", "emoji": "📚" }\n';
  const bytes = new Uint8Array(Buffer.from(text, "utf8"));
  let decoded = 0;
  const page = encodedFile("docs/openapi.json", "generated", bytes);
  const counting: EmittedFile = Object.defineProperty({ ...page, bytes }, "contents", {
    get: () => (decoded++, page.contents),
    enumerable: true,
  });
  const plan = planWrite(out, [...files, counting], readManifest(out), false);
  assert.is(kinds(plan)["docs/openapi.json"], "create");
  commitPlan(out, plan, { generator: "test", inputs: INPUTS });
  assert.is(fs.readFileSync(path.join(out, "docs/openapi.json"), "utf8"), text, "the bytes written are the page's");
  assert.is(readManifest(out)?.files["docs/openapi.json"]?.hash, hashOf(text), "the hash of the bytes is the hash of the text");
  assert.is(decoded, 0, "planning and writing never decoded the page");
  assert.is(page.contents, text, "read as text, the page decodes to what was encoded");
  // Regenerated alike: unchanged, still without decoding it.
  const again = planWrite(out, [...files, counting], readManifest(out), false);
  assert.is(kinds(again)["docs/openapi.json"], "unchanged");
  assert.is(decoded, 0);
});

test.run();
