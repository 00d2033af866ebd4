// Runs the uvu suite and ends with the one line CI reads: `uvu: <P> passed, <F> failed, <S> skipped`.
// A test file that throws while loading, or a crashed run, counts as a failure. The files are run in two
// uvu processes at once (one per core: the suite's budget is 20 minutes on a 2-core machine), shared out
// by how long each took; RESOURCERY_TEST_SHARDS=1 runs them in one.
import { spawn, spawnSync } from "node:child_process";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { fileURLToPath } from "node:url";

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "..");

// The interop test's third-party tools have a lock file of their own (test/interop): installed once, here, so
// that `npm test` on a fresh checkout runs every test (CI installs them itself first).
if (!fs.existsSync(path.join(root, "test/interop/node_modules/.package-lock.json"))) {
  console.log("installing the interop test's tools: npm ci --prefix test/interop");
  const r = spawnSync("npm", ["ci", "--prefix", "test/interop", "--no-audit", "--no-fund"], { cwd: root, stdio: "inherit" });
  if (r.status !== 0) console.log("could not install them: test/e2e/interop.test.ts will fail and name the command");
}
const pattern = new RegExp(process.argv[2] ?? "\\.test\\.ts$");
const IGNORE = [/^.git/, /node_modules/, /^(golden|fixtures)$/];

/** The test files uvu would run (paths relative to test/), as its own search finds them. */
function testFiles(dir = path.join(root, "test"), rel = "") {
  const out = [];
  for (const e of fs.readdirSync(dir, { withFileTypes: true })) {
    const name = rel === "" ? e.name : `${rel}/${e.name}`;
    if (IGNORE.some((re) => re.test(name))) continue;
    if (e.isDirectory()) out.push(...testFiles(path.join(dir, e.name), name));
    else if (pattern.test(name)) out.push(name);
  }
  return out.sort();
}

// Seconds each file of 5 s or more took in a run of the whole suite in two shards on the 2-core machine (the
// "test file times" line this prints; 2026-11-28), others count 2: the files are shared between the shards by
// these, longest first, each to the shard with the least so far.
const SECONDS = {
  "e2e/regenerate.test.ts": 189, "e2e/out-folder.test.ts": 168, "e2e/postgres.test.ts": 95, "e2e/generate.test.ts": 85,
  "e2e/bench-smoke.test.ts": 84, "e2e/big-package.test.ts": 75, "e2e/own-tests.test.ts": 67,
  "e2e/incremental.test.ts": 64, "e2e/user-code.test.ts": 46, "e2e/serve.test.ts": 46, "e2e/docs-browser.test.ts": 43,
  "e2e/real-apis.test.ts": 42, "e2e/generated-names.test.ts": 41, "e2e/interop.test.ts": 40,
  "e2e/service-faults.test.ts": 40, "e2e/fuzz.test.ts": 39, "e2e/null-and-start.test.ts": 37,
  "e2e/up-to-date.test.ts": 36, "e2e/production.test.ts": 35, "e2e/hostile-definitions.test.ts": 33,
  "e2e/postgres-fuzz.test.ts": 30, "e2e/demo.test.ts": 29, "e2e/client.test.ts": 27, "e2e/ids.test.ts": 26,
  "e2e/client-type-names.test.ts": 26, "e2e/breaking-gate.test.ts": 24, "e2e/real-api-names.test.ts": 24,
  "e2e/links.test.ts": 21, "e2e/precompiled-validators.test.ts": 21, "e2e/cli.test.ts": 20, "e2e/versions.test.ts": 20,
  "e2e/compose.test.ts": 19, "e2e/recursive-schemas.test.ts": 18, "unit/runtime/store-conformance.test.ts": 17,
  "e2e/user-code-seeds.test.ts": 15, "e2e/open-resources.test.ts": 15, "unit/load/validate-meta.test.ts": 15,
  "unit/user-code/code-cache.test.ts": 14, "e2e/cli-read-limits.test.ts": 11, "unit/write/stage.test.ts": 10,
  "unit/emit/types-real-apis.test.ts": 10, "unit/model/resource-names.test.ts": 10,
  "unit/runtime/http-limits.test.ts": 8, "e2e/generate-compile-worker.test.ts": 7, "unit/emit/types.test.ts": 5
};
// Two shards by default, one per core of the machine the suite is budgeted on; RESOURCERY_TEST_SHARDS=1 runs it in one.
const shardCount = Math.max(1, Number(process.env.RESOURCERY_TEST_SHARDS ?? Math.min(2, os.availableParallelism())));
const shards = Array.from({ length: shardCount }, () => ({ files: [], seconds: 0 }));
for (const file of testFiles().sort((a, b) => (SECONDS[b] ?? 2) - (SECONDS[a] ?? 2) || a.localeCompare(b))) {
  const shard = shards.reduce((a, b) => (b.seconds < a.seconds ? b : a));
  shard.files.push(file);
  shard.seconds += SECONDS[file] ?? 2;
}

