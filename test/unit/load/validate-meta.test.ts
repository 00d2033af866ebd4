/**
 * The meta-schema validators precompiled by `npm run build` (src/build/precompile-validators.ts) report
 * exactly what the validators compiled at run time report, error objects included, and are never used
 * when built from other schema files.
 */
import fs from "node:fs";
import path from "node:path";
import { test } from "uvu";
import * as assert from "uvu/assert";
import { compileValidators, precompiledValidators, readMetaSchemas, type Validators } from "../../../src/load/validate-meta.js";
import { repoRoot } from "../../helpers/cli.js";

const sources = readMetaSchemas();
const precompiled = precompiledValidators(sources);

test("validators built from other schema files are not used", () => {
  assert.is(precompiledValidators({ ...sources, service: `${sources.service}\n` }), undefined);
  assert.is(precompiledValidators({ ...sources, resource: sources.resource.replace('"x-collection"', '"x-collections"') }), undefined);
});

/** Every JSON file of the check corpus and the examples, and copies with one value wrong or one key added. */
function documents(): unknown[] {
  const files: string[] = [];
  const walk = (dir: string) => {
    for (const e of fs.readdirSync(dir, { withFileTypes: true })) {
      const p = path.join(dir, e.name);
      if (e.isDirectory()) walk(p);
      else if (e.name.endsWith(".json")) files.push(p);
    }
  };
  walk(path.join(repoRoot, "test", "fixtures", "check"));
  walk(path.join(repoRoot, "examples"));
  const docs: unknown[] = [];
  for (const file of files) {
    let doc: unknown;
    try {
      doc = JSON.parse(fs.readFileSync(file, "utf8"));
    } catch {
      continue; // the corpus has files that are broken on purpose
    }
    docs.push(doc);
    const visit = (value: unknown, set: ((v: unknown) => void) | undefined) => {
      if (value !== null && typeof value === "object") {
        for (const k of Object.keys(value)) visit((value as Record<string, unknown>)[k], (v) => ((value as Record<string, unknown>)[k] = v));
        if (!Array.isArray(value)) {
          (value as Record<string, unknown>).bogus = 1;
          docs.push(structuredClone(doc));
          delete (value as Record<string, unknown>).bogus;
        }
      }
      if (set) {
        for (const wrong of [1, "x", null, []]) {
          set(wrong);
          docs.push(structuredClone(doc));
        }
        set(value);
      }
    };
    visit(doc, undefined);
  }
  return docs;
}

(precompiled ? test : test.skip)("precompiled validators report exactly what compiled ones report", () => {
  const compiled = compileValidators(sources);
  const docs = documents();
  assert.ok(docs.length > 5000, `${docs.length} documents`);
  let failing = 0;
  for (const doc of docs) {
    for (const name of ["service", "resourceKeywords", "draft2020"] as const satisfies readonly (keyof Validators)[]) {
      const [a, b] = [precompiled![name], compiled[name]];
      const valid = a(doc);
      assert.is(valid, b(doc), name);
      // Errors carry the failing schema and data (verbose): compared as JSON, they must be the same.
      assert.is(JSON.stringify(a.errors ?? null), JSON.stringify(b.errors ?? null), `${name} on ${JSON.stringify(doc).slice(0, 200)}`);
      if (!valid) failing++;
    }
  }
  assert.ok(failing > 5000, `${failing} failing validations`);
});

test.run();
