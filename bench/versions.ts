/**
 * The cost of serving an older version (CONTRACT §7): the library service shipped as version 3, with
 * version 2 still served (book.title was `name` there, book.subtitle is new in 3), one generated service,
 * each route asked in version 2 (its prefix and media type: validated against version 2's schema,
 * converted up and down) and in version 3, in alternating back-to-back rounds. Reports req/s and p99 per
 * version and the median of the pairs' ratios older/current (the issue's bound: ≥ 0.90 on GET instance
 * and POST).
 */
import { spawn, spawnSync, type ChildProcess } from "node:child_process";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { fileURLToPath, pathToFileURL } from "node:url";
import { cpuUs, loadGenerator, waitFor } from "./server.js";
import { median } from "./stats.js";

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "..");

export interface VersionRow {
  readonly route: string;
  /** req/s and p99 (ms) of version 3 (current) and version 2 (older): medians of the rounds. */
  readonly current: { readonly reqPerSec: number; readonly p99Ms: number; readonly cpuUsPerReq?: number | undefined };
  readonly older: { readonly reqPerSec: number; readonly p99Ms: number; readonly cpuUsPerReq?: number | undefined };
  /** older/current: medians of the back-to-back pairs' ratios. */
  readonly ratio: number;
  readonly p99Ratio: number;
  readonly cpuRatio?: number | undefined;
}

export interface VersionBenchOptions {
  readonly durationSec: number;
  readonly rounds: number;
  readonly connections: number;
  readonly log: (line: string) => void;
}

type Json = Record<string, any>;
const readJson = (file: string): Json => JSON.parse(fs.readFileSync(file, "utf8"));
const writeJson = (file: string, value: unknown) => fs.writeFileSync(file, JSON.stringify(value, null, 2));

/** examples/library as version 3, version 2 still served: a rename and an added property. */
function versionedLibrary(dir: string): void {
  fs.cpSync(path.join(root, "examples/library"), dir, { recursive: true });
  const service = readJson(path.join(dir, "service.json"));
  writeJson(path.join(dir, "service.json"), { ...service, version: 3, versions: { "2": {} }, baseUrl: service.baseUrl.replace("/v2", "/v3") });
  const bookFile = path.join(dir, "resources/book.json");
  const book = readJson(bookFile);
  book.properties.title = { ...book.properties.title, "x-renamed": { "2": "name" } };
  book.properties.subtitle = { type: "string", "x-since": 3 };
  writeJson(bookFile, book);
}

