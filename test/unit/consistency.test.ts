/**
 * The tables and the documents that describe them agree: every diagnostic code has its page under
 * docs/rules and a row in the index, the built-in errors are consistent, and README.md documents
 * every key of service.json.
 */
import fs from "node:fs";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { test } from "uvu";
import * as assert from "uvu/assert";
import { allCodes, codes } from "../../src/diagnostics/codes.js";
import { rules } from "../../src/lint/run-rules.js";
import { BUILTIN_ERRORS, RESERVED_CODES } from "../../src/model/builtin-errors.js";

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "../..");
const rulesDir = path.join(root, "docs", "rules");
const readmePath = path.join(root, "README.md");
const read = (file: string) => fs.readFileSync(file, "utf8");
const known = new Set<string>(allCodes);

test("the code table is not empty and allCodes lists every code of it", () => {
  assert.ok(allCodes.length > 0);
  assert.equal([...allCodes].sort(), Object.keys(codes).sort());
});

test("every code has docs/rules/<code>.md whose first line is `# <code>: <title>`", () => {
  for (const code of allCodes) {
    const file = path.join(rulesDir, `${code}.md`);
    assert.ok(fs.existsSync(file), `docs/rules/${code}.md is missing`);
    const first = read(file).split(/\r?\n/, 1)[0];
    assert.is(first, `# ${code}: ${codes[code].title}`, `first line of docs/rules/${code}.md`);
  }
});

test("every page shows a diagnostic line of its code with the table's severity", () => {
  for (const code of allCodes) {
    const text = read(path.join(rulesDir, `${code}.md`));
    // `file:line:col  severity  CODE  message`, as `resourcery check` prints it.
    const line = new RegExp(`^\\S+:\\d+:\\d+  ${codes[code].severity}  ${escape(code)}  \\S`, "m");
    assert.ok(line.test(text), `docs/rules/${code}.md shows no "${codes[code].severity}  ${code}" diagnostic line`);
    assert.ok(/^  hint: \S/m.test(text), `docs/rules/${code}.md shows no hint line`);
  }
});

test("every page in docs/rules is a code of the table", () => {
  const pages = fs.readdirSync(rulesDir).filter((f) => f.endsWith(".md") && f !== "README.md");
  for (const page of pages) {
    const code = page.slice(0, -".md".length);
    assert.ok(known.has(code), `docs/rules/${page} documents "${code}", which is not in src/diagnostics/codes.ts`);
  }
});

test("the index docs/rules/README.md has a row for every code, with its severity, title and page", () => {
  const index = read(path.join(rulesDir, "README.md"));
  const rows = new Map<string, string[]>();
  for (const line of index.split(/\r?\n/)) {
    if (!line.startsWith("|")) continue;
    const cells = line.split("|").slice(1, -1).map((c) => c.trim());
    const code = cells[0]?.replace(/^`|`$/g, "");
    if (code && known.has(code)) rows.set(code, cells);
  }
  for (const code of allCodes) {
    const cells = rows.get(code);
    assert.ok(cells, `docs/rules/README.md has no row for ${code}`);
    assert.ok(cells.includes(codes[code].severity), `index row of ${code} lacks its severity "${codes[code].severity}"`);
    assert.ok(cells.includes(codes[code].title), `index row of ${code} lacks its title "${codes[code].title}"`);
    assert.ok(cells.some((c) => c.includes(`](${code}.md)`)), `index row of ${code} does not link ${code}.md`);
  }
});

test("every code a lint rule reports is in the table", () => {
  for (const rule of rules) {
    for (const code of rule.codes) assert.ok(known.has(code), `rule "${rule.description}" reports unknown code ${code}`);
  }
});

