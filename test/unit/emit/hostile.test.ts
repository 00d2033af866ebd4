/**
 * Every emitter on the hostile definitions (test/fixtures/hostile/project: each text field carries
 * every breakout of payloads.ts), in process: each TypeScript and JavaScript file it emits parses
 * without error and holds the payloads only inside strings and comments (no payload identifier is
 * code); JSON parses; HTML has only its own elements; Markdown has no raw HTML and no stray fence.
 * The e2e test (test/e2e/hostile-definitions.test.ts) then builds, tests and serves such a package.
 */
import { spawnSync } from "node:child_process";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import ts from "typescript";
import { test } from "uvu";
import * as assert from "uvu/assert";
import { emitClientOnly, emitService, type EmittedFile } from "../../../src/emit/index.js";
import { checkProject } from "../../../src/pipeline.js";
import { compactPayload, payload, writeHostileProject } from "../../fixtures/hostile/payloads.js";

const tmp = fs.mkdtempSync(path.join(os.tmpdir(), "resourcery-hostile-unit-"));
const SENTINELS = path.join(tmp, "sentinels");
writeHostileProject(path.join(tmp, "defs"), SENTINELS);
const checked = checkProject(path.join(tmp, "defs"));

/** An identifier of the payloads' code that resourcery's own output never uses. */
const PAYLOAD_CODE = "getBuiltinModule";

let files: EmittedFile[] = [];

test("the hostile definitions pass check", () => {
  assert.ok(checked.model, JSON.stringify(checked.diagnostics, null, 2));
});

test("every emitter emits them", async () => {
  files = [...(await emitService(checked.model!)), ...(await emitClientOnly(checked.model!)).map((f) => ({ ...f, path: `client-only/${f.path}` }))];
  assert.ok(files.length > 50);
});

test("TypeScript and JavaScript files parse, and the payloads are never code", () => {
  let checkedFiles = 0;
  for (const f of files.filter((x) => /\.(ts|js)$/.test(x.path))) {
    const source = ts.createSourceFile(f.path, f.contents, ts.ScriptTarget.ES2022, true, f.path.endsWith(".js") ? ts.ScriptKind.JS : ts.ScriptKind.TS);
    const errors = (source as unknown as { parseDiagnostics: ts.Diagnostic[] }).parseDiagnostics;
    assert.equal(errors.map((d) => `${f.path}:${d.start}: ${ts.flattenDiagnosticMessageText(d.messageText, " ")}`), [], f.path);
    const visit = (node: ts.Node): void => {
      const at = () => `${f.path}:${source.getLineAndCharacterOfPosition(node.getStart()).line + 1}: ${node.parent.getText().slice(0, 120)}`;
      if (ts.isIdentifier(node) && node.text === PAYLOAD_CODE) assert.unreachable(`payload code at ${at()}`);
      if (node.kind === ts.SyntaxKind.ImportKeyword && ts.isCallExpression(node.parent) && node.parent.arguments[0]?.getText() === '"node:fs"') assert.unreachable(`payload import() at ${at()}`);
      ts.forEachChild(node, visit);
    };
    visit(source);
    checkedFiles++;
  }
  assert.ok(checkedFiles > 30, `${checkedFiles} files`);
});

test("JSON files parse, and openapi.json and errors.json hold the text exactly", () => {
  for (const f of files.filter((x) => x.path.endsWith(".json"))) JSON.parse(f.contents);
  const openapi = JSON.parse(files.find((f) => f.path === "docs/openapi.json")!.contents);
  assert.is(openapi.info.title, `Hostile ${payload(SENTINELS, 1)}`);
  assert.ok(openapi.info.description.startsWith(`${payload(SENTINELS, 2)}\n`));
  const errors = JSON.parse(files.find((f) => f.path === "src/generated/errors.json")!.contents) as { code: number; title: string; message: string; dev: string }[];
  const own = errors.find((e) => e.code === 1001)!;
  assert.equal([own.title, own.message, own.dev], [payload(SENTINELS, 16), payload(SENTINELS, 17), payload(SENTINELS, 18)]);
});