const escape = (text) => text.replace(/[.*+?^${}()|[\]\\]/g, "\\$&");
const suiteStarted = performance.now();

/** Runs one shard's files in one uvu process; resolves with its output, its per-file times and how it ended. */
function runShard(files, index) {
  return new Promise((resolve) => {
    const only = `^(?:${files.map(escape).join("|")})$`;
    const child = spawn(process.execPath, ["--import", "tsx", "node_modules/uvu/bin.js", "test", only, "--ignore", "^(golden|fixtures)$", "--no-color"], {
      cwd: root,
      stdio: ["ignore", "pipe", "pipe"],
      env: { ...process.env, FORCE_COLOR: "0" },
    });
    let out = "";
    let partial = "";
    // uvu prints each file's name as it starts the file: the time between two names is a file's time.
    const started = [];
    child.stdout.on("data", (d) => {
      out += d;
      if (shardCount === 1) process.stdout.write(d);
      const lines = (partial + d).split("\n");
      partial = lines.pop();
      for (const line of lines) if (/^[\w./-]+\.test\.ts$/.test(line.trim())) started.push({ file: line.trim(), at: performance.now() });
    });
    child.stderr.on("data", (d) => (shardCount === 1 ? process.stderr.write(d) : (out += d)));
    child.on("close", (code, signal) => {
      const times = started.map((f, i) => ({ file: f.file, ms: (started[i + 1]?.at ?? performance.now()) - f.at }));
      const seconds = ((performance.now() - suiteStarted) / 1000).toFixed(0);
      // With several shards each prints whole when it ends, so that their lines do not interleave.
      if (shardCount > 1) process.stdout.write(`\n===== shard ${index + 1} of ${shardCount}: ${files.length} files, ${seconds} s =====\n${out}\n`);
      resolve({ out, times, code, signal });
    });
  });
}

const results = await Promise.all(shards.filter((s) => s.files.length > 0).map((s, i) => runShard(s.files, i)));
const num = (out, label) => Number((new RegExp(`${label}:\\s+(\\d+)`).exec(out) ?? [])[1] ?? NaN);
let passed = 0;
let failed = 0;
let skipped = 0;
for (const r of results) {
  const total = num(r.out, "Total");
  const p = num(r.out, "Passed");
  const s = num(r.out, "Skipped");
  const counted = Number.isFinite(total) && Number.isFinite(p);
  let f = counted ? total - p : 1;
  if (r.code !== 0 && f === 0) f = 1; // crashed or a file failed to load
  passed += counted ? p : 0;
  failed += f;
  skipped += Number.isFinite(s) ? s : 0;
  if (r.signal) failed += 1;
}
// The slowest files, to keep the suite within its time budget (20 minutes on a 2-core machine).
const slowest = results.flatMap((r) => r.times).sort((x, y) => y.ms - x.ms).slice(0, 12);
if (slowest.length > 0) console.log(`slowest test files: ${slowest.map((t) => `${t.file} ${(t.ms / 1000).toFixed(0)} s`).join(", ")}`);
// Every file's time, for the SECONDS table above when the shards drift apart.
const all = results.flatMap((r) => r.times).sort((x, y) => y.ms - x.ms);
if (all.length > 12) console.log(`test file times (s): ${all.map((t) => `${t.file} ${(t.ms / 1000).toFixed(0)}`).join(", ")}`);
console.log(`suite: ${((performance.now() - suiteStarted) / 1000).toFixed(0)} s in ${results.length} shard${results.length > 1 ? "s" : ""}`);
console.log(`uvu: ${passed} passed, ${failed} failed, ${skipped} skipped`);
process.exit(failed > 0 ? 1 : 0);
