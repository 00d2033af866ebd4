/**
 * `npm run startup`: how fast a big generated package builds and starts. Generates the synthetic API
 * (synth.ts) at each N (or a definitions project of its own: `--defs`), builds it with tsc from a clean
 * dist, then starts `node dist/src/main.js` several times and times each start from the spawn to the
 * first HTTP answer, with a new database and then again with the database the first start made. Prints a
 * table; writes nothing.
 */
import { spawn, type ChildProcess } from "node:child_process";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { probeMemory, runProcess, type MemoryProbe } from "./generation.js";
import { freePort } from "../test/helpers/package.js";
import { commandLine } from "./args.js";
import { median } from "./stats.js";
import { writeResourcery } from "./synth.js";

const benchDir = path.dirname(fileURLToPath(import.meta.url));
const USAGE = `usage: npm run startup [-- options]   (or: node --import tsx startup.ts [options])
  --n N               a size of the synthetic API (repeatable; default 100 and 850 unless --defs)
  --defs DIR          a definitions project to measure instead (repeatable), e.g. a real API converted by
                      test/real-apis (npm run convert -- stripe.com /tmp/stripe)
  --starts S          starts timed per size (default 5), each on a new database and then again on it
  --builds B          clean tsc builds timed per size (default 1)
  --resourcery DIR    the resourcery checkout to generate with, built (default: this one)
  --work DIR          where projects and packages go (default: a temporary folder, removed afterwards)
  --keep              keep the work folder`;

const args = commandLine(USAGE);
const sizes = args.valuesOf("--n").map(Number);
const count = (option: string, fallback: number) => Number(args.last(option) ?? fallback);
const projects = args.valuesOf("--defs").map((d) => path.resolve(d));
const options = {
  sizes: sizes.length > 0 || projects.length > 0 ? sizes : [100, 850],
  starts: count("--starts", 5),
  builds: count("--builds", 1),
  resourcery: path.resolve(args.last("--resourcery") ?? path.join(benchDir, "..")),
  work: args.last("--work"),
  keep: args.has("--keep"),
};
if (options.sizes.some((n) => !Number.isInteger(n) || n < 1) || !(options.starts >= 1) || !(options.builds >= 1)) {
  console.error(USAGE);
  process.exit(2);
}

/** What was measured for one project. */
interface StartupRow {
  /** N of the synthetic API, or the project's folder name. */
  readonly n: number | string;
  readonly generateMs: number;
  readonly tscMs: readonly number[];
  readonly tscRssMb: number | undefined;
  /** Spawn → first HTTP answer, each start with a fresh database. */
  readonly firstAnswerMs: readonly number[];
  /** The same, each start on the database the start before it made (its tables exist). */
  readonly existingMs: readonly number[];
}

const fail = (what: string, r: { code: number | null; stdout: string; stderr: string }): never => {
  throw new Error(`${what} failed (exit ${r.code}):\n${(r.stderr || r.stdout).slice(0, 2000)}`);
};

/** Generates, builds and starts the synthetic API of size `n` (or the project in the folder `n`) in `dir`. */
async function measure(n: number | string, dir: string, memory: MemoryProbe): Promise<StartupRow> {
  const out = path.join(dir, "out");
  fs.rmSync(dir, { recursive: true, force: true });
  fs.mkdirSync(dir, { recursive: true });
  const defs = typeof n === "string" ? n : path.join(dir, "defs");
  if (typeof n === "number") writeResourcery(n, defs);
  const cli = path.join(options.resourcery, "bin", "run.js");
  const generated = await runProcess([cli, "generate", defs, "--out", out], dir, "none");
  if (generated.code !== 0) fail(`generate (${n})`, generated);
  const modules = path.join(options.resourcery, "node_modules");
  fs.symlinkSync(modules, path.join(out, "node_modules"), "dir");
  const tsc = path.join(modules, "typescript", "bin", "tsc");
  const tscMs: number[] = [];
  let tscRss: number | undefined;
  for (let i = 0; i < options.builds; i++) {
    fs.rmSync(path.join(out, "dist"), { recursive: true, force: true });
    const built = await runProcess([tsc, "-p", "tsconfig.json"], out, memory);
    if (built.code !== 0) fail(`tsc (${n})`, built);
    tscMs.push(built.ms);
    if (built.rssKb !== undefined) tscRss = Math.max(tscRss ?? 0, built.rssKb / 1024);
  }
  const env = { ...process.env, KEYS_FILE: path.join(dir, "keys.json"), LOG_LEVEL: "warn", NO_COLOR: "1" };
  const keys = await runProcess(["dist/src/generated/runtime/keys-cli.js", "create", "--roles", "admin"], out, "none", { env });
  if (keys.code !== 0) fail("creating a key", keys);
  const firstAnswerMs: number[] = [];
  const existingMs: number[] = [];
  for (let i = 0; i < options.starts; i++) {
    const db = path.join(dir, "data", `start-${i}.db`);
    fs.mkdirSync(path.dirname(db), { recursive: true });
    firstAnswerMs.push(await firstAnswer(out, { ...env, DATABASE_FILE: db }));
    existingMs.push(await firstAnswer(out, { ...env, DATABASE_FILE: db }));
  }
  return { n: typeof n === "string" ? path.basename(n) : n, generateMs: generated.ms, tscMs, tscRssMb: tscRss, firstAnswerMs, existingMs };
}


