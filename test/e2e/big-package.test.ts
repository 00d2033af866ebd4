/**
 * Big packages build under their own tsconfig (declarations on). 120 resources of 25 enum fields each, whose
 * inferred `hooks` object made tsc stop with TS7056 ("exceeds the maximum length the compiler will serialize")
 * before the wiring declared its types (at c7aa96a; 70 such resources still built): the declarations name the
 * types instead of spelling every resource out. And the synthetic API of bench/ at the size of issue 17's
 * target (850 resources, 2,500 media types): an array literal that large is a union tsc cannot represent
 * (TS2590), so the big data modules are JSON the compiler does not type. How long they take: bench/big-package.ts.
 */
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { test } from "uvu";
import * as assert from "uvu/assert";
import { repoRoot, runCli } from "../helpers/cli.js";
import { linkModules, run } from "../helpers/package.js";
import { writeResourcery } from "../../bench/synth.js";

const tmp = fs.mkdtempSync(path.join(os.tmpdir(), "resourcery-big-package-"));
const defs = path.join(tmp, "defs");
const out = path.join(tmp, "big-service");
const tsc = path.join(repoRoot, "node_modules/typescript/bin/tsc");
const RESOURCES = 120;
const FIELDS = 25;

/** Resources of many enum fields: every field's type is spelt out wherever a resource's representation is. */
function writeDefinitions(): void {
  fs.mkdirSync(path.join(defs, "resources"), { recursive: true });
  const service = { name: "big-service", title: "Big", vendor: "big", version: 1, baseUrl: "http://localhost:3000/v1", errorDocsUrl: "http://localhost:3000/docs/errors", resources: ["resources/*.json"] };
  fs.writeFileSync(path.join(defs, "service.json"), JSON.stringify(service));
  for (let i = 0; i < RESOURCES; i++) {
    const properties: Record<string, unknown> = {};
    for (let j = 0; j < FIELDS; j++) properties[`field${j}`] = { type: "string", enum: Array.from({ length: 12 }, (_, k) => `value-${j}-${k}-abcdefghijklmnop`) };
    fs.writeFileSync(path.join(defs, "resources", `item${i}.json`), JSON.stringify({ type: "object", "x-collection": `items${i}`, properties }));
  }
}

test(`a package of ${RESOURCES} resources of ${FIELDS} enum fields builds with tsc under its own tsconfig, declarations included`, () => {
  writeDefinitions();
  const generated = runCli(["generate", defs, "--out", out]);
  assert.is(generated.code, 0, generated.stdout + generated.stderr);
  assert.is(JSON.parse(fs.readFileSync(path.join(out, "tsconfig.json"), "utf8")).compilerOptions.declaration, true);
  linkModules(out);
  const built = run(process.execPath, [tsc, "-p", "tsconfig.json", "--pretty", "false"], out);
  assert.is(built.code, 0, built.output.slice(0, 3000));
  // The declarations refer to the wiring's and the registry's types by name.
  const handlers = fs.readFileSync(path.join(out, "dist/src/generated/handlers.d.ts"), "utf8");
  assert.match(handlers, "export declare const hooks: Hooks;");
  assert.ok(handlers.length < 100_000, `handlers.d.ts is ${handlers.length} characters`);
  assert.match(fs.readFileSync(path.join(out, "dist/src/generated/media-types.d.ts"), "utf8"), "export declare const mediaTypes: readonly MediaType[];");
  assert.match(fs.readFileSync(path.join(out, "dist/src/generated/spec.d.ts"), "utf8"), "export declare const spec: ServiceSpec;");
});

test("the synthetic API of bench/ at N = 850 builds with tsc under its own tsconfig", () => {
  const synth = path.join(tmp, "synth");
  const synthOut = path.join(tmp, "synth-service");
  writeResourcery(850, synth);
  const generated = runCli(["generate", synth, "--out", synthOut]);
  assert.is(generated.code, 0, generated.stdout + generated.stderr);
  linkModules(synthOut);
  const built = run(process.execPath, [tsc, "-p", "tsconfig.json", "--pretty", "false"], synthOut);
  assert.is(built.code, 0, built.output.slice(0, 3000));
  assert.ok(fs.existsSync(path.join(synthOut, "dist/src/main.js")));
});

test.after(() => {
  fs.rmSync(tmp, { recursive: true, force: true });
});
test.run();
