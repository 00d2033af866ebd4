/**
 * `npm run big-package`: how long a big generated package takes to build. Generates the synthetic API
 * (synth.ts) at N resources, and any real definitions projects given, then builds each package with its
 * own tsconfig (tsc from a clean dist, as `npm install` or `npm start` builds it) several times: wall
 * clock, CPU time (user + system: on a machine shared with other work it moves far less than the wall
 * clock does), peak RSS and tsc's own check and emit times, medians. Prints a table; writes nothing.
 * Needs GNU time (/usr/bin/time) for CPU time and memory.
 */
import { spawn } from "node:child_process";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { runProcess, type ProcessResult } from "./generation.js";
import { commandLine } from "./args.js";
import { median } from "./stats.js";
import { writeResourcery } from "./synth.js";

const benchDir = path.dirname(fileURLToPath(import.meta.url));
const USAGE = `usage: npm run big-package [-- options]   (or: node --import tsx big-package.ts [options])
  --n N               size of the synthetic API (repeatable; default 850)
  --real DIR          a definitions project to build too (repeatable), e.g. one test/real-apis converted
  --runs R            clean builds timed per package (default 3)
  --resourcery DIR    the resourcery checkout to generate with, built (default: this one)
  --work DIR          where projects and packages go (default: a temporary folder, removed afterwards)
  --keep              keep the work folder`;

const args = commandLine(USAGE);
const sizes = args.valuesOf("--n").map(Number);
const options = {
  sizes: sizes.length > 0 ? sizes : [850],
  real: args.valuesOf("--real").map((d) => path.resolve(d)),
  runs: Number(args.last("--runs") ?? 3),
  resourcery: path.resolve(args.last("--resourcery") ?? path.join(benchDir, "..")),
  work: args.last("--work"),
  keep: args.has("--keep"),
};
if (options.sizes.some((n) => !Number.isInteger(n) || n < 1) || !Number.isInteger(options.runs) || options.runs < 1) {
  console.error(USAGE);
  process.exit(2);
}

/** One package's builds. */
interface BuildRow {
  readonly name: string;
  readonly resources: number;
  /** Size of the TypeScript resourcery generated (src/generated, client, test/generated), in bytes. */
  readonly generatedBytes: number;
  readonly ms: readonly number[];
  /** CPU seconds (user + system) of each build. */
  readonly cpuS: readonly number[];
  readonly rssMb: readonly number[];
  /** tsc's own "Check time" and "Emit time" of each run, in seconds. */
  readonly checkS: readonly number[];
  readonly emitS: readonly number[];
  /** The error codes of a failed build (TS2300 ×3 …), empty when it built. */
  readonly errors: string;
}

const work = options.work ? path.resolve(options.work) : fs.mkdtempSync(path.join(os.tmpdir(), "resourcery-big-package-"));
const GNU_TIME = "/usr/bin/time";

/** A build as GNU time saw it: wall clock, CPU seconds, peak RSS, tsc's output. */
interface Timed extends ProcessResult {
  readonly cpuS: number;
}

/** Runs node with `args` in `cwd` under GNU time (`%e %U %S %M`), or without it (wall clock only) when it is missing. */
async function timed(args: string[], cwd: string): Promise<Timed> {
  if (!fs.existsSync(GNU_TIME)) return { ...(await runProcess(args, cwd, "none")), cpuS: NaN };
  const file = path.join(work, `time-${process.pid}.txt`);
  const start = process.hrtime.bigint();
  const r = await new Promise<{ code: number | null; stdout: string; stderr: string }>((resolve) => {
    const child = spawn(GNU_TIME, ["-f", "%e %U %S %M", "-o", file, process.execPath, ...args], { cwd, stdio: ["ignore", "pipe", "pipe"] });
    let stdout = "";
    let stderr = "";
    child.stdout.setEncoding("utf8").on("data", (d: string) => (stdout += d));
    child.stderr.setEncoding("utf8").on("data", (d: string) => (stderr += d));
    child.on("close", (code) => resolve({ code, stdout, stderr }));
  });
  const ms = Number(process.hrtime.bigint() - start) / 1e6;
  // GNU time writes "Command exited with non-zero status N" first when the command failed.
  const line = fs.readFileSync(file, "utf8").trim().split("\n").at(-1) ?? "";
  fs.rmSync(file, { force: true });
  const [, user, system, kb] = line.split(" ").map(Number);
  return { ...r, ms, rssKb: kb, cpuS: (user ?? NaN) + (system ?? NaN), timedOut: false };
}

/** Bytes of the .ts files under `dir` (recursively). */
function tsBytes(dir: string): number {
  if (!fs.existsSync(dir)) return 0;
  let total = 0;
  for (const e of fs.readdirSync(dir, { withFileTypes: true, recursive: true })) {
    if (e.isFile() && e.name.endsWith(".ts")) total += fs.statSync(path.join(e.parentPath, e.name)).size;
  }
  return total;
}

/** The value tsc's --extendedDiagnostics prints for `label` ("Check time: 1.23s"), in seconds. */
function diagnostic(r: ProcessResult, label: string): number {
  const m = new RegExp(`^${label}:\\s+([0-9.]+)s$`, "m").exec(r.stdout);
  return m ? Number(m[1]) : NaN;
}

