/**
 * Generation speed: resourcery (generate, no-op regenerate, docs) against peers on the same synthetic
 * API (TypeSpec with openapi3 + http-server-js, @hey-api/openapi-ts, orval, openapi-typescript).
 * Every measurement is a whole process: spawned, timed by the wall clock, its peak memory read from
 * `/usr/bin/time -f %M` (or, without GNU time, by polling /proc/PID/status), repeated `runs` times,
 * round by round: every tool once per round, so that ratios pair runs made close in time.
 */
import { spawn, spawnSync } from "node:child_process";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { median } from "./stats.js";
import { editDescription, openApiOf, resourcesOf, typeSpecOf, writeResourcery } from "./synth.js";

export interface GenerationRow {
  tool: string;
  task: string;
  n: number;
  medianMs: number;
  minMs: number;
  maxMs: number;
  peakRssMb: number;
  ratio?: string;
  ok: boolean;
  note?: string;
}

export interface GenerationOptions {
  sizes: number[];
  runs: number;
  smoke: boolean;
  log: (line: string) => void;
  /** False: resourcery alone, the peers left out. */
  peers?: boolean;
}

const benchDir = path.dirname(fileURLToPath(import.meta.url));
const root = path.resolve(benchDir, "..");
const benchModules = path.join(benchDir, "node_modules");
const TIMEOUT_MS = 15 * 60_000;

/** How peak memory is measured on this machine. */
export type MemoryProbe = "gnu-time" | "proc" | "none";

/** One whole process as runProcess saw it. */
export interface ProcessResult {
  code: number | null;
  ms: number;
  /** Peak resident set in KiB, or undefined when not measured. */
  rssKb: number | undefined;
  stdout: string;
  stderr: string;
  timedOut: boolean;
}

interface Invocation {
  /** Arguments after the node executable (a script and its arguments). */
  args: string[];
  cwd: string;
  /** Untimed, before each run: clean the output so each run generates from scratch. */
  before?: () => void;
  /** Returns an error message when the run, though exiting 0, did not do its job. */
  check: (r: ProcessResult) => string | undefined;
  /** Returns a remark worth keeping (not a failure). */
  remark?: (r: ProcessResult) => string | undefined;
}

interface Peer {
  tool: string;
  task: string;
  /** The script to run with node, resolved from bench/node_modules/.bin, or undefined if not installed. */
  script: string | undefined;
  bin: string;
  invocation: (script: string, dir: string, n: number) => Invocation;
}

