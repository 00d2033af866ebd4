/**
 * Regenerating carries the user's code along (CONTRACT §5): before a regeneration is written, the user's
 * files are type-checked against the new generated code. A schema change that breaks a hook stops generate
 * with the hook's file, line and column, the TypeScript error and the schema change behind it, exit 1 and
 * OUT as it was; `--force` writes anyway. An error the user's code had already is not the generation's.
 */
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { test } from "uvu";
import * as assert from "uvu/assert";
import { repoRoot, runCli } from "../helpers/cli.js";
import { freePort, linkModules, run, snapshot, start } from "../helpers/package.js";

type Json = Record<string, any>;
const tmp = fs.mkdtempSync(path.join(os.tmpdir(), "resourcery-user-code-"));
const defs = path.join(tmp, "defs");
const out = path.join(tmp, "library-service");
const bookFile = path.join(defs, "resources/book.json");
let hookFile = path.join(out, "src/hooks/books.ts");
const readJson = (file: string): Json => JSON.parse(fs.readFileSync(file, "utf8"));
const writeJson = (file: string, value: unknown) => fs.writeFileSync(file, JSON.stringify(value, null, 2) + "\n");

/** A hook of the user's that reads books' pages. */
const HOOK = `import type { ResourceHooks } from "../generated/errors.js";
import type * as types from "../generated/types.js";

/** Business rules of books. */
export const hooks: ResourceHooks<types.BookInput, types.Book> = {
  beforeCreate(input, ctx) {
    if (input.pages !== undefined && input.pages > 5000) throw ctx.error("invalidProperty", "pages", "Too many pages.");
  },
};
`;

test.before(() => {
  fs.cpSync(path.join(repoRoot, "examples/library"), defs, { recursive: true });
  const first = runCli(["generate", defs, "--out", out]);
  assert.is(first.code, 0, first.stdout + first.stderr);
  linkModules(out);
  fs.writeFileSync(hookFile, HOOK);
});
test.after(() => fs.rmSync(tmp, { recursive: true, force: true }));

/** A hook file of the user's that lost the export the generated wiring imports (renamed by hand). */
const AUTHORS = `// Rules for authors, kept by hand.
import type { ResourceHooks } from "../generated/errors.js";

export const authorRules = { maxBooks: 3 };
`;

