/**
 * `npm run regen-pairs -- --against DIR`: a one-resource regeneration timed with two builds of resourcery in
 * alternating pairs — this checkout and another (a worktree of an earlier commit, built) — on the synthetic API
 * (synth.ts), each build on its own copy of the definitions and its own output folder. Before each run the
 * description of the middle resource's `name` is edited, as `npm run bench -- --only generation` does; each run
 * must report a one-resource change (none created or deleted). Prints each pair's wall and CPU times (user +
 * system, `/usr/bin/time`) and the medians of the pairs' ratios: a change of a few percent on the regeneration
 * shows here, where two separate bench runs minutes apart differ by a fifth on this VM.
 */
import { spawnSync } from "node:child_process";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { commandLine } from "./args.js";
import { median } from "./stats.js";
import { editDescription, resourcesOf, writeResourcery } from "./synth.js";

const benchDir = path.dirname(fileURLToPath(import.meta.url));
const USAGE = `usage: npm run regen-pairs -- --against DIR [options]   (or: node --import tsx regen-pairs.ts …)
  --against DIR   the other resourcery checkout, built (e.g. git worktree add /tmp/before HEAD~1, then npm ci
                  and npm run build there, or a symlink to this node_modules before the build)
  --size N        resources of the synthetic API (default 500)
  --pairs K       pairs of runs (default 6), the order alternating
  --work DIR      where the definitions and outputs go (default: a temporary folder, removed afterwards)
  --keep          keep the work folder`;

/** One timed regeneration. */
export interface RegenRun {
  readonly wallMs: number;
  /** User + system CPU of the whole process (its workers included); undefined without /usr/bin/time. */
  readonly cpuMs: number | undefined;
}

/** A pair: the other build's run and this checkout's. */
export interface RegenPair {
  readonly against: RegenRun;
  readonly here: RegenRun;
}

export interface RegenPairsOptions {
  readonly against: string;
  readonly here?: string;
  readonly size: number;
  readonly pairs: number;
  readonly work: string;
  readonly log?: (line: string) => void;
}

const COUNTS = /(\d+) created, (\d+) updated, (\d+) deleted/;

/** Times `pairs` one-resource regenerations with each build; throws when a run fails or is not a one-resource change. */
export function runRegenPairs(o: RegenPairsOptions): RegenPair[] {
  const here = o.here ?? path.join(benchDir, "..");
  const builds = { against: path.resolve(o.against), here: path.resolve(here) } as const;
  for (const dir of Object.values(builds)) {
    if (!fs.existsSync(path.join(dir, "dist", "index.js"))) throw new Error(`${dir} is not a built resourcery checkout (no dist/index.js): run npm run build there`);
  }
  const middle = resourcesOf(o.size)[Math.floor(o.size / 2)]!.file;
  const lanes = (["against", "here"] as const).map((name) => {
    const defs = path.join(o.work, `defs-${name}`);
    const out = path.join(o.work, `out-${name}`);
    writeResourcery(o.size, defs);
    return { name, defs, out, bin: path.join(builds[name], "bin", "run.js"), edits: 0 };
  });
  const timed = fs.existsSync("/usr/bin/time");
  const generate = (lane: (typeof lanes)[number], check: boolean): RegenRun => {
    const timeFile = path.join(o.work, `time-${lane.name}.txt`);
    const args = [lane.bin, "generate", lane.defs, "--out", lane.out];
    const start = process.hrtime.bigint();
    const r = timed ? spawnSync("/usr/bin/time", ["-f", "%U %S", "-o", timeFile, process.execPath, ...args], { encoding: "utf8" }) : spawnSync(process.execPath, args, { encoding: "utf8" });
    const wallMs = Number(process.hrtime.bigint() - start) / 1e6;
    if (r.status !== 0) throw new Error(`${lane.name}: generate exited ${r.status}\n${r.stdout}${r.stderr}`);
    const counts = COUNTS.exec(r.stdout);
    if (check && (!counts || counts[1] !== "0" || counts[2] === "0" || counts[3] !== "0")) throw new Error(`${lane.name}: not a one-resource change: ${counts?.[0] ?? r.stdout}`);
    let cpuMs: number | undefined;
    if (timed) {
      const [user, system] = fs.readFileSync(timeFile, "utf8").trim().split(/\s+/).slice(-2).map(Number);
      cpuMs = ((user ?? NaN) + (system ?? NaN)) * 1000;
    }
    return { wallMs, cpuMs };
  };
  const edit = (lane: (typeof lanes)[number]) => editDescription(path.join(lane.defs, "resources", middle), ++lane.edits);
  // A first generation with each build, then one regeneration untimed (its memo and keys are then its own).
  for (const lane of lanes) {
    generate(lane, false);
    edit(lane);
    generate(lane, true);
  }
  const pairs: RegenPair[] = [];
  for (let i = 0; i < o.pairs; i++) {
    const order = i % 2 === 0 ? lanes : [...lanes].reverse();
    const got = new Map<string, RegenRun>();
    for (const lane of order) {
      edit(lane);
      got.set(lane.name, generate(lane, true));
    }
    const pair = { against: got.get("against")!, here: got.get("here")! };
    pairs.push(pair);
    const cpu = (r: RegenRun) => (r.cpuMs === undefined ? "" : `, CPU ${(r.cpuMs / 1000).toFixed(2)} s`);
    o.log?.(`pair ${i + 1}: against ${(pair.against.wallMs / 1000).toFixed(2)} s${cpu(pair.against)} | here ${(pair.here.wallMs / 1000).toFixed(2)} s${cpu(pair.here)}`);
  }
  return pairs;
}

/** The medians of the pairs: each side's wall and CPU, and of the pairs' here/against ratios. */
export function summary(pairs: readonly RegenPair[]): string {
  const s = (ms: number) => `${(ms / 1000).toFixed(2)} s`;
  const cpus = pairs.every((p) => p.here.cpuMs !== undefined && p.against.cpuMs !== undefined);
  const lines = [
    `wall: here ${s(median(pairs.map((p) => p.here.wallMs)))}, against ${s(median(pairs.map((p) => p.against.wallMs)))}, here/against ${median(pairs.map((p) => p.here.wallMs / p.against.wallMs)).toFixed(3)} (median of ${pairs.length} pairs)`,
  ];
  if (cpus) lines.push(`CPU:  here ${s(median(pairs.map((p) => p.here.cpuMs!)))}, against ${s(median(pairs.map((p) => p.against.cpuMs!)))}, here/against ${median(pairs.map((p) => p.here.cpuMs! / p.against.cpuMs!)).toFixed(3)}`);
  return lines.join("\n");
}

if (process.argv[1] && path.resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  const args = commandLine(USAGE);
  const against = args.last("--against");
  if (against === undefined) {
    console.error(USAGE);
    process.exit(2);
  }
  const work = args.last("--work") ?? fs.mkdtempSync(path.join(os.tmpdir(), "resourcery-regen-pairs-"));
  fs.mkdirSync(work, { recursive: true });
  try {
    const pairs = runRegenPairs({ against, size: Number(args.last("--size") ?? 500), pairs: Number(args.last("--pairs") ?? 6), work, log: console.log });
    console.log(summary(pairs));
  } finally {
    if (!args.has("--keep")) fs.rmSync(work, { recursive: true, force: true });
  }
}
