/**
 * The check corpus: every folder under test/fixtures/check/ is a small definitions project broken in
 * one way (or, for clean-*, tricky but valid), with expected.txt holding exactly what `resourcery check`
 * prints for it. `UPDATE=1` re-records expected.txt; review every re-recorded file like code. A case may
 * hold options.json: the programmatic API's check options (limits), for a limit a small file cannot reach.
 */
import fs from "node:fs";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { test } from "uvu";
import * as assert from "uvu/assert";
import { allCodes } from "../../src/diagnostics/codes.js";
import { renderText } from "../../src/diagnostics/render.js";
import type { CheckOptions } from "../../src/load/limits.js";
import { checkItems } from "../helpers/check.js";
import { repoRoot } from "../helpers/cli.js";

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "../fixtures/check");
const update = process.env.UPDATE === "1";
const cases = fs
  .readdirSync(root, { withFileTypes: true })
  .filter((d) => d.isDirectory())
  .map((d) => d.name)
  .sort();

/** expected.txt holds the printed text plus a final newline (none at all for a clean case). */
function readExpected(dir: string): string | undefined {
  const file = path.join(dir, "expected.txt");
  return fs.existsSync(file) ? fs.readFileSync(file, "utf8").replace(/\n$/, "") : undefined;
}

for (const name of cases) {
  test(name, () => {
    const dir = path.join(root, name);
    const optionsFile = path.join(dir, "options.json");
    const items = checkItems(dir, fs.existsSync(optionsFile) ? (JSON.parse(fs.readFileSync(optionsFile, "utf8")) as CheckOptions) : undefined);
    const actual = renderText(items);
    if (update) fs.writeFileSync(path.join(dir, "expected.txt"), actual === "" ? "" : `${actual}\n`);
    const expected = readExpected(dir);
    assert.ok(expected !== undefined, `${name}/expected.txt is missing: run with UPDATE=1 and review it`);
    assert.fixture(actual, expected!);
    if (name.startsWith("clean-")) assert.is(items.length, 0, `${name} is meant to be clean`);
    else assert.ok(items.length > 0, `${name} is meant to be broken, but check finds nothing`);
  });
}

test("the corpus has cases, and every diagnostic code appears in some expected.txt", () => {
  assert.ok(cases.length >= 30, `only ${cases.length} cases`);
  const seen = new Set<string>();
  for (const name of cases) {
    for (const line of (readExpected(path.join(root, name)) ?? "").split("\n")) {
      const m = /^\S+:\d+:\d+ {2}(?:error|warning) {2}(\S+) {2}/.exec(line);
      if (m) seen.add(m[1]!);
    }
  }
  // A code `check` never reports (the breaking-change gate compares a generation with the one before it) has
  // its cases in the test of the command that does.
  for (const [code, file] of Object.entries(NOT_CHECK)) {
    assert.ok(fs.readFileSync(path.join(repoRoot, file), "utf8").includes(code), `${file} tests ${code}`);
    seen.add(code);
  }
  const missing = allCodes.filter((c) => !seen.has(c));
  assert.equal(missing, [], `codes without a case in test/fixtures/check: ${missing.join(", ")}`);
});

/** Codes that `generate` and `diff` report, not `check`, and the test that has their cases. */
const NOT_CHECK: Readonly<Record<string, string>> = { "breaking-change": "test/e2e/breaking-gate.test.ts", "unserved-version": "test/unit/emit/versions-docs.test.ts", "user-code": "test/e2e/user-code.test.ts" };

test.run();
