/**
 * Definitions are untrusted input: what a check reads from disk. $refs and resources entries stay
 * inside the project folder (unless allowed), only regular files are read and never in a way that
 * blocks, sizes are capped, UTF-8 is strict. Cases that cannot be committed as files (symbolic
 * links, FIFOs, devices, sockets, huge files) are made here at run time.
 */
import { spawnSync } from "node:child_process";
import fs from "node:fs";
import net from "node:net";
import os from "node:os";
import path from "node:path";
import { test } from "uvu";
import * as assert from "uvu/assert";
import { toJson } from "../../../src/diagnostics/render.js";
import { checkProject } from "../../../src/pipeline.js";
import type { CheckOptions } from "../../../src/load/limits.js";
import { repoRoot } from "../../helpers/cli.js";

const SECRET = "SECRET-OUTSIDE-THE-PROJECT";
const tmp = fs.mkdtempSync(path.join(os.tmpdir(), "rsc-read-"));
const outside = path.join(tmp, "outside");
fs.mkdirSync(outside);
fs.writeFileSync(path.join(outside, "secret.json"), JSON.stringify({ $defs: { isbn: { type: "string", description: SECRET } } }));
let counter = 0;

/** A project with service.json (resources as given) and files (path → content), in a fresh folder. */
function project(files: Record<string, string>, resources: string[] = ["book.json"]): string {
  const dir = path.join(tmp, `p${++counter}`);
  fs.mkdirSync(dir);
  const service = { name: "shop-service", vendor: "acme", version: 1, baseUrl: "https://api.example.com/v1", errorDocsUrl: "https://docs.example.com/errors", resources };
  fs.writeFileSync(path.join(dir, "service.json"), JSON.stringify(service, null, 2));
  for (const [file, text] of Object.entries(files)) {
    fs.mkdirSync(path.dirname(path.join(dir, file)), { recursive: true });
    fs.writeFileSync(path.join(dir, file), text);
  }
  return dir;
}

/** A book resource whose property "isbn" is `{"$ref": ref}`. */
function bookWithRef(ref: string): string {
  return JSON.stringify({ type: "object", "x-collection": "books", properties: { isbn: { $ref: ref } } }, null, 2);
}

/** The code, pointer and message of every diagnostic of a check, and whether the secret reached anything. */
function check(dir: string, options?: CheckOptions) {
  const result = checkProject(dir, options);
  const leaked = JSON.stringify(result.model ?? null).includes(SECRET) || [...result.sources.values()].some((s) => s.text.includes(SECRET));
  return { result, leaked, found: result.diagnostics.map((d) => ({ code: d.code, pointer: d.pointer, message: d.message })) };
}

test("a $ref that is absolute, climbs out with ../, is a file:// URL or a symbolic link out is refused, and nothing of it is read", () => {
  const secret = path.join(outside, "secret.json");
  const refs = [`${secret}#/$defs/isbn`, `../outside/secret.json#/$defs/isbn`, `file://${secret}#/$defs/isbn`, "link.json#/$defs/isbn"];
  for (const ref of refs) {
    const dir = project({ "book.json": bookWithRef(ref) });
    fs.symlinkSync(secret, path.join(dir, "link.json"));
    const { found, leaked } = check(dir);
    assert.equal(found.map((f) => [f.code, f.pointer]), [["ref-outside-project", "/properties/isbn/$ref"]], ref);
    assert.not.ok(leaked, `${ref}: the file outside was read`);
  }
  // A symbolic link is named with its real path, the only place it shows.
  const dir = project({ "book.json": bookWithRef("link.json#/$defs/isbn") });
  fs.symlinkSync(secret, path.join(dir, "link.json"));
  assert.match(check(dir).found[0]!.message, `(through a symbolic link, to ${fs.realpathSync(secret)})`);
});