test("a compatible change that leaves the hook compiling is written; a kept file that lacks what the wiring imports gains it, every line kept", () => {
  const authorsFile = path.join(out, "src/hooks/authors.ts");
  fs.writeFileSync(authorsFile, AUTHORS);
  const book = readJson(bookFile);
  book.properties.subtitle = { type: "string" };
  writeJson(bookFile, book);
  const gen = runCli(["generate", defs, "--out", out]);
  assert.is(gen.code, 0, gen.stdout + gen.stderr);
  assert.match(fs.readFileSync(path.join(out, "client/types.ts"), "utf8"), /subtitle/);
  assert.match(gen.stdout, /merged\s+src\/hooks\/authors\.ts\s+\(your file: added export hooks and 1 import/);
  const merged = fs.readFileSync(authorsFile, "utf8").split("\n");
  // Only added lines: the user's lines are all there, in order, byte for byte.
  let at = 0;
  for (const line of AUTHORS.split("\n")) {
    while (at < merged.length && merged[at] !== line) at++;
    assert.ok(at < merged.length, `the user's line ${JSON.stringify(line)} is kept in order`);
    at++;
  }
  assert.ok(merged.length > AUTHORS.split("\n").length);
  assert.match(merged.join("\n"), /export const hooks: ResourceHooks<types\.AuthorInput, types\.Author>/);
  const tsc = run(process.execPath, [path.join(repoRoot, "node_modules/typescript/bin/tsc"), "-p", "tsconfig.json", "--noEmit"], out);
  assert.is(tsc.code, 0, tsc.output);
});

test("a renamed collection (same schema file): the hook file moves, its type names renamed, every other line kept; it compiles and runs on the new route", async () => {
  const book = readJson(bookFile);
  book["x-collection"] = "volumes";
  book.title = "Volume";
  writeJson(bookFile, book);
  const gen = runCli(["generate", defs, "--out", out, "--allow-breaking"]);
  assert.is(gen.code, 0, gen.stdout + gen.stderr);
  assert.match(gen.stdout, /moved\s+src\/hooks\/volumes\.ts\s+\(your src\/hooks\/books\.ts, its collection renamed; Book → Volume, BookInput → VolumeInput\)/);
  assert.match(gen.stdout, /moved\s+src\/hooks\/books\.ts\s+\(to src\/hooks\/volumes\.ts\)/);
  assert.not.match(gen.stdout, /orphaned/);
  assert.not.ok(fs.existsSync(hookFile), "the old hook file is gone");
  hookFile = path.join(out, "src/hooks/volumes.ts");
  const moved = fs.readFileSync(hookFile, "utf8");
  assert.is(moved, HOOK.replace("ResourceHooks<types.BookInput, types.Book>", "ResourceHooks<types.VolumeInput, types.Volume>"), "only the type names changed");
  assert.not.match(fs.readFileSync(path.join(out, "client/types.ts"), "utf8"), /@deprecated[^\n]*\n[^\n]*\bBook\b/, "no deprecated alias for the old name");
  // It compiles, and the hook runs on the renamed route.
  const tsc = run(process.execPath, [path.join(repoRoot, "node_modules/typescript/bin/tsc"), "-p", "tsconfig.json"], out);
  assert.is(tsc.code, 0, tsc.output);
  const keysFile = path.join(tmp, "keys.json");
  const key = run("npm", ["run", "--silent", "keys", "--", "create", "--roles", "librarian"], out, { KEYS_FILE: keysFile });
  assert.is(key.code, 0, key.output);
  const secret = (JSON.parse(key.output.trim()) as { secret: string }).secret;
  const port = await freePort();
  const base = `http://127.0.0.1:${port}/v2`;
  const server = await start(out, { PORT: String(port), BASE_URL: base, KEYS_FILE: keysFile, DATABASE_FILE: path.join(tmp, "data.db"), LOG_LEVEL: "warn" }, `${base}/`);
  try {
    const headers = { authorization: `Bearer ${secret}`, "content-type": "application/json" };
    const author = (await (await fetch(`${base}/authors`, { method: "POST", headers, body: JSON.stringify({ name: "Le Guin" }) })).json()) as Json;
    const refused = await fetch(`${base}/volumes`, { method: "POST", headers, body: JSON.stringify({ title: "Huge", pages: 6000, author: { meta: { href: author.meta.href } } }) });
    const body = (await refused.json()) as Json;
    assert.is(refused.status, 400, JSON.stringify(body));
    assert.is(body.dev, "Too many pages.");
    const fine = await fetch(`${base}/volumes`, { method: "POST", headers, body: JSON.stringify({ title: "Small", pages: 60, author: { meta: { href: author.meta.href } } }) });
    assert.is(fine.status, 201);
  } finally {
    await server.stop();
  }
});

test("removing the property the hook reads is refused: the hook's file, line and column, the error, the schema change; OUT as it was", () => {
  const book = readJson(bookFile);
  delete book.properties.pages;
  writeJson(bookFile, book);
  const before = snapshot(out);
  const gen = runCli(["generate", defs, "--out", out, "--allow-breaking"]);
  assert.is(gen.code, 1, gen.stdout + gen.stderr);
  const line = HOOK.split("\n").findIndex((l) => l.includes("input.pages")) + 1;
  const column = HOOK.split("\n")[line - 1]!.indexOf("pages") + 1;
  assert.ok(gen.stdout.includes(`library-service/src/hooks/volumes.ts:${line}:${column}  error  user-code`), gen.stdout);
  assert.match(gen.stdout, /Property 'pages' does not exist on type/);
  assert.match(gen.stdout, /because in the definitions volumes\.pages: property "pages" was removed.* \(resources\/book\.json#\/properties\/pages\)/);
  assert.not.match(gen.stdout, /\n\s+at /, "no stack trace");
  assert.equal(snapshot(out), before, "nothing written");
});

test("--json carries the same diagnostic with its position", () => {
  const gen = runCli(["generate", defs, "--out", out, "--allow-breaking", "--json"]);
  assert.is(gen.code, 1);
  const found = (JSON.parse(gen.stdout).diagnostics as Json[]).filter((d) => d.rule === "user-code" || d.code === "user-code");
  assert.is(found.length >= 1, true, gen.stdout);
  assert.is(found[0]!.line > 1, true);
});

test("--force writes anyway, and the hook is kept as the user wrote it", () => {
  const gen = runCli(["generate", defs, "--out", out, "--force"]);
  assert.is(gen.code, 0, gen.stdout + gen.stderr);
  assert.is(fs.readFileSync(hookFile, "utf8"), HOOK.replace("ResourceHooks<types.BookInput, types.Book>", "ResourceHooks<types.VolumeInput, types.Volume>"));
  assert.not.match(fs.readFileSync(path.join(out, "client/types.ts"), "utf8"), /\bpages\?:/);
});

test("an error the user's code already had is not the new generation's: a change is written", () => {
  // The hook no longer compiles since the forced generation; a further change does not stop on that.
  const book = readJson(bookFile);
  book.properties.edition = { type: "integer" };
  writeJson(bookFile, book);
  const gen = runCli(["generate", defs, "--out", out]);
  assert.is(gen.code, 0, gen.stdout + gen.stderr);
  assert.match(fs.readFileSync(path.join(out, "client/types.ts"), "utf8"), /edition/);
});

test.run();