// eslint-disable-next-line no-control-regex
const ANSI = /\u001b\[[0-9;]*[A-Za-z]/g;

function firstLine(text: string): string | undefined {
  return text.replace(ANSI, "").split("\n").map((l) => l.trim()).find((l) => l.length > 0);
}

function lastLine(text: string): string | undefined {
  return text.replace(ANSI, "").split("\n").map((l) => l.trim()).filter((l) => l.length > 0).pop();
}

/** The first line that reports an error, for tools that print their diagnostics on stdout. */
function errorLine(text: string): string | undefined {
  return text.replace(ANSI, "").split("\n").map((l) => l.trim()).find((l) => /\berror\b/i.test(l));
}

function round(x: number, digits = 1): number {
  const f = 10 ** digits;
  return Math.round(x * f) / f;
}

/** The JS file a bench/node_modules/.bin entry points at, or undefined when the peer is not installed. */
function binScript(name: string): string | undefined {
  const link = path.join(benchModules, ".bin", name);
  try {
    return fs.realpathSync(link);
  } catch {
    return undefined;
  }
}

/** Whether /usr/bin/time is GNU time (accepts -f %M -o FILE), else whether /proc can be polled. */
export async function probeMemory(): Promise<MemoryProbe> {
  const time = "/usr/bin/time";
  if (fs.existsSync(time)) {
    const out = path.join(os.tmpdir(), `resourcery-bench-time-${process.pid}.txt`);
    const ok = await new Promise<boolean>((resolve) => {
      const child = spawn(time, ["-f", "%M", "-o", out, process.execPath, "-e", ""], { stdio: "ignore" });
      child.on("error", () => resolve(false));
      child.on("exit", (code) => resolve(code === 0));
    });
    const kb = ok && fs.existsSync(out) ? parseTimeFile(out) : undefined;
    fs.rmSync(out, { force: true });
    if (kb !== undefined) return "gnu-time";
  }
  return fs.existsSync(`/proc/${process.pid}/status`) ? "proc" : "none";
}

/** The max-RSS number GNU time wrote (its last numeric line; it may precede it with an exit-status line). */
function parseTimeFile(file: string): number | undefined {
  const lines = fs.readFileSync(file, "utf8").split("\n").map((l) => l.trim()).filter((l) => /^\d+$/.test(l));
  const last = lines.pop();
  return last === undefined ? undefined : Number(last);
}

function vmHwmKb(pid: number): number | undefined {
  try {
    const m = /VmHWM:\s+(\d+)\s+kB/.exec(fs.readFileSync(`/proc/${pid}/status`, "utf8"));
    return m ? Number(m[1]) : undefined;
  } catch {
    return undefined;
  }
}

/**
 * Runs node with args as one whole process: wall-clock time, peak RSS, output. Never throws. The process
 * group is killed after `timeoutMs` (default 15 minutes); `env` is added to the environment.
 */
export function runProcess(args: string[], cwd: string, memory: MemoryProbe, options: { timeoutMs?: number; env?: NodeJS.ProcessEnv } = {}): Promise<ProcessResult> {
  const timeFile = path.join(os.tmpdir(), `resourcery-bench-time-${process.pid}-${Date.now()}.txt`);
  const [command, commandArgs] =
    memory === "gnu-time" ? ["/usr/bin/time", ["-f", "%M", "-o", timeFile, process.execPath, ...args]] : [process.execPath, args];
  const env = { ...process.env, NO_COLOR: "1", FORCE_COLOR: "0", CI: "1", ...options.env };
  return new Promise((resolve) => {
    let stdout = "";
    let stderr = "";
    let timedOut = false;
    let polledKb: number | undefined;
    const start = process.hrtime.bigint();
    const child = spawn(command, commandArgs as string[], { cwd, env, stdio: ["ignore", "pipe", "pipe"], detached: true });
    child.stdout.setEncoding("utf8").on("data", (d: string) => (stdout += d));
    child.stderr.setEncoding("utf8").on("data", (d: string) => (stderr += d));
    const poll =
      memory === "proc" && child.pid !== undefined
        ? setInterval(() => {
            const kb = vmHwmKb(child.pid!);
            if (kb !== undefined) polledKb = Math.max(polledKb ?? 0, kb);
          }, 10)
        : undefined;
    const timer = setTimeout(() => {
      timedOut = true;
      try {
        if (child.pid !== undefined) process.kill(-child.pid, "SIGKILL");
      } catch {
        /* already gone */
      }
    }, options.timeoutMs ?? TIMEOUT_MS);
    const finish = (code: number | null, error?: Error) => {
      const ms = Number(process.hrtime.bigint() - start) / 1e6;
      clearTimeout(timer);
      if (poll) clearInterval(poll);
      let rssKb: number | undefined = polledKb;
      if (memory === "gnu-time" && fs.existsSync(timeFile)) {
        rssKb = parseTimeFile(timeFile);
        fs.rmSync(timeFile, { force: true });
      }
      resolve({ code, ms, rssKb, stdout, stderr: error ? `${error.message}\n${stderr}` : stderr, timedOut });
    };
    child.on("error", (e) => finish(null, e));
    child.on("close", (code) => finish(code));
  });
}

function nonEmptyFile(file: string): boolean {
  try {
    return fs.statSync(file).size > 0;
  } catch {
    return false;
  }
}

function countFiles(dir: string): number {
  if (!fs.existsSync(dir)) return 0;
  return fs.readdirSync(dir, { recursive: true, withFileTypes: true }).filter((e) => e.isFile()).length;
}

function requireFiles(files: string[]): string | undefined {
  const missing = files.filter((f) => !nonEmptyFile(f));
  return missing.length ? `no output: ${missing.map((f) => path.basename(f)).join(", ")} missing or empty` : undefined;
}

/**
 * One invocation timed once per round (see runGenerationBench); stops at its first failing run and
 * reports it. `times[i]` is round i's, so two timings' rounds can be paired.
 */
class Timing {
  readonly times: number[] = [];
  private rss = 0;
  private readonly notes: string[] = [];
  private failure: string | undefined;

  constructor(
    readonly tool: string,
    readonly task: string,
    readonly n: number,
    private readonly inv: Invocation,
    private readonly memory: MemoryProbe,
  ) {}

  get failed(): boolean {
    return this.failure !== undefined;
  }

  async runOnce(): Promise<void> {
    if (this.failed) return;
    try {
      this.inv.before?.();
    } catch (e) {
      this.failure = `setup failed: ${(e as Error).message}`;
      return;
    }
    const r = await runProcess(this.inv.args, this.inv.cwd, this.memory);
    let failure: string | undefined;
    if (r.timedOut) failure = `timed out after ${TIMEOUT_MS / 1000} s`;
    else if (r.code !== 0) failure = firstLine(r.stderr) ?? errorLine(r.stdout) ?? lastLine(r.stdout) ?? `exit code ${r.code}`;
    else failure = this.inv.check(r);
    this.times.push(r.ms);
    if (failure) {
      this.failure = r.code !== 0 && !r.timedOut ? `exit ${r.code}: ${failure}` : failure;
      return;
    }
    if (r.rssKb !== undefined) this.rss = Math.max(this.rss, r.rssKb);
    const remark = this.inv.remark?.(r);
    if (remark && !this.notes.includes(remark)) this.notes.push(remark);
  }

  row(log: (l: string) => void): GenerationRow {
    const notes = [...this.notes];
    if (this.memory === "none") notes.push("memory not measured");
    else if (this.memory === "proc") notes.push("memory polled from /proc");
    if (this.failure) notes.unshift(this.failure);
    const times = this.times;
    const row: GenerationRow = {
      tool: this.tool,
      task: this.task,
      n: this.n,
      medianMs: times.length ? round(median(times)) : 0,
      minMs: times.length ? round(Math.min(...times)) : 0,
      maxMs: times.length ? round(Math.max(...times)) : 0,
      peakRssMb: round(this.rss / 1024),
      ok: this.failure === undefined,
      ...(notes.length ? { note: notes.join("; ") } : {}),
    };
    log(
      `  ${this.tool.padEnd(18)} ${this.task.padEnd(26)} n=${String(this.n).padEnd(4)} ` +
        (row.ok ? `median ${row.medianMs} ms (${row.minMs}–${row.maxMs}), ${row.peakRssMb} MB` : `FAILED`) +
        (row.note ? `  [${row.note}]` : ""),
    );
    return row;
  }
}

function skipped(tool: string, task: string, n: number, note: string, log: (l: string) => void): GenerationRow {
  log(`  ${tool.padEnd(18)} ${task.padEnd(26)} n=${String(n).padEnd(4)} skipped  [${note}]`);
  return { tool, task, n, medianMs: 0, minMs: 0, maxMs: 0, peakRssMb: 0, ok: false, note };
}

/** Writes the three projects of size n into dir: defs/, openapi.json, tsp/ (+ orval.config.mjs). */
function writeProjects(n: number, dir: string): void {
  writeResourcery(n, path.join(dir, "defs"));
  fs.writeFileSync(path.join(dir, "openapi.json"), JSON.stringify(openApiOf(n), null, 2));
  const tsp = path.join(dir, "tsp");
  fs.mkdirSync(tsp, { recursive: true });
  fs.writeFileSync(path.join(tsp, "main.tsp"), typeSpecOf(n));
  fs.writeFileSync(
    path.join(tsp, "tspconfig.yaml"),
    ['emit:', '  - "@typespec/openapi3"', '  - "@typespec/http-server-js"', 'output-dir: "{project-root}/tsp-output"', ""].join("\n"),
  );
  // tsp compile resolves @typespec/* libraries from the project folder.
  if (fs.existsSync(benchModules)) fs.symlinkSync(benchModules, path.join(tsp, "node_modules"), "dir");
  fs.writeFileSync(
    path.join(dir, "orval.config.mjs"),
    `export default { bench: { input: { target: "./openapi.json" }, output: { target: "./orval-out/api.ts", client: "fetch", mode: "single" } } };\n`,
  );
}

const GENERATED_COUNTS = /(\d+) created, (\d+) updated, (\d+) deleted/;

function peers(): Peer[] {
  const rm = (p: string) => () => fs.rmSync(p, { recursive: true, force: true });
  return [
    {
      tool: "typespec",
      task: "compile openapi3+http-server-js",
      bin: "tsp",
      script: binScript("tsp"),
      invocation: (script, dir) => {
        const out = path.join(dir, "tsp", "tsp-output", "@typespec");
        return {
          args: [script, "compile", "."],
          cwd: path.join(dir, "tsp"),
          before: rm(path.join(dir, "tsp", "tsp-output")),
          check: () =>
            requireFiles([path.join(out, "openapi3", "openapi.yaml")]) ??
            (countFiles(path.join(out, "http-server-js")) === 0 ? "no output from @typespec/http-server-js" : undefined),
        };
      },
    },
    {
      tool: "hey-api",
      task: "openapi-ts (client-fetch)",
      bin: "openapi-ts",
      script: binScript("openapi-ts"),
      invocation: (script, dir) => ({
        args: [script, "-i", "openapi.json", "-o", "heyapi-out"],
        cwd: dir,
        before: rm(path.join(dir, "heyapi-out")),
        check: () => requireFiles(["types.gen.ts", "sdk.gen.ts", "client.gen.ts"].map((f) => path.join(dir, "heyapi-out", f))),
      }),
    },
    {
      tool: "orval",
      task: "fetch client",
      bin: "orval",
      script: binScript("orval"),
      invocation: (script, dir) => ({
        args: [script, "--config", "orval.config.mjs"],
        cwd: dir,
        before: rm(path.join(dir, "orval-out")),
        check: () => requireFiles([path.join(dir, "orval-out", "api.ts")]),
      }),
    },
    {
      tool: "openapi-typescript",
      task: "types",
      bin: "openapi-typescript",
      script: binScript("openapi-typescript"),
      invocation: (script, dir) => ({
        args: [script, "openapi.json", "-o", "oats-out/schema.ts"],
        cwd: dir,
        before: () => {
          fs.rmSync(path.join(dir, "oats-out"), { recursive: true, force: true });
          fs.mkdirSync(path.join(dir, "oats-out"));
        },
        check: () => requireFiles([path.join(dir, "oats-out", "schema.ts")]),
      }),
    },
  ];
}

/** a/b as the median of the rounds' own ratios (both timed in each round), the way the table reports it. */
function pairedRatioRow(task: string, n: number, a: Timing, aRow: GenerationRow, b: Timing, bRow: GenerationRow): GenerationRow {
  const rounds = Math.min(a.times.length, b.times.length);
  const ok = aRow.ok && bRow.ok && rounds > 0;
  const ratio = ok ? median(Array.from({ length: rounds }, (_, i) => a.times[i]! / b.times[i]!)) : 0;
  return {
    tool: "ratio",
    task,
    n,
    medianMs: 0,
    minMs: 0,
    maxMs: 0,
    peakRssMb: 0,
    ok,
    ...(ok ? { ratio: `${ratio.toFixed(2)}×` } : {}),
    note: ok ? `median of ${rounds} rounds' ratios (medians: ${aRow.medianMs} ms / ${bRow.medianMs} ms)` : "a side failed or was skipped",
  };
}

/** Everything timed at one size: resourcery's three tasks and the installed peers. */
interface Lane {
  readonly n: number;
  readonly dir: string;
  readonly generate: Timing;
  readonly noop: Timing;
  /** A regenerate after one resource's description changed (incremental generation). */
  readonly change: Timing;
  readonly docs: Timing;
  readonly peers: ReadonlyMap<Peer, Timing>;
}

function laneFor(n: number, cli: string, allPeers: readonly Peer[], memory: MemoryProbe): Lane {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), `resourcery-bench-gen-${n}-`));
  try {
    writeProjects(n, dir);
  } catch (e) {
    fs.rmSync(dir, { recursive: true, force: true });
    throw e;
  }
  const defs = path.join(dir, "defs");
  // resourcery: full generate, each run into a fresh folder; a no-op regenerate (the same definitions
  // into a folder generated once beforehand, untimed); docs.
  let fresh = 0;
  const freshOut = () => path.join(dir, `gen-${fresh}`);
  const generate = new Timing("resourcery", "generate", n, {
    get args() {
      return [cli, "generate", defs, "--out", freshOut()];
    },
    cwd: dir,
    before: () => {
      fs.rmSync(freshOut(), { recursive: true, force: true }); // the previous round's output
      fresh++;
      fs.rmSync(freshOut(), { recursive: true, force: true });
    },
    check: () => requireFiles([path.join(freshOut(), "src", "generated", "server.ts")]),
  }, memory);
  const noopOut = path.join(dir, "noop-out");
  const noop = new Timing("resourcery", "regenerate (no-op)", n, {
    args: [cli, "generate", defs, "--out", noopOut],
    cwd: dir,
    check: () => requireFiles([path.join(noopOut, "src", "generated", "server.ts")]),
    remark: (r) => {
      const m = GENERATED_COUNTS.exec(r.stdout);
      if (!m) return "could not read the change counts";
      return m[1] === "0" && m[2] === "0" && m[3] === "0" ? undefined : `not a no-op: ${m[0]}`;
    },
  }, memory);
  // The no-op regenerate needs a generated folder: made once, untimed (a failure shows in its rows).
  spawnSync(process.execPath, [cli, "generate", defs, "--out", noopOut], { cwd: dir, stdio: "ignore" });
  // One resource changed: before each run, the description of the middle resource's name is edited (a change
  // every user makes, which the breaking-change gate lets through), and the folder generated before is regenerated.
  // Its own copy of the definitions: the no-op regenerate's stay as they are.
  const changeDefs = path.join(dir, "defs-changed");
  fs.cpSync(defs, changeDefs, { recursive: true });
  const changeOut = path.join(dir, "change-out");
  const changed = path.join(changeDefs, "resources", resourcesOf(n)[Math.floor(n / 2)]!.file);
  let edits = 0;
  const change = new Timing("resourcery", "regenerate (one changed)", n, {
    args: [cli, "generate", changeDefs, "--out", changeOut],
    cwd: dir,
    before: () => editDescription(changed, ++edits),
    check: () => requireFiles([path.join(changeOut, "src", "generated", "server.ts")]),
    remark: (r) => {
      const m = GENERATED_COUNTS.exec(r.stdout);
      if (!m) return "could not read the change counts";
      return m[2] !== "0" && m[1] === "0" && m[3] === "0" ? undefined : `not a one-resource change: ${m[0]}`;
    },
  }, memory);
  spawnSync(process.execPath, [cli, "generate", changeDefs, "--out", changeOut], { cwd: dir, stdio: "ignore" });
  const docs = new Timing("resourcery", "docs", n, {
    args: [cli, "docs", defs, "--out", path.join(dir, "docs-out")],
    cwd: dir,
    before: () => fs.rmSync(path.join(dir, "docs-out"), { recursive: true, force: true }),
    check: () => requireFiles([path.join(dir, "docs-out", "openapi.json"), path.join(dir, "docs-out", "index.html")]),
  }, memory);
  // Peers on the same API (those not installed are reported as skipped).
  const peerTimings = new Map(allPeers.filter((peer) => peer.script).map((peer) => [peer, new Timing(peer.tool, peer.task, n, peer.invocation(peer.script!, dir, n), memory)] as const));
  return { n, dir, generate, noop, change, docs, peers: peerTimings };
}

