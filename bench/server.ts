/**
 * Served throughput: the generated library service, the hand-written Fastify baseline and a raw
 * node:http floor, on the same SQLite file, under autocannon with the same settings, in alternating
 * rounds route by route. Reports req/s and p99 per route and the ratio generated/baseline of back-to-back runs.
 * With `store: "postgres"`, the generated service (DATABASE_URL) and the hand-written Fastify + pg baseline
 * (baseline-pg.ts) on one database of a throwaway PostgreSQL cluster (no floor).
 */
import { spawn, spawnSync, type ChildProcess } from "node:child_process";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { fileURLToPath, pathToFileURL } from "node:url";
import { startPostgres } from "../test/helpers/postgres.js";
import { median, percentile } from "./stats.js";

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "..");
const here = path.dirname(fileURLToPath(import.meta.url));

export interface ServerRow {
  readonly route: string;
  readonly server: "generated" | "baseline" | "floor";
  readonly reqPerSec: number;
  readonly p99Ms: number;
  /** The server process's CPU time (user + system, all threads, from /proc) per answered request, in µs; undefined where /proc is not. */
  readonly cpuUsPerReq?: number | undefined;
}

/** generated/baseline per route: the median of the ratios of runs made one right after the other. */
export interface RouteRatio {
  readonly route: string;
  readonly reqPerSec: number;
  readonly p99: number;
  /**
   * The p99 of every round's 2xx response times pooled per server, generated over baseline: the rounds
   * alternate, so both pools saw the same conditions, and a pool of 21 rounds is not moved by one round's hiccup.
   */
  readonly p99Pooled?: number | undefined;
  /** The median of each pair's ratio of CPU time per request (the servers' own cost, whatever the load generator got of the cores). */
  readonly cpu?: number | undefined;
}

export interface ServerOptions {
  readonly durationSec: number;
  readonly rounds: number;
  readonly connections: number;
  /** Only the routes whose names contain one of these (case-insensitive); all when absent. */
  readonly routes?: readonly string[] | undefined;
  /** The store both servers use: the SQLite file (default) or a PostgreSQL database. */
  readonly store?: "sqlite" | "postgres" | undefined;
  readonly log: (line: string) => void;
}

type Load = (o: { url: string; method: string; headers: Record<string, string>; body?: string | undefined; connections: number; duration: number }) => Promise<{ requests: { average: number; total: number }; latency: { p99: number }; non2xx: number; errors: number; times: number[] }>;

/**
 * autocannon when bench/ has its dependencies; otherwise (the CI smoke) a small fetch loop with the
 * same result shape, so that the harness itself is exercised everywhere.
 */
export async function loadGenerator(): Promise<Load> {
  try {
    const { default: autocannon } = await import("autocannon");
    // autocannon's own percentiles come from a histogram of whole milliseconds: at a p99 of ~5 ms one
    // step is 20%, so its p99 ratios could only be 1.0, 1.2, 1.25… The p99 here is computed from every
    // 2xx response's own time instead (autocannon measures it with hrtime).
    return async (options) => {
      const times: number[] = [];
      const run = autocannon(options).on("response", (_client, status, _bytes, ms) => {
        if (status >= 200 && status < 300) times.push(ms);
      });
      const result = await run;
      return { ...result, latency: { p99: percentile(times, 0.99) }, times };
    };
  } catch {
    return async ({ url, method, headers, body, connections, duration }) => {
      const latencies: number[] = [];
      let non2xx = 0;
      let errors = 0;
      const end = Date.now() + duration * 1000;
      await Promise.all(
        Array.from({ length: connections }, async () => {
          while (Date.now() < end) {
            const t0 = performance.now();
            try {
              const res = await fetch(url, { method, headers, ...(body ? { body } : {}) });
              await res.arrayBuffer();
              if (res.status >= 300) non2xx++;
            } catch {
              errors++;
            }
            latencies.push(performance.now() - t0);
          }
        }),
      );
      return { requests: { average: latencies.length / duration, total: latencies.length }, latency: { p99: percentile(latencies, 0.99) }, non2xx, errors, times: latencies };
    };
  }
}


/** A process's CPU time so far (user + system, every thread) in µs, from /proc; undefined where there is none. */
export function cpuUs(pid: number | undefined): number | undefined {
  if (pid === undefined) return undefined;
  try {
    // Fields after the command's closing parenthesis: utime and stime are the 12th and 13th, in clock ticks (100 Hz on Linux).
    const fields = fs.readFileSync(`/proc/${pid}/stat`, "utf8").split(") ")[1]!.split(" ");
    return (Number(fields[11]) + Number(fields[12])) * 10_000;
  } catch {
    return undefined;
  }
}