/** Starts the built package in `out` and resolves with the time from the spawn to its first HTTP answer. */
async function firstAnswer(out: string, env: NodeJS.ProcessEnv): Promise<number> {
  const port = await freePort();
  const base = `http://127.0.0.1:${port}/v1`;
  const started = process.hrtime.bigint();
  const child: ChildProcess = spawn(process.execPath, ["dist/src/main.js"], { cwd: out, env: { ...env, PORT: String(port), HOST: "127.0.0.1", BASE_URL: base }, stdio: ["ignore", "ignore", "pipe"] });
  let log = "";
  child.stderr!.on("data", (d) => (log += d));
  try {
    const deadline = Date.now() + 120_000;
    for (;;) {
      if (child.exitCode !== null) throw new Error(`the service exited with ${child.exitCode}:\n${log}`);
      try {
        // Any answer counts (the 404 of the base URL itself): the service is up.
        await fetch(`${base}/`);
        return Number(process.hrtime.bigint() - started) / 1e6;
      } catch {
        if (Date.now() > deadline) throw new Error(`no answer after 120 s:\n${log}`);
        await new Promise((r) => setTimeout(r, 5));
      }
    }
  } finally {
    await new Promise<void>((resolve) => {
      if (child.exitCode !== null || child.signalCode !== null) return resolve();
      child.once("exit", () => resolve());
      child.kill("SIGTERM");
    });
  }
}

const seconds = (ms: number) => `${(ms / 1000).toFixed(2)} s`;
const range = (values: readonly number[]) => `${seconds(Math.min(...values))}–${seconds(Math.max(...values))}`;

const work = options.work ? path.resolve(options.work) : fs.mkdtempSync(path.join(os.tmpdir(), "resourcery-startup-"));
const memory = await probeMemory();
const rows: StartupRow[] = [];
try {
  for (const n of [...options.sizes, ...projects]) {
    console.error(`${typeof n === "number" ? `N = ${n}` : n}: generating, building, starting ${options.starts} times…`);
    rows.push(await measure(n, path.join(work, typeof n === "number" ? `n${n}` : path.basename(n)), memory));
  }
} finally {
  if (!options.keep && !options.work) fs.rmSync(work, { recursive: true, force: true });
}
console.log(`resourcery: ${options.resourcery}; Node ${process.version}; ${os.cpus().length} × ${os.cpus()[0]?.model ?? "CPU"}`);
console.log("| N (or project) | generate | tsc (clean) | tsc peak RSS | first answer, new database (median) | (min–max) | existing database (median) | (min–max) |");
console.log("|---|---|---|---|---|---|---|---|");
for (const r of rows) {
  const rss = r.tscRssMb === undefined ? "" : `${Math.round(r.tscRssMb)} MB`;
  console.log(
    `| ${r.n} | ${seconds(r.generateMs)} | ${seconds(median(r.tscMs))} | ${rss} | ${seconds(median(r.firstAnswerMs))} | ${range(r.firstAnswerMs)} | ${seconds(median(r.existingMs))} | ${range(r.existingMs)} |`,
  );
}
if (options.keep || options.work) console.log(`work folder: ${work}`);
