/**
 * Through the built CLI, as a user runs it: hostile definitions (10 000-deep nesting, a 50 MB file,
 * a $ref out of the project) are diagnostics and exit 1, never a stack trace or an internal error;
 * `--allow-path DIR` lets a $ref read DIR, on check, generate and docs.
 */
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { test } from "uvu";
import * as assert from "uvu/assert";
import { runCli } from "../helpers/cli.js";

const tmp = fs.mkdtempSync(path.join(os.tmpdir(), "rsc-cli-read-"));
const service = { name: "shop-service", vendor: "acme", version: 1, baseUrl: "https://api.example.com/v1", errorDocsUrl: "https://docs.example.com/errors", resources: ["book.json"] };

function project(name: string, book: string): string {
  const dir = path.join(tmp, name);
  fs.mkdirSync(dir, { recursive: true });
  fs.writeFileSync(path.join(dir, "service.json"), JSON.stringify(service, null, 2));
  fs.writeFileSync(path.join(dir, "book.json"), book);
  return dir;
}

function assertDiagnosed(r: ReturnType<typeof runCli>, code: string): void {
  assert.is(r.code, 1, r.stdout + r.stderr);
  assert.match(r.stdout, `  error  ${code}  `);
  assert.not.match(r.stdout + r.stderr, "internal error");
  assert.not.match(r.stdout + r.stderr, /\n\s+at /);
}

test("a 10 000-deep file and a 50 MB file: diagnostics and exit 1, no stack trace", () => {
  const deep = project("deep", `{"type":"object","x-collection":"books","properties":{},"examples":[${"[".repeat(10_000)}${"]".repeat(10_000)}]}`);
  assertDiagnosed(runCli(["check", deep]), "nesting-too-deep");
  const big = project("big", `{"type":"object","x-collection":"books","properties":{"pad":{"description":"${"x".repeat(50_000_000)}"}}}`);
  assertDiagnosed(runCli(["check", big]), "unreadable-file");
  assertDiagnosed(runCli(["generate", big, "--out", path.join(tmp, "big-out")]), "unreadable-file");
  assert.not.ok(fs.existsSync(path.join(tmp, "big-out")), "nothing is written");
});

test("--allow-path DIR lets a $ref read DIR on check, generate and docs; without it the $ref is refused", () => {
  const shared = path.join(tmp, "shared");
  fs.mkdirSync(shared);
  fs.writeFileSync(path.join(shared, "common.json"), JSON.stringify({ $defs: { isbn: { type: "string", pattern: "^[0-9]{13}$" } } }));
  const dir = project("uses-shared", JSON.stringify({ type: "object", "x-collection": "books", properties: { isbn: { $ref: "../shared/common.json#/$defs/isbn" } } }));
  assertDiagnosed(runCli(["check", dir]), "ref-outside-project");
  const checked = runCli(["check", dir, "--allow-path", shared]);
  assert.is(checked.code, 0, checked.stdout + checked.stderr);
  const docs = runCli(["docs", dir, "--out", path.join(tmp, "site"), "--allow-path", shared]);
  assert.is(docs.code, 0, docs.stdout + docs.stderr);
  assert.match(fs.readFileSync(path.join(tmp, "site", "openapi.json"), "utf8"), "^[0-9]{13}$");
  const generated = runCli(["generate", dir, "--out", path.join(tmp, "service"), "--dry-run", "--allow-path", shared]);
  assert.is(generated.code, 0, generated.stdout + generated.stderr);
  // A folder that does not exist is a usage error.
  assert.is(runCli(["check", dir, "--allow-path", path.join(tmp, "nowhere")]).code, 2);
});

test.after(() => fs.rmSync(tmp, { recursive: true, force: true }));

test.run();