/** The TS error codes of a failed build, most frequent first. */
function errorCodes(r: ProcessResult): string {
  const counts = new Map<string, number>();
  for (const m of r.stdout.matchAll(/error (TS\d+):/g)) counts.set(m[1]!, (counts.get(m[1]!) ?? 0) + 1);
  if (counts.size === 0) return `exit ${r.code}: ${(r.stderr || r.stdout).trim().split("\n")[0] ?? ""}`;
  return [...counts].sort((a, b) => b[1] - a[1]).map(([code, n]) => `${code} ×${n}`).join(", ");
}

/** Generates the package of `defs` into `out` and builds it `runs` times from a clean dist. */
async function measure(name: string, defs: string, out: string): Promise<BuildRow> {
  fs.rmSync(out, { recursive: true, force: true });
  const generated = await runProcess([path.join(options.resourcery, "bin/run.js"), "generate", defs, "--out", out], work, "none");
  if (generated.code !== 0) {
    // Another version of resourcery may refuse the definitions: a row that says so, and the next package.
    const first = (generated.stdout + generated.stderr).split("\n").find((l) => /\berror\b/.test(l)) ?? `exit ${generated.code}`;
    console.log(`  ${name}: generate failed: ${first}`);
    return { name, resources: 0, generatedBytes: 0, ms: [], cpuS: [], rssMb: [], checkS: [], emitS: [], errors: `generate failed: ${first.replace(/^.*?\s{2}error\s{2}/, "")}` };
  }
  // The package's dependencies are resourcery's own (as the tests link them).
  fs.symlinkSync(path.join(options.resourcery, "node_modules"), path.join(out, "node_modules"), "dir");
  const tsc = path.join(out, "node_modules/typescript/bin/tsc");
  const row = { ms: [] as number[], cpuS: [] as number[], rssMb: [] as number[], checkS: [] as number[], emitS: [] as number[], errors: "" };
  for (let i = 0; i < options.runs; i++) {
    fs.rmSync(path.join(out, "dist"), { recursive: true, force: true });
    const r = await timed([tsc, "-p", "tsconfig.json", "--extendedDiagnostics"], out);
    row.ms.push(r.ms);
    row.cpuS.push(r.cpuS);
    if (r.rssKb !== undefined) row.rssMb.push(r.rssKb / 1024);
    row.checkS.push(diagnostic(r, "Check time"));
    row.emitS.push(diagnostic(r, "Emit time"));
    if (r.code !== 0) row.errors = errorCodes(r);
    console.log(`  ${name} build ${i + 1}: ${(r.ms / 1000).toFixed(1)} s, CPU ${r.cpuS.toFixed(1)} s${r.rssKb ? `, ${Math.round(r.rssKb / 1024)} MB` : ""}${r.code === 0 ? "" : ` (failed: ${row.errors})`}`);
  }
  const resources = fs.readdirSync(path.join(out, "src/hooks")).length;
  const generatedBytes = ["src/generated", "client", "test/generated"].reduce((sum, d) => sum + tsBytes(path.join(out, d)), 0);
  return { name, resources, generatedBytes, ...row };
}

const rows: BuildRow[] = [];
try {
  for (const n of options.sizes) {
    const defs = path.join(work, `synth-${n}`);
    writeResourcery(n, defs);
    rows.push(await measure(`synthetic N = ${n}`, defs, path.join(work, `synth-${n}-out`)));
  }
  for (const defs of options.real) {
    // test/real-apis keeps a project in <api>/defs: the API's name is the folder above.
    const name = path.basename(defs) === "defs" ? path.basename(path.dirname(defs)) : path.basename(defs);
    rows.push(await measure(name, defs, path.join(work, `${name}-out`)));
  }
} finally {
  if (!options.keep) fs.rmSync(work, { recursive: true, force: true });
  else console.log(`work folder kept: ${work}`);
}

const s = (xs: readonly number[]) => (xs.length && xs.every(Number.isFinite) ? `${median(xs).toFixed(1)} s` : "—");
console.log(`\nresourcery ${options.resourcery}, ${options.runs} clean build(s) each, median (min–max)\n`);
console.log("| package | resources | generated TS | tsc | min–max | CPU | peak RSS | check | emit | result |");
console.log("|---|---|---|---|---|---|---|---|---|---|");
for (const r of rows) {
  const ms = r.ms.map((x) => x / 1000);
  if (ms.length === 0) {
    console.log(`| ${r.name} | | | — | | — | — | — | — | ${r.errors} |`);
    continue;
  }
  console.log(
    `| ${r.name} | ${r.resources} | ${(r.generatedBytes / 1e6).toFixed(1)} MB | ${s(ms)} | ${Math.min(...ms).toFixed(1)}–${Math.max(...ms).toFixed(1)} s | ${s(r.cpuS)} | ` +
      `${r.rssMb.length ? `${Math.round(median(r.rssMb))} MB` : "—"} | ${s(r.checkS)} | ${s(r.emitS)} | ${r.errors || "ok"} |`,
  );
}