test("a symbolic link to a folder outside is refused too; one inside the project is followed", () => {
  const dir = project({ "book.json": bookWithRef("shared/secret.json#/$defs/isbn"), "real/common.json": JSON.stringify({ $defs: { isbn: { type: "string" } } }) });
  fs.symlinkSync(outside, path.join(dir, "shared"));
  assert.equal(check(dir).found.map((f) => f.code), ["ref-outside-project"]);
  const inside = project({ "book.json": bookWithRef("shared/common.json#/$defs/isbn"), "real/common.json": JSON.stringify({ $defs: { isbn: { type: "string" } } }) });
  fs.symlinkSync(path.join(inside, "real"), path.join(inside, "shared"));
  assert.equal(check(inside).found, []);
});

test("--allow-path (allowPaths) lets $refs and resources entries read a folder outside the project", () => {
  const dir = project({ "book.json": bookWithRef("../outside/secret.json#/$defs/isbn") });
  assert.equal(check(dir).found.map((f) => f.code), ["ref-outside-project"]);
  const allowed = check(dir, { allowPaths: [outside] });
  assert.equal(allowed.found, []);
  assert.ok(allowed.leaked, "the allowed file is read");
  // Only what is allowed: the folder beside it stays out.
  assert.equal(check(dir, { allowPaths: [path.join(tmp, "elsewhere")] }).found.map((f) => f.code), ["ref-outside-project"]);
});

test("a $ref in a shared file that leads out is reported where it is written", () => {
  const dir = project({
    "book.json": bookWithRef("common.json#/$defs/isbn"),
    "common.json": JSON.stringify({ $defs: { isbn: { $ref: "../outside/secret.json#/$defs/isbn" } } }),
  });
  const { found, result, leaked } = check(dir);
  assert.equal(found.map((f) => [f.code, f.pointer]), [["ref-outside-project", "/$defs/isbn/$ref"]]);
  assert.is(path.basename(result.diagnostics[0]!.file), "common.json");
  assert.not.ok(leaked);
});

test("resources entries outside the project, literal or glob, are refused before anything is searched; globs do not follow symbolic links", () => {
  const book = JSON.stringify({ type: "object", "x-collection": "books", properties: {} });
  const dir = project({ "book.json": book }, ["book.json", "../outside/secret.json", `${outside}/*.json`, "../**/*.json", "linked/*.json"]);
  fs.symlinkSync(outside, path.join(dir, "linked"));
  const { found, leaked } = check(dir);
  assert.equal(found.map((f) => [f.code, f.pointer]), [
    ["ref-outside-project", "/resources/1"],
    ["ref-outside-project", "/resources/2"],
    ["ref-outside-project", "/resources/3"],
    // The glob's folder is a link out: not followed below it, and what it holds is refused by its real path.
    ["ref-outside-project", "/resources/4"],
  ]);
  assert.not.ok(leaked);
  // A literal entry that is a symbolic link out is refused by its real path.
  const linked = project({ "book.json": book }, ["book.json", "secret.json"]);
  fs.symlinkSync(path.join(outside, "secret.json"), path.join(linked, "secret.json"));
  assert.equal(check(linked).found.map((f) => [f.code, f.pointer]), [["ref-outside-project", "/resources/1"]]);
});

test("a glob does not search node_modules (a generated package with its packages inside the project)", () => {
  const book = JSON.stringify({ type: "object", "x-collection": "books", properties: {} });
  const dir = project({ "resources/book.json": book, "out/node_modules/fastify/package.json": '{"name": "fastify"}' }, ["**/*.json"]);
  const { result, found } = check(dir);
  assert.equal(found, []);
  assert.equal(result.model!.sources.map((f) => path.relative(dir, f)), ["resources/book.json", "service.json"]);
});

test("service.json that is a symbolic link out of the project is not read", () => {
  const dir = path.join(tmp, `p${++counter}`);
  fs.mkdirSync(dir);
  fs.symlinkSync(path.join(outside, "secret.json"), path.join(dir, "service.json"));
  const { found, leaked } = check(dir);
  assert.equal(found.map((f) => f.code), ["ref-outside-project"]);
  assert.not.ok(leaked);
});