test("HTML pages have only their own elements: the payloads' tags are text", () => {
  const pages = files.filter((f) => f.path.endsWith(".html"));
  assert.ok(pages.length > 10);
  for (const f of pages) {
    const redirect = /^docs\/\d+\/index\.html$/.test(f.path);
    assert.is(f.contents.match(/<script\b/g)?.length ?? 0, redirect ? 0 : 2, `${f.path}: <script> elements`);
    assert.is(f.contents.match(/<\/script>/g)?.length ?? 0, redirect ? 0 : 2, `${f.path}: </script>`);
    assert.not.match(f.contents, /<img|<!--|-->|onerror=/, f.path);
  }
  const notes = files.find((f) => f.path === "docs/resources/notes.html")!.contents;
  assert.ok(notes.includes("&lt;/script&gt;&lt;script&gt;"), "the tags are shown, escaped");
});

test("the docs' search index cannot close a <script> and holds the text", () => {
  const index = files.find((f) => f.path === "docs/assets/search-index.js")!.contents;
  assert.not.match(index, /[<>\u2028\u2029]/);
  const entries = JSON.parse(index.slice(index.indexOf("= ") + 2, index.lastIndexOf(";"))) as { detail: string }[];
  assert.ok(entries.some((e) => e.detail.includes(payload(SENTINELS, 21))));
});

/** A line of Markdown without its code spans (CommonMark: a run of n unescaped backticks up to the next run of exactly n). */
function withoutCodeSpans(line: string): string {
  let out = "";
  for (let i = 0; i < line.length; ) {
    if (line[i] === "\\") {
      out += line.slice(i, i + 2);
      i += 2;
      continue;
    }
    if (line[i] !== "`") {
      out += line[i++];
      continue;
    }
    const run = /^`+/.exec(line.slice(i))![0];
    const close = new RegExp(`(?<!\`)${run}(?!\`)`, "g");
    close.lastIndex = i + run.length;
    const end = close.exec(line);
    if (end) i = end.index + run.length;
    else {
      out += run;
      i += run.length;
    }
  }
  return out;
}

test("Markdown files have no raw HTML and no line that opens or closes a fence of the payloads", () => {
  for (const f of files.filter((x) => x.path.endsWith(".md"))) {
    let fence: string | undefined;
    for (const [i, line] of f.contents.split(/\r\n|\r|\n/).entries()) {
      const marker = /^\s*(`{3,}|~{3,})/.exec(line)?.[1];
      if (fence === undefined) {
        if (marker) fence = marker;
        else {
          // Outside code: no raw tag or comment (code spans may show them: drop those first), but
          // for the README's own first line, a comment whose text must not end it early.
          const header = i === 0 && /^<!--[\s\S]*-->$/.exec(line) ? line.slice(4, -3) : undefined;
          // The reference's own anchors (<a id="slug"></a>) are the one tag it writes.
          const prose = withoutCodeSpans(header ?? line).replace(/<a id="[A-Za-z0-9_.-]*"><\/a>/g, "");
          assert.not.match(prose, /(^|[^\\])[<>]/, `${f.path}:${i + 1}: ${line.slice(0, 120)}`);
        }
      } else if (marker && marker.startsWith(fence[0]!) && marker.length >= fence.length && line.trim() === marker) fence = undefined;
    }
    assert.is(fence, undefined, `${f.path}: every fence is closed`);
  }
});

test("the README's shell line of roles is one quoted word on one line, read back by a shell as the roles", () => {
  const readme = files.find((f) => f.path === "README.md")!.contents;
  const line = readme.split("\n").find((l) => l.startsWith("npm run keys -- create --roles "))!;
  const word = line.slice("npm run keys -- create --roles ".length, line.lastIndexOf("   #")).trim();
  const r = spawnSync("bash", ["-c", `printf '%s' ${word}`], { encoding: "utf8", env: { ...process.env, LC_ALL: "C.UTF-8" } });
  assert.is(r.stdout, [`admin${compactPayload(SENTINELS, 51)}`, `reader${compactPayload(SENTINELS, 52)}`, `writer${compactPayload(SENTINELS, 50)}`].join(","));
});

test("no sentinel was created while emitting", () => {
  assert.not.ok(fs.existsSync(SENTINELS) && fs.readdirSync(SENTINELS).length > 0);
});

test.after(() => fs.rmSync(tmp, { recursive: true, force: true }));
test.run();
