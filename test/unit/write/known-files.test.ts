/**
 * Files a regeneration left unrendered (incremental generation): planned as unchanged only while the file and the
 * manifest are as the last generation recorded them; otherwise planWrite throws StaleKnownFile (generate then
 * renders everything), never plans a stale file as unchanged.
 */
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { test } from "uvu";
import * as assert from "uvu/assert";
import { hashOf, knownFile, knownKeys, type Manifest } from "../../../src/write/manifest.js";
import { planWrite, StaleKnownFile } from "../../../src/write/plan.js";

const tmp = fs.mkdtempSync(path.join(os.tmpdir(), "resourcery-known-"));
test.after(() => fs.rmSync(tmp, { recursive: true, force: true }));

function outWith(contents: string, key: string): { out: string; manifest: Manifest } {
  const out = fs.mkdtempSync(path.join(tmp, "out-"));
  fs.mkdirSync(path.join(out, "docs"), { recursive: true });
  fs.mkdirSync(path.join(out, ".resourcery"), { recursive: true });
  const file = path.join(out, "docs/page.html");
  fs.writeFileSync(file, contents);
  const stat = fs.statSync(file);
  fs.writeFileSync(path.join(out, ".resourcery/stat-cache.json"), JSON.stringify({ "docs/page.html": [stat.size, stat.mtimeMs] }));
  const manifest: Manifest = { version: 1, generator: "test", files: { "docs/page.html": { hash: hashOf(contents), owner: "generated", key } } };
  return { out, manifest };
}

test("a file whose key and stat are as recorded is known, and planned unchanged without its contents", () => {
  const { out, manifest } = outWith("<p>page</p>", "k1");
  const known = knownKeys(out, manifest);
  assert.equal([...known], [["docs/page.html", { key: "k1", hash: hashOf("<p>page</p>") }]]);
  const plan = planWrite(out, [knownFile("docs/page.html", "k1", hashOf("<p>page</p>"))], manifest, false);
  assert.equal(plan.steps.map((s) => s.kind), ["unchanged"]);
});

test("a file touched since (its stat differs) is not known; one that changes after it was taken as known stops the plan", () => {
  const { out, manifest } = outWith("<p>page</p>", "k1");
  const file = path.join(out, "docs/page.html");
  const known = knownKeys(out, manifest);
  assert.is(known.size, 1);
  // Another run rewrites the page between this run's start and its lock.
  fs.writeFileSync(file, "<p>other</p>");
  fs.utimesSync(file, new Date(), new Date(Date.now() + 5000));
  assert.is(knownKeys(out, manifest).size, 0, "not known any more");
  assert.throws(() => planWrite(out, [knownFile("docs/page.html", "k1", hashOf("<p>page</p>"))], manifest, false), (e: unknown) => e instanceof StaleKnownFile);
  // A manifest whose key differs (another generation recorded another) stops it too.
  const { out: out2, manifest: m2 } = outWith("<p>page</p>", "k2");
  assert.throws(() => planWrite(out2, [knownFile("docs/page.html", "k1", hashOf("<p>page</p>"))], m2, false), (e: unknown) => e instanceof StaleKnownFile);
});

test.run();
