/**
 * `npm run bench`: generation speed against peers and served throughput against hand-written Fastify,
 * in one run; writes the results table into bench/README.md. `--smoke` (CI) runs N = 10 briefly and
 * writes nothing; `--only generation|server` runs one half and writes nothing; `--help` says so.
 */
import { execSync } from "node:child_process";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { runGenerationBench, type GenerationRow } from "./generation.js";
import { runServerBench, type RouteRatio, type ServerRow } from "./server.js";
import { runVersionBench, versionTable } from "./versions.js";

const here = path.dirname(fileURLToPath(import.meta.url));
const USAGE = `usage: npm run bench [-- options]   (or: node --import tsx run.ts [options])
  (none)                the full bench (about 15 minutes); writes the results into bench/README.md
  --smoke               N = 10, one short round, peers skipped when not installed; writes nothing (CI)
  --only generation     only the generation half; writes nothing
  --only server         only the served-throughput half; writes nothing
  --only server-pg      the served-throughput half on PostgreSQL (a throwaway cluster; generated vs Fastify + pg); writes nothing
  --only versions       only the cost of serving an older version; writes nothing
  --runs N              runs per generation measurement (default 5)
  --size N              with --only generation: only this size (repeatable; default 10, 100 and 500)
  --no-peers            with --only generation: resourcery alone (the peers skipped)
  --duration S          seconds per autocannon measurement (default 1)
  --rounds R            back-to-back rounds of the servers per route (default 21)
  --route NAME          only the routes whose names contain NAME (repeatable); writes nothing`;
if (process.argv.includes("--help") || process.argv.includes("-h")) {
  console.log(USAGE);
  process.exit(0);
}
const smoke = process.argv.includes("--smoke");
const onlyAt = process.argv.indexOf("--only");
const only = onlyAt >= 0 ? process.argv[onlyAt + 1] : undefined;
if (only !== undefined && only !== "generation" && only !== "server" && only !== "server-pg" && only !== "versions") {
  console.error(`--only takes generation, server, server-pg or versions (got ${only ?? "nothing"})\n${USAGE}`);
  process.exit(2);
}
/** Every value given to a repeatable option. */
const valuesOf = (option: string) => process.argv.flatMap((a, i) => (process.argv[i - 1] === option ? [a] : []));
/** `--runs N`, `--duration S`, `--rounds R` shorten a run (the defaults are the full bench). */
const flag = (name: string, fallback: number) => {
  const i = process.argv.indexOf(`--${name}`);
  return i >= 0 ? Number(process.argv[i + 1]) : fallback;
};
const log = (line: string) => console.log(line);

function versionOf(pkg: string): string {
  for (const dir of [path.join(here, "node_modules"), path.join(here, "..", "node_modules")]) {
    try {
      return JSON.parse(fs.readFileSync(path.join(dir, pkg, "package.json"), "utf8")).version as string;
    } catch {
      /* try the next folder */
    }
  }
  return "not installed";
}

function generationTable(rows: readonly GenerationRow[]): string {
  const lines = ["| tool | task | N | median | min–max | peak RSS | note |", "|---|---|---|---|---|---|---|"];
  for (const r of rows) {
    const note = r.ratio ?? (r.ok ? (r.note ?? "") : `failed: ${r.note ?? ""}`);
    const time = r.tool === "ratio" ? "" : `${(r.medianMs / 1000).toFixed(2)} s`;
    const range = r.tool === "ratio" ? "" : `${(r.minMs / 1000).toFixed(2)}–${(r.maxMs / 1000).toFixed(2)} s`;
    const rss = r.tool === "ratio" || !r.peakRssMb ? "" : `${Math.round(r.peakRssMb)} MB`;
    lines.push(`| ${r.tool} | ${r.task} | ${r.n} | ${time} | ${range} | ${rss} | ${note} |`);
  }
  return lines.join("\n");
}