/** Runs the version bench: one row per route. */
export async function runVersionBench(o: VersionBenchOptions): Promise<VersionRow[]> {
  const work = fs.mkdtempSync(path.join(os.tmpdir(), "resourcery-bench-versions-"));
  const defs = path.join(work, "defs");
  const out = path.join(work, "library-service");
  const run = (cmd: string, args: string[], cwd: string) => {
    const r = spawnSync(cmd, args, { cwd, encoding: "utf8" });
    if (r.status !== 0) throw new Error(`${cmd} ${args.join(" ")}: ${r.stderr}${r.stdout}`);
  };
  versionedLibrary(defs);
  run(process.execPath, [path.join(root, "bin/run.js"), "generate", defs, "--out", out], root);
  fs.symlinkSync(path.join(root, "node_modules"), path.join(out, "node_modules"), "dir");
  run(process.execPath, [path.join(root, "node_modules/typescript/bin/tsc"), "-p", "tsconfig.json"], out);
  const keysFile = path.join(work, "keys.json");
  const { KeyRing } = (await import(pathToFileURL(path.join(out, "dist/src/index.js")).href)) as { KeyRing: { open(f: string): { create(r: string[]): { secret: string } } } };
  const secret = KeyRing.open(keysFile).create(["librarian"]).secret;
  const port = 3950 + Math.floor(Math.random() * 40);
  const origin = `http://127.0.0.1:${port}`;
  const auth = { authorization: `Bearer ${secret}`, "content-type": "application/json" };
  const child: ChildProcess = spawn(process.execPath, ["dist/src/main.js"], {
    cwd: out,
    env: { ...process.env, PORT: String(port), BASE_URL: `${origin}/v3`, DATABASE_FILE: path.join(work, "bench.db"), KEYS_FILE: keysFile, LOG_LEVEL: "warn" },
    stdio: ["ignore", "ignore", "inherit"],
  });
  const exited = new Promise<void>((r) => child.once("exit", () => r()));
  const rows: VersionRow[] = [];
  try {
    await waitFor(`${origin}/v3/books`, auth);
    const author = await (await fetch(`${origin}/v3/authors`, { method: "POST", headers: auth, body: JSON.stringify({ name: "Ursula K. Le Guin", born: 1929 }) })).json();
    let bookId = "";
    for (let i = 0; i < 200; i++) {
      const b = await (await fetch(`${origin}/v3/books`, { method: "POST", headers: auth, body: JSON.stringify({ title: `Book ${i}`, subtitle: "A novel", pages: 100 + i, author: { meta: { href: author.meta.href } } }) })).json();
      bookId ||= b.id;
    }
    const authorHref = (v: number) => String(author.meta.href).replace("/v3/", `/v${v}/`);
    const routes = [
      { name: "GET instance", method: "GET", path: (v: number) => `/v${v}/books/${bookId}`, body: () => undefined },
      { name: "POST", method: "POST", path: (v: number) => `/v${v}/books`, body: (v: number) => JSON.stringify({ [v === 2 ? "name" : "title"]: "Bench", pages: 10, author: { meta: { href: authorHref(v) } } }) },
    ];
    const autocannon = await loadGenerator();
    for (const route of routes) {
      const measure = async (v: number, duration: number) => {
        const before = cpuUs(child.pid);
        const result = await autocannon({ url: origin + route.path(v), method: route.method, headers: { ...auth, accept: `application/vnd.library.v${v}.book+json` }, body: route.body(v), connections: o.connections, duration });
        const bad = result.non2xx + result.errors;
        if (bad > 0) o.log(`  warning: version ${v} ${route.name}: ${bad} non-2xx or failed requests`);
        const after = cpuUs(child.pid);
        const cpu = before !== undefined && after !== undefined && result.requests.total > 0 ? (after - before) / result.requests.total : undefined;
        return { rps: result.requests.average, p99: result.latency.p99, cpu };
      };
      for (const v of [3, 2]) await measure(v, o.durationSec >= 1 ? Math.max(1, Math.round(o.durationSec / 2)) : o.durationSec); // warm-up (a sub-second smoke: as long as a round)
      const got = { 3: [] as { rps: number; p99: number; cpu: number | undefined }[], 2: [] as { rps: number; p99: number; cpu: number | undefined }[] };
      const pairs: { rps: number; p99: number; cpu: number | undefined }[] = [];
      for (let round = 0; round < o.rounds; round++) {
        // Alternate which version goes first, so that neither always follows the other's load.
        const order = round % 2 === 0 ? [3, 2] : [2, 3];
        for (const v of order) {
          const r = await measure(v, o.durationSec);
          got[v as 2 | 3].push(r);
          o.log(`  versions ${route.name.padEnd(13)} round ${round + 1} v${v} ${Math.round(r.rps)} req/s  p99 ${r.p99.toFixed(2)} ms${r.cpu === undefined ? "" : `  cpu ${Math.round(r.cpu)} µs/req`}`);
        }
        const c = got[3][round]!;
        const old = got[2][round]!;
        pairs.push({ rps: old.rps / c.rps, p99: c.p99 > 0 ? old.p99 / c.p99 : 1, cpu: old.cpu !== undefined && c.cpu ? old.cpu / c.cpu : undefined });
      }
      const summary = (xs: readonly { rps: number; p99: number; cpu: number | undefined }[]) => {
        const cpus = xs.flatMap((x) => (x.cpu === undefined ? [] : [x.cpu]));
        return { reqPerSec: Math.round(median(xs.map((x) => x.rps))), p99Ms: Math.round(median(xs.map((x) => x.p99)) * 100) / 100, cpuUsPerReq: cpus.length > 0 ? Math.round(median(cpus)) : undefined };
      };
      const cpuPairs = pairs.flatMap((p) => (p.cpu === undefined ? [] : [p.cpu]));
      rows.push({
        route: route.name,
        current: summary(got[3]),
        older: summary(got[2]),
        ratio: median(pairs.map((p) => p.rps)),
        p99Ratio: median(pairs.map((p) => p.p99)),
        cpuRatio: cpuPairs.length > 0 ? median(cpuPairs) : undefined,
      });
    }
  } finally {
    child.kill("SIGTERM");
    await exited;
    fs.rmSync(work, { recursive: true, force: true });
  }
  return rows;
}

/** The results as a Markdown table. */
export function versionTable(rows: readonly VersionRow[]): string {
  const lines = ["| route | version 3 (current) req/s | version 2 (older) req/s | older/current | p99 current | p99 older | p99 ratio | CPU/req current | CPU/req older | CPU ratio |", "|---|---|---|---|---|---|---|---|---|---|"];
  const us = (n: number | undefined) => (n === undefined ? "" : `${n} µs`);
  for (const r of rows) {
    lines.push(`| ${r.route} | ${r.current.reqPerSec} | ${r.older.reqPerSec} | ${r.ratio.toFixed(2)} | ${r.current.p99Ms.toFixed(2)} ms | ${r.older.p99Ms.toFixed(2)} ms | ${r.p99Ratio.toFixed(2)} | ${us(r.current.cpuUsPerReq)} | ${us(r.older.cpuUsPerReq)} | ${r.cpuRatio === undefined ? "" : r.cpuRatio.toFixed(2)} |`);
  }
  return lines.join("\n");
}