test("a FIFO or a device named by a $ref or a resources entry is refused without blocking or reading", () => {
  // In a child process with a deadline: before the fix, the FIFO blocked forever and /dev/zero grew to gigabytes.
  const dir = project({ "book.json": bookWithRef("pipe.json") }, ["book.json", "queue.json", "zero.json"]);
  spawnSync("mkfifo", [path.join(dir, "pipe.json"), path.join(dir, "queue.json")]);
  fs.symlinkSync("/dev/zero", path.join(dir, "zero.json"));
  const script = `
    import { checkProject } from ${JSON.stringify(path.join(repoRoot, "src/pipeline.ts"))};
    const r = checkProject(${JSON.stringify(dir)}, { allowPaths: ["/dev"] });
    console.log(JSON.stringify(r.diagnostics.map((d) => [d.code, d.pointer, d.message])));`;
  const child = spawnSync(process.execPath, ["--import", "tsx", "--input-type=module", "-e", script], { cwd: repoRoot, encoding: "utf8", timeout: 30_000 });
  assert.is(child.signal, null, "the check blocked (killed at the deadline)");
  const found = JSON.parse(child.stdout) as [string, string, string][];
  assert.equal(found.map(([code, pointer]) => [code, pointer]), [
    ["unreadable-file", "/resources/1"],
    ["unreadable-file", "/resources/2"],
    ["unreadable-file", "/properties/isbn/$ref"],
  ]);
  assert.match(found[0]![2], "a named pipe (FIFO), not a regular file");
  assert.match(found[1]![2], "a device, not a regular file");
});

test("a socket or a folder is not a definition file", async () => {
  const dir = project({ "book.json": bookWithRef("sock.json"), "folder.json/x.json": "{}" }, ["book.json", "folder.json"]);
  const server = net.createServer();
  await new Promise<void>((resolve) => server.listen(path.join(dir, "sock.json"), resolve));
  try {
    const { found } = check(dir);
    assert.equal(found.map((f) => [f.code, f.pointer]), [["unreadable-file", "/resources/1"], ["unreadable-file", "/properties/isbn/$ref"]]);
    assert.match(found[0]!.message, "a folder, not a regular file");
    assert.match(found[1]!.message, "a socket, not a regular file");
  } finally {
    server.close();
  }
});

test("a file over 16 MiB is refused unread (a sparse 50 MB file is not read); the limits can be set", () => {
  const dir = project({ "book.json": bookWithRef("big.json#/$defs/isbn") }, ["book.json", "huge.json"]);
  for (const f of ["big.json", "huge.json"]) {
    const fd = fs.openSync(path.join(dir, f), "w");
    fs.ftruncateSync(fd, 50_000_000);
    fs.closeSync(fd);
  }
  const started = Date.now();
  const { found } = check(dir);
  assert.ok(Date.now() - started < 2000, "the big files were read");
  assert.equal(found.map((f) => [f.code, f.pointer]), [["unreadable-file", "/resources/1"], ["unreadable-file", "/properties/isbn/$ref"]]);
  assert.match(found[0]!.message, "a file of 50 000 000 bytes, over the 16 MiB a definition file may hold");

  const common = JSON.stringify({ $defs: { isbn: { type: "string", description: "An ISBN-13, the number on the back of the book.".repeat(10) } } });
  const small = project({ "book.json": bookWithRef("common.json#/$defs/isbn"), "common.json": common });
  const size = (f: string) => fs.statSync(path.join(small, f)).size;
  assert.equal(check(small).found, []);
  assert.equal(check(small, { limits: { fileBytes: size("common.json") - 1 } }).found.map((f) => [f.code, f.pointer]), [["unreadable-file", "/properties/isbn/$ref"]]);
  // The total: service.json and book.json fit, common.json would take it past the limit.
  const { found: total } = check(small, { limits: { totalBytes: size("service.json") + size("book.json") + 10 } });
  assert.equal(total.map((f) => [f.code, f.pointer]), [["unreadable-file", "/properties/isbn/$ref"]]);
  assert.match(total[0]!.message, "would take the definition files read past");
});