function serverTable({ rows, ratios }: { rows: readonly ServerRow[]; ratios: readonly RouteRatio[] }): string {
  const routes = [...new Set(rows.map((r) => r.route))];
  const lines = ["| route | generated req/s | baseline req/s | floor req/s | generated/baseline | p99 generated | p99 baseline | p99 ratio | p99 ratio, all rounds pooled | CPU/req generated | CPU/req baseline | CPU ratio |", "|---|---|---|---|---|---|---|---|---|---|---|---|"];
  for (const route of routes) {
    const get = (s: ServerRow["server"]) => rows.find((r) => r.route === route && r.server === s);
    const g = get("generated");
    const b = get("baseline");
    const f = get("floor");
    const paired = ratios.find((r) => r.route === route);
    const ratio = paired ? paired.reqPerSec.toFixed(2) : "";
    const p99 = paired ? paired.p99.toFixed(2) : "";
    const us = (r: ServerRow | undefined) => (r?.cpuUsPerReq === undefined ? "" : `${r.cpuUsPerReq} µs`);
    const cpu = paired?.cpu === undefined ? "" : paired.cpu.toFixed(2);
    const pooled = paired?.p99Pooled === undefined ? "" : paired.p99Pooled.toFixed(2);
    lines.push(`| ${route} | ${g?.reqPerSec ?? ""} | ${b?.reqPerSec ?? ""} | ${f?.reqPerSec ?? "—"} | ${ratio} | ${g ? `${g.p99Ms.toFixed(2)} ms` : ""} | ${b ? `${b.p99Ms.toFixed(2)} ms` : ""} | ${p99} | ${pooled} | ${us(g)} | ${us(b)} | ${cpu} |`);
  }
  return lines.join("\n");
}

const started = Date.now();
log(`resourcery bench${smoke ? " (smoke)" : ""}`);
const generation = only === "server" || only === "server-pg" || only === "versions" ? [] : await runGenerationBench({ sizes: smoke ? [10] : valuesOf("--size").length > 0 ? valuesOf("--size").map(Number) : [10, 100, 500], runs: smoke ? 1 : flag("runs", 5), smoke, log, peers: !process.argv.includes("--no-peers") });
const server = only === "generation" || only === "versions" ? { rows: [], ratios: [] } : await runServerBench({ durationSec: smoke ? 1 : flag("duration", 1), rounds: smoke ? 1 : flag("rounds", 21), connections: smoke ? 4 : 50, routes: valuesOf("--route"), store: only === "server-pg" ? "postgres" : "sqlite", log });
const versioned =
  only === "generation" || only === "server" || only === "server-pg" || valuesOf("--route").length > 0
    ? []
    : await runVersionBench({ durationSec: smoke ? 1 : flag("duration", 1), rounds: smoke ? 1 : flag("rounds", 21), connections: smoke ? 4 : 50, log });
const failed = generation.filter((r) => r.tool === "resourcery" && !r.ok);
console.log("\n" + generationTable(generation) + "\n\n" + serverTable(server) + "\n\n" + versionTable(versioned));

if (!smoke && !only && valuesOf("--route").length === 0) {
  const cpu = os.cpus()[0]?.model ?? "unknown CPU";
  const machine = `${os.cpus().length} × ${cpu}, ${Math.round(os.totalmem() / 2 ** 30)} GiB, Node ${process.version}, ${os.type()} ${os.release()}`;
  const versions = ["@typespec/compiler", "@typespec/http-server-js", "@hey-api/openapi-ts", "orval", "openapi-typescript", "fastify", "better-sqlite3", "autocannon"].map((p) => `${p} ${versionOf(p)}`).join(", ");
  let commit = "";
  try {
    commit = execSync("git rev-parse --short HEAD", { cwd: here, encoding: "utf8" }).trim();
  } catch {
    /* not a checkout */
  }
  const readme = path.join(here, "README.md");
  const text = fs.readFileSync(readme, "utf8");
  const results = [
    "<!-- results:start -->",
    `Measured ${new Date().toISOString().slice(0, 10)} at commit ${commit || "?"} on ${machine}.`,
    `Versions: ${versions}.`,
    "",
    "### Generation (whole processes, median of runs)",
    "",
    generationTable(generation),
    "",
    "### Served throughput (autocannon, medians of alternating rounds; ratios: medians of back-to-back pairs)",
    "",
    serverTable(server),
    "",
    "### Serving an older version (one service, version 2 beside the current 3; ratios: medians of back-to-back pairs)",
    "",
    versionTable(versioned),
    "<!-- results:end -->",
  ].join("\n");
  fs.writeFileSync(readme, text.replace(/<!-- results:start -->[\s\S]*<!-- results:end -->/, results));
  log(`\nresults written to bench/README.md (${Math.round((Date.now() - started) / 1000)} s)`);
}
if (failed.length > 0) {
  console.error(`resourcery failed: ${failed.map((f) => `${f.task} N=${f.n}: ${f.note}`).join("; ")}`);
  process.exit(1);
}