test("built-in errors have unique codes and keys, in the reserved range, with the status their code starts with", () => {
  const byCode = new Map<number, string>();
  const byKey = new Map<string, number>();
  for (const e of BUILTIN_ERRORS) {
    assert.ok(Number.isInteger(e.code), `${e.key}: code ${e.code} is not an integer`);
    assert.not.ok(byCode.has(e.code), `code ${e.code} is used by both "${byCode.get(e.code)}" and "${e.key}"`);
    assert.not.ok(byKey.has(e.key), `key "${e.key}" is used by both ${byKey.get(e.key)} and ${e.code}`);
    byCode.set(e.code, e.key);
    byKey.set(e.key, e.code);
    assert.is(String(e.code).slice(0, 3), String(e.status), `${e.key}: status ${e.status} does not match code ${e.code}`);
    assert.ok(e.code >= RESERVED_CODES.min && e.code <= RESERVED_CODES.max, `${e.key}: code ${e.code} is outside the reserved range`);
    assert.ok(e.title && e.message && e.dev, `${e.key}: title, message and dev are all needed`);
  }
});

const serviceKeys = Object.keys(
  (JSON.parse(read(path.join(root, "schemas", "service.schema.json"))) as { properties: object }).properties,
);

if (fs.existsSync(readmePath)) {
  test("README.md's definition-format section documents every top-level key of service.json", () => {
    const section = definitionFormatSection(read(readmePath));
    assert.ok(section, 'README.md has no definition-format section (a heading with "definition format", or "service.json")');
    for (const key of serviceKeys) {
      const k = escape(key);
      const documented = new RegExp(`\`${k}\`|\\*\\*${k}\\*\\*|\\|\\s*${k}\\s*\\||"${k}"`).test(section);
      assert.ok(documented, `README.md's definition-format section does not document the service.json key "${key}"`);
    }
  });
} else {
  test.skip("README.md's definition-format section documents every top-level key of service.json (skipped: README.md does not exist yet)", () => {});
}

/** The text under the definition-format heading (see below), up to the next heading of the same or a higher level. */
function definitionFormatSection(markdown: string): string | undefined {
  const lines = markdown.split(/\r?\n/);
  // Heading levels, with lines inside ``` fences (shell comments and the like) never taken for headings.
  let fenced = false;
  const levels = lines.map((l) => {
    if (/^\s*(```|~~~)/.test(l)) fenced = !fenced;
    const m = fenced ? null : /^(#{1,6})\s/.exec(l);
    return m ? m[1]!.length : 0;
  });
  const heading = (re: RegExp) => lines.findIndex((l, i) => levels[i]! > 0 && re.test(l));
  // "Definition format" by name, else the section on service.json (the README's name for it).
  const named = heading(/definition format/i);
  const start = named >= 0 ? named : heading(/^#+\s+`?service\.json`?\s*$/i);
  if (start < 0) return undefined;
  const level = levels[start]!;
  const end = levels.findIndex((n, i) => i > start && n > 0 && n <= level);
  return lines.slice(start + 1, end < 0 ? lines.length : end).join("\n");
}

function escape(s: string): string {
  return s.replace(/[.*+?^${}()|[\]\\]/g, "\\$&");
}

test("the facts of every service are one text: src/model/conventions.ts is templates/runtime/conventions.ts", () => {
  const generator = read(path.join(root, "src/model/conventions.ts"));
  assert.ok(generator.includes("export const SERVER_OWNED"), "the facts are there");
  assert.fixture(generator, read(path.join(root, "templates/runtime/conventions.ts")));
});

test("the validators' settings are one text: src/model/ajv-settings.ts is templates/runtime/ajv-settings.ts", () => {
  const generator = read(path.join(root, "src/model/ajv-settings.ts"));
  assert.ok(generator.includes("export function ajvOptions"), "the settings are there");
  assert.fixture(generator, read(path.join(root, "templates/runtime/ajv-settings.ts")));
});

test("what the validators are compiled from is one text: src/model/validator-schemas.ts is templates/runtime/validator-schemas.ts", () => {
  const generator = read(path.join(root, "src/model/validator-schemas.ts"));
  assert.ok(generator.includes("export function validatorsFingerprint"), "the fingerprint is there");
  assert.fixture(generator, read(path.join(root, "templates/runtime/validator-schemas.ts")));
});

test.run();