test("invalid UTF-8 is a diagnostic at the first bad byte; a byte order mark is allowed", () => {
  const text = '{\n  "type": "object",\n  "x-collection": "books",\n  "properties": { "t": { "description": "caf\u00e9 BAD" } }\n}';
  const bad = Buffer.from(text, "utf8");
  const at = bad.indexOf("BAD");
  bad[at] = 0xff;
  const dir = project({});
  fs.writeFileSync(path.join(dir, "book.json"), bad);
  const { result } = check(dir);
  assert.equal(result.diagnostics.map((d) => [d.code, d.message]), [["invalid-utf8", "the file is not valid UTF-8: 0xFF here is not a character"]]);
  // The offset is in characters of the text: "é" is two bytes but one character.
  assert.is(result.diagnostics[0]!.offset, text.indexOf("BAD"));

  const bom = project({});
  fs.writeFileSync(path.join(bom, "book.json"), Buffer.concat([Buffer.from([0xef, 0xbb, 0xbf]), Buffer.from(text.replace("BAD", "ok"))]));
  assert.equal(check(bom).found, []);
});

test("nesting 10 000 levels deep is a diagnostic, not a stack overflow; 128 levels are fine", () => {
  const deepArrays = `{"type":"object","x-collection":"books","properties":{},"examples":[${"[".repeat(10_000)}${"]".repeat(10_000)}]}`;
  const deepObjects = `{"type":"object","x-collection":"books","properties":{},"examples":[${'{"a":'.repeat(10_000)}1${"}".repeat(10_000)}]}`;
  for (const text of [deepArrays, deepObjects]) {
    const { found, result } = check(project({ "book.json": text }));
    assert.equal(found.map((f) => f.code), ["nesting-too-deep"]);
    // The first bracket past the limit: 128 levels open before it.
    assert.is(result.diagnostics[0]!.offset, firstAtDepth(text, 129));
  }
  // Levels 1 (the root) to 128, brackets in strings not counted.
  const ok = `{"type":"object","x-collection":"books","properties":{"t":{"description":"[[[[{{{{"}},"examples":[${"[".repeat(126)}${"]".repeat(126)}]}`;
  const bare = ok.replace('"[[[[{{{{"', '""');
  assert.ok(firstAtDepth(bare, 128) > 0 && firstAtDepth(bare, 129) === -1, "the case nests exactly 128 levels");
  assert.equal(check(project({ "book.json": ok })).found, []);
  const over = ok.replace("[".repeat(126), "[".repeat(127)).replace("]".repeat(126), "]".repeat(127));
  assert.equal(check(project({ "book.json": over })).found.map((f) => f.code), ["nesting-too-deep"]);
});

/** The offset of the first `[` or `{` that opens level `n`, in a text whose strings hold no brackets. */
function firstAtDepth(text: string, n: number): number {
  let depth = 0;
  for (let i = 0; i < text.length; i++) {
    if (text[i] === "[" || text[i] === "{") {
      if (++depth === n) return i;
    } else if (text[i] === "]" || text[i] === "}") depth--;
  }
  return -1;
}

test("20 000 invalid schemas in one file are 20 000 diagnostics in linear time (validation, then positions)", () => {
  // Before: ajv copied all errors so far per subschema, and each position counted lines from the start: 28 s.
  const properties = Array.from({ length: 20_000 }, (_, i) => `"p${i}": { "type": "strin" }`).join(",\n");
  const dir = project({ "book.json": `{"type": "object", "x-collection": "books", "properties": {\n${properties}\n}}` });
  const started = performance.now();
  const { result, found } = check(dir);
  const items = toJson(result.diagnostics, result.sources, dir);
  const ms = performance.now() - started;
  assert.is(found.length, 20_000);
  assert.ok(found.every((f) => f.code === "invalid-schema"));
  assert.equal([items[19_999]!.line, items[19_999]!.pointer], [20_001, "/properties/p19999/type"]);
  assert.ok(ms < 8000, `check and positions took ${Math.round(ms)} ms`);
});

test("the examples still check clean", () => {
  for (const example of ["library", "directory"]) assert.equal(check(path.join(repoRoot, "examples", example)).found, [], example);
});

test.after(() => fs.rmSync(tmp, { recursive: true, force: true }));

test.run();
