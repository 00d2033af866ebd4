// Runs the uvu suite and ends with the one line CI reads: `uvu: <P> passed, <F> failed, <S> skipped`.
// A test file that throws while loading, or a crashed run, counts as a failure.
import { spawn, spawnSync } from "node:child_process";
import fs from "node:fs";
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
const pattern = process.argv[2] ?? "\\.test\\.ts$";
const child = spawn(
  process.execPath,
  ["--import", "tsx", "node_modules/uvu/bin.js", "test", pattern, "--ignore", "^(golden|fixtures)$", "--no-color"],
  { cwd: root, stdio: ["ignore", "pipe", "pipe"], env: { ...process.env, FORCE_COLOR: "0" } },
);
let out = "";
// uvu prints each file's name as it starts the file: the time between two names is a file's time. The slowest
// are listed at the end, to keep the suite within its time budget (20 minutes on a 2-core machine).
const started = [];
let partial = "";
child.stdout.on("data", (d) => {
  out += d;
  process.stdout.write(d);
  const lines = (partial + d).split("\n");
  partial = lines.pop();
  for (const line of lines) if (/^[\w./-]+\.test\.ts$/.test(line.trim())) started.push({ file: line.trim(), at: performance.now() });
});
child.stderr.on("data", (d) => process.stderr.write(d));
child.on("close", (code, signal) => {
  const num = (label) => Number((new RegExp(`${label}:\\s+(\\d+)`).exec(out) ?? [])[1] ?? NaN);
  const total = num("Total"), passed = num("Passed"), skipped = num("Skipped");
  const counted = Number.isFinite(total) && Number.isFinite(passed);
  let failed = counted ? total - passed : 1;
  if (code !== 0 && failed === 0) failed = 1; // crashed or a file failed to load
  const p = counted ? passed : 0;
  const s = Number.isFinite(skipped) ? skipped : 0;
  const times = started.map((f, i) => ({ file: f.file, ms: (started[i + 1]?.at ?? performance.now()) - f.at }));
  const slowest = times.sort((x, y) => y.ms - x.ms).slice(0, 12);
  if (slowest.length > 0) console.log(`slowest test files: ${slowest.map((t) => `${t.file} ${(t.ms / 1000).toFixed(0)} s`).join(", ")}`);
  console.log(`uvu: ${p} passed, ${failed} failed, ${s} skipped`);
  process.exit(failed > 0 || code !== 0 || signal ? 1 : 0);
});