export async function runGenerationBench(options: GenerationOptions): Promise<GenerationRow[]> {
  const { log } = options;
  const sizes = options.smoke ? [10] : options.sizes;
  const runs = options.smoke ? 1 : Math.max(1, options.runs);
  const memory = await probeMemory();
  const cli = path.join(root, "bin", "run.js");
  const rows: GenerationRow[] = [];
  log(`generation: sizes ${sizes.join(", ")}, ${runs} round(s), whole processes, memory via ${memory}`);
  if (!fs.existsSync(path.join(root, "dist", "cli"))) log("  warning: dist/cli is missing — run `npm run build` in the repository first");

  const allPeers = options.peers === false ? [] : peers();
  const lanes: Lane[] = [];
  try {
    for (const n of sizes) {
      try {
        lanes.push(laneFor(n, cli, allPeers, memory));
      } catch (e) {
        rows.push(skipped("bench", "setup", n, `failed: ${(e as Error).message}`, log));
      }
    }
    // Round by round: each task (resourcery's three, then each peer) at every size, one after the
    // other, the tasks in an order that rotates from round to round. This machine's speed drifts within
    // minutes, so what is compared — a tool against a peer at one size, a size against the next — is
    // timed within the same round and compared round by round.
    const kinds: ((lane: Lane) => Timing | undefined)[] = [(l) => l.generate, (l) => l.noop, (l) => l.change, (l) => l.docs, ...allPeers.map((peer) => (l: Lane) => l.peers.get(peer))];
    for (let round = 0; round < runs; round++) {
      const order = [...kinds.slice(round % kinds.length), ...kinds.slice(0, round % kinds.length)];
      for (const kind of order) for (const lane of lanes) await kind(lane)?.runOnce();
      log(`  round ${round + 1} of ${runs} done`);
    }

    for (const lane of lanes) {
      const made = new Map<Timing, GenerationRow>();
      const rowOf = (t: Timing) => made.get(t) ?? made.set(t, t.row(log)).get(t)!;
      rows.push(rowOf(lane.generate), rowOf(lane.noop), rowOf(lane.change), rowOf(lane.docs));
      for (const peer of allPeers) {
        const t = lane.peers.get(peer);
        rows.push(t ? rowOf(t) : skipped(peer.tool, peer.task, lane.n, `${peer.bin} not installed (npm install in bench/)`, log));
      }
      const peerTiming = (tool: string) => [...lane.peers].find(([peer]) => peer.tool === tool)?.[1];
      const paired = (name: string, a: Timing, b: Timing | undefined) => (b ? [pairedRatioRow(name, lane.n, a, rowOf(a), b, rowOf(b))] : []);
      rows.push(
        ...paired("generate / openapi-typescript", lane.generate, peerTiming("openapi-typescript")),
        ...paired("generate / typespec", lane.generate, peerTiming("typespec")),
        ...paired("no-op regenerate / generate", lane.noop, lane.generate),
        ...paired("one-resource regenerate / generate", lane.change, lane.generate),
      );
    }

    // Scaling: resourcery at each size against the next smaller size (e.g. 500 / 100), round by round.
    const sorted = [...lanes].sort((a, b) => a.n - b.n);
    for (let i = 1; i < sorted.length; i++) {
      const [small, big] = [sorted[i - 1]!, sorted[i]!];
      for (const task of ["generate", "regenerate (no-op)", "docs"] as const) {
        const pick = (l: Lane) => (task === "generate" ? l.generate : task === "docs" ? l.docs : l.noop);
        const rowOf = (l: Lane) => rows.find((x) => x.tool === "resourcery" && x.task === task && x.n === l.n)!;
        rows.push(pairedRatioRow(`${task} n=${big.n} / n=${small.n}`, big.n, pick(big), rowOf(big), pick(small), rowOf(small)));
      }
    }
  } finally {
    for (const lane of lanes) fs.rmSync(lane.dir, { recursive: true, force: true });
  }
  for (const r of rows.filter((x) => x.tool === "ratio")) log(`  ratio ${r.task.padEnd(40)} n=${String(r.n).padEnd(4)} ${r.ratio ?? "—"}  [${r.note}]`);
  return rows;
}