/** Waits until something answers at `url` (any status), up to 10 s. */
export async function waitFor(url: string, headers: Record<string, string>): Promise<void> {
  for (let i = 0; i < 200; i++) {
    try {
      await fetch(url, { headers });
      return;
    } catch {
      await new Promise((r) => setTimeout(r, 50));
    }
  }
  throw new Error(`nothing answers at ${url}`);
}

/** The headers whose values both servers must answer alike (an ETag and X-Request-Id: present in both). */
const SAME_HEADERS = ["content-type", "cache-control", "vary"] as const;

/**
 * How the generated service's answer to `route` differs from the baseline's (none: the same status, the
 * same headers of SAME_HEADERS, an ETag and an X-Request-Id from both, and the same body — in any key order,
 * a POST's new id, times and href aside). A baseline that answers less (no Vary, a shorter Content-Type) does less work
 * than the service it is measured against.
 */
async function answerDifferences(route: { method: string; path: string; body?: string | undefined }, ports: { generated: number; baseline: number }, headers: Record<string, string>): Promise<string[]> {
  const answer = async (port: number) => {
    const res = await fetch(`http://127.0.0.1:${port}${route.path}`, { method: route.method, headers, ...(route.body !== undefined ? { body: route.body } : {}) });
    const body = await res.text();
    return { status: res.status, headers: res.headers, body: canonical(body, route.method === "POST") };
  };
  const [g, b] = [await answer(ports.generated), await answer(ports.baseline)];
  const problems: string[] = [];
  if (g.status !== b.status) problems.push(`status ${g.status} (generated) against ${b.status} (baseline)`);
  for (const h of SAME_HEADERS) if (g.headers.get(h) !== b.headers.get(h)) problems.push(`${h}: ${g.headers.get(h)} (generated) against ${b.headers.get(h)} (baseline)`);
  for (const h of ["etag", "x-request-id"]) if ((g.headers.get(h) === null) !== (b.headers.get(h) === null)) problems.push(`${h} from one server only`);
  if (g.body !== b.body) problems.push(`the bodies differ: ${g.body.slice(0, 200)} (generated) against ${b.body.slice(0, 200)} (baseline)`);
  return problems;
}

/**
 * A JSON body with its keys sorted (the order of an object's keys is no difference of work); with `created`,
 * what differs between any two creations (the new instance's id, times and href) blanked.
 */
function canonical(body: string, created: boolean): string {
  let value: unknown;
  try {
    value = JSON.parse(body);
  } catch {
    return body;
  }
  if (created && value !== null && typeof value === "object") {
    const v = value as { meta?: { href?: string }; id?: string; createdAt?: string; modifiedAt?: string };
    if (v.meta?.href !== undefined) v.meta.href = "…";
    for (const k of ["id", "createdAt", "modifiedAt"] as const) if (v[k] !== undefined) v[k] = "…";
  }
  const sorted = (x: unknown): unknown =>
    Array.isArray(x) ? x.map(sorted) : x !== null && typeof x === "object" ? Object.fromEntries(Object.keys(x).sort().map((k) => [k, sorted((x as Record<string, unknown>)[k])])) : x;
  return JSON.stringify(sorted(value));
}

