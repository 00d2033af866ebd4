/** The benchmark harness at N = 10 for a second or so, so that it never rots (the full run is manual). */
import { test } from "uvu";
import * as assert from "uvu/assert";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { runGenerationBench } from "../../bench/generation.js";
import { runRegenPairs, summary } from "../../bench/regen-pairs.js";
import { runServerBench } from "../../bench/server.js";
import { runVersionBench } from "../../bench/versions.js";

test("generation bench: resourcery generate, no-op regenerate and docs run and are timed", async () => {
  const rows = await runGenerationBench({ sizes: [10], runs: 1, smoke: true, log: () => {} });
  const ours = rows.filter((r) => r.tool === "resourcery");
  assert.equal(ours.map((r) => r.ok), ours.map(() => true), JSON.stringify(ours));
  assert.ok(ours.length >= 3);
  for (const r of ours) assert.ok(r.medianMs > 0 && r.minMs <= r.medianMs && r.medianMs <= r.maxMs);
});

test("regeneration pairs: two builds (here this one twice) each regenerate a one-resource change, timed", () => {
  const work = fs.mkdtempSync(path.join(os.tmpdir(), "resourcery-regen-pairs-smoke-"));
  try {
    const pairs = runRegenPairs({ against: fileURLToPath(new URL("../..", import.meta.url)), size: 10, pairs: 1, work });
    assert.is(pairs.length, 1);
    for (const run of [pairs[0]!.here, pairs[0]!.against]) assert.ok(run.wallMs > 0 && (run.cpuMs === undefined || run.cpuMs > 0), JSON.stringify(run));
    assert.match(summary(pairs), /here\/against \d/);
  } finally {
    fs.rmSync(work, { recursive: true, force: true });
  }
});

test("server bench: the generated service, the baseline and the floor answer every route", async () => {
  const warnings: string[] = [];
  const { rows, ratios } = await runServerBench({ durationSec: 0.4, rounds: 1, connections: 2, log: (l) => l.includes("warning") && warnings.push(l) });
  assert.equal(warnings, []);
  for (const server of ["generated", "baseline"]) {
    assert.is(rows.filter((r) => r.server === server).length, 5, `${server} measured on 5 routes`);
  }
  assert.ok(rows.every((r) => r.reqPerSec > 0));
  assert.is(rows.filter((r) => r.server === "floor").length, 1, "the floor serves GET instance only");
  assert.equal(ratios.map((r) => r.route), [...new Set(rows.map((r) => r.route))], "a paired ratio per route");
  assert.ok(ratios.every((r) => r.reqPerSec > 0 && r.p99 > 0));
});

test("version bench: one service answers GET instance and POST in the current and the older version", async () => {
  const warnings: string[] = [];
  const rows = await runVersionBench({ durationSec: 0.4, rounds: 1, connections: 2, log: (l) => l.includes("warning") && warnings.push(l) });
  assert.equal(warnings, []);
  assert.equal(rows.map((r) => r.route), ["GET instance", "POST"]);
  assert.ok(rows.every((r) => r.current.reqPerSec > 0 && r.older.reqPerSec > 0 && r.ratio > 0));
});

test.run();