/** Runs the throughput benchmark: one row per route and server (medians over rounds), and the paired ratios per route. */
export async function runServerBench(o: ServerOptions): Promise<{ rows: ServerRow[]; ratios: RouteRatio[] }> {
  const work = fs.mkdtempSync(path.join(os.tmpdir(), "resourcery-bench-"));
  const out = path.join(work, "library-service");
  const run = (cmd: string, args: string[], cwd: string) => {
    const r = spawnSync(cmd, args, { cwd, encoding: "utf8" });
    if (r.status !== 0) throw new Error(`${cmd} ${args.join(" ")}: ${r.stderr}${r.stdout}`);
  };
  run(process.execPath, [path.join(root, "bin/run.js"), "generate", path.join(root, "examples/library"), "--out", out], root);
  fs.symlinkSync(path.join(root, "node_modules"), path.join(out, "node_modules"), "dir");
  run(process.execPath, [path.join(root, "node_modules/typescript/bin/tsc"), "-p", "tsconfig.json"], out);
  const keysFile = path.join(work, "keys.json");
  const db = path.join(work, "bench.db");
  const postgres = o.store === "postgres" ? await startPostgres() : undefined;
  const url = postgres?.database("bench");
  type Ring = { create(r: string[]): { secret: string }; createKey(r: string[]): Promise<{ secret: string }>; close(): Promise<void> };
  const { KeyRing } = (await import(pathToFileURL(path.join(out, "dist/src/index.js")).href)) as { KeyRing: { open(f: string): Ring; openDatabase(url: string): Promise<Ring> } };
  let secret: string;
  if (url === undefined) secret = KeyRing.open(keysFile).create(["librarian"]).secret;
  else {
    const ring = await KeyRing.openDatabase(url);
    secret = (await ring.createKey(["librarian"])).secret;
    await ring.close();
  }
  const headers = { authorization: `Bearer ${secret}`, accept: "application/vnd.library.v2.book+json", "content-type": "application/json" };
  const port = 3900 + Math.floor(Math.random() * 50);
  const baseUrl = `http://127.0.0.1:${port}/v2`;

  // Every server runs in a child process of its own (none shares the load generator's process).
  // Every server answers with hrefs under the same base URL (the generated service's), so bodies are alike.
  const pids = new Map<string, number | undefined>();
  const startChild = async (args: string[], cwd: string, env: Record<string, string>, on: number): Promise<() => Promise<void>> => {
    const child: ChildProcess = spawn(process.execPath, args, { cwd, env: { ...process.env, ...env }, stdio: ["ignore", "ignore", "inherit"] });
    const exited = new Promise<void>((r) => child.once("exit", () => r()));
    pids.set(String(on), child.pid);
    await Promise.race([waitFor(`http://127.0.0.1:${on}/v2/books`, headers), exited.then(() => Promise.reject(new Error(`${args.join(" ")} exited before it answered`)))]);
    return () => (child.kill("SIGTERM"), exited);
  };
  const startGenerated = () => startChild(["dist/src/main.js"], out, { PORT: String(port), BASE_URL: baseUrl, DATABASE_FILE: db, KEYS_FILE: keysFile, LOG_LEVEL: "warn", ...(url ? { DATABASE_URL: url } : {}) }, port);
  const startHandWritten = (kind: "baseline" | "floor", on: number) =>
    url === undefined
      ? startChild(["--import", "tsx", path.join(here, "serve-baseline.ts"), kind], here, { BENCH_SERVER: JSON.stringify({ db, keysFile, baseUrl, port: on }) }, on)
      : startChild(["--import", "tsx", path.join(here, "serve-baseline.ts"), "baseline-pg"], here, { BENCH_SERVER: JSON.stringify({ url, baseUrl, port: on }) }, on);

  // Every server started is stopped, whatever fails: seeding, a server that does not come up, a measurement.
  const stops: (() => Promise<void>)[] = [];
  const samples = new Map<string, { rps: number[]; p99: number[]; cpu: number[] }>();
  const ratios: RouteRatio[] = [];
  try {
    // Seed through the generated service: one author and 200 books.
    stops.push(await startGenerated());
    const author = await (await fetch(`${baseUrl}/authors`, { method: "POST", headers: { ...headers, accept: "application/json" }, body: JSON.stringify({ name: "Ursula K. Le Guin", born: 1929 }) })).json();
    let bookId = "";
    for (let i = 0; i < 200; i++) {
      const b = await (await fetch(`${baseUrl}/books`, { method: "POST", headers: { ...headers, accept: "application/json" }, body: JSON.stringify({ title: `Book ${i}`, pages: 100 + i, author: { meta: { href: author.meta.href } } }) })).json();
      bookId ||= b.id;
    }

    const routes: { name: string; method: "GET" | "POST"; path: string; body?: string; floor?: boolean; accept?: string }[] = [
      { name: "GET instance", method: "GET", path: `/v2/books/${bookId}`, floor: true },
      { name: "GET with fields", method: "GET", path: `/v2/books/${bookId}?fields=title,pages` },
      { name: "GET with expand", method: "GET", path: `/v2/books/${bookId}?expand=author` },
      { name: "GET collection page", method: "GET", path: "/v2/books?limit=25", accept: "application/vnd.library.v2.books+json" },
      { name: "POST", method: "POST", path: "/v2/books", body: JSON.stringify({ title: "Bench", pages: 10, author: { meta: { href: author.meta.href } } }) },
    ];
    // All three servers stay up, each on its own port and in its own process (an idle one costs nothing),
    // so each route is measured in pairs close in time: on a shared machine the speed drifts by ±30%
    // within a minute, and a ratio taken from runs minutes apart measures the drift as much as the servers.
    const ports = { generated: port, baseline: port + 1, floor: port + 2 } as const;
    stops.push(await startHandWritten("baseline", ports.baseline));
    if (url === undefined) stops.push(await startHandWritten("floor", ports.floor));
    const autocannon = await loadGenerator();
    const chosen = routes.filter((r) => !o.routes?.length || o.routes.some((want) => r.name.toLowerCase().includes(want.toLowerCase())));
    for (const route of chosen) {
      const servers = (["generated", "baseline", "floor"] as const).filter((s) => s !== "floor" || (route.floor && url === undefined));
      const measure = async (server: (typeof servers)[number], duration: number) => {
        const url = `http://127.0.0.1:${ports[server]}${route.path}`;
        const pid = pids.get(String(ports[server]));
        const before = cpuUs(pid);
        const result = await autocannon({ url, method: route.method, headers: { ...headers, ...(route.accept ? { accept: route.accept } : {}) }, body: route.body, connections: o.connections, duration });
        const bad = result.non2xx + result.errors;
        if (bad > 0) o.log(`  warning: ${server} ${route.name}: ${bad} non-2xx or failed requests`);
        const after = cpuUs(pid);
        const answered = result.requests.total;
        return { ...result, cpuUsPerReq: before !== undefined && after !== undefined && answered > 0 ? (after - before) / answered : undefined };
      };
      // The two servers do the same work only if they answer alike: the same status, body and headers.
      for (const problem of await answerDifferences(route, ports, { ...headers, ...(route.accept ? { accept: route.accept } : {}) })) o.log(`  warning: ${route.name}: ${problem}`);
      for (const server of servers) await measure(server, o.durationSec >= 1 ? Math.max(1, Math.round(o.durationSec / 2)) : o.durationSec); // warm-up (a sub-second smoke: as long as a round)
      const pairs: { rps: number; p99: number; cpu: number | undefined }[] = [];
      const pooled = new Map<string, number[]>();
      for (let round = 0; round < o.rounds; round++) {
        // Alternate which server goes first, so that neither always follows the other's load.
        const order = round % 2 === 0 ? servers : [...servers].reverse();
        const got = new Map<string, { rps: number; p99: number; cpu: number | undefined }>();
        for (const server of order) {
          const result = await measure(server, o.durationSec);
          const key = `${route.name}|${server}`;
          const s = samples.get(key) ?? { rps: [], p99: [], cpu: [] };
          s.rps.push(result.requests.average);
          s.p99.push(result.latency.p99);
          if (result.cpuUsPerReq !== undefined) s.cpu.push(result.cpuUsPerReq);
          samples.set(key, s);
          got.set(server, { rps: result.requests.average, p99: result.latency.p99, cpu: result.cpuUsPerReq });
          const pool = pooled.get(server) ?? pooled.set(server, []).get(server)!;
          for (const t of result.times) pool.push(t);
          const cpu = result.cpuUsPerReq === undefined ? "" : `  cpu ${Math.round(result.cpuUsPerReq)} µs/req`;
          o.log(`  ${route.name.padEnd(20)} round ${round + 1} ${server.padEnd(9)} ${Math.round(result.requests.average)} req/s  p99 ${result.latency.p99.toFixed(2)} ms${cpu}`);
        }
        const g = got.get("generated")!;
        const b = got.get("baseline")!;
        pairs.push({ rps: g.rps / b.rps, p99: b.p99 > 0 ? g.p99 / b.p99 : 1, cpu: g.cpu !== undefined && b.cpu ? g.cpu / b.cpu : undefined });
      }
      const cpuPairs = pairs.flatMap((p) => (p.cpu === undefined ? [] : [p.cpu]));
      const [pg, pb] = [pooled.get("generated") ?? [], pooled.get("baseline") ?? []];
      const p99Pooled = pg.length > 0 && pb.length > 0 ? percentile(pg, 0.99) / percentile(pb, 0.99) : undefined;
      ratios.push({ route: route.name, reqPerSec: median(pairs.map((p) => p.rps)), p99: median(pairs.map((p) => p.p99)), p99Pooled, cpu: cpuPairs.length > 0 ? median(cpuPairs) : undefined });
    }
  } finally {
    for (const stop of stops) await stop();
    postgres?.stop();
    fs.rmSync(work, { recursive: true, force: true });
  }
  const rows = [...samples].map(([key, s]) => {
    const [route, server] = key.split("|") as [string, ServerRow["server"]];
    return { route, server, reqPerSec: Math.round(median(s.rps)), p99Ms: Math.round(median(s.p99) * 100) / 100, cpuUsPerReq: s.cpu.length > 0 ? Math.round(median(s.cpu)) : undefined };
  });
  return { rows, ratios };
}
