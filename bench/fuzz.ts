/**
 * The request fuzzer of test/helpers/fuzz.ts, run longer than CI does (500 000 requests by default)
 * against the generated library service: the same cases, checks and report as test/e2e/fuzz.test.ts,
 * with progress lines as it goes. Exits 1 on any failure, a crash, or RSS that keeps growing.
 *
 *   npm run fuzz                                  # in bench/ (run `npm run build` in the repo root first)
 *   npm run fuzz -- --requests 100000 --seed 42
 *   npm run fuzz -- --seed 42 --case 1234,5678    # replay cases of a run (also FUZZ_SEED / FUZZ_CASE)
 */
import crypto from "node:crypto";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { parseArgs } from "node:util";
import { describeReport, prepareService, runFuzz } from "../test/helpers/fuzz.js";
import { freePort, start } from "../test/helpers/package.js";

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "..");

const { values: flags } = parseArgs({
  options: {
    requests: { type: "string", default: "500000" },
    seed: { type: "string", default: process.env.FUZZ_SEED },
    case: { type: "string", default: process.env.FUZZ_CASE },
    concurrency: { type: "string", default: "16" },
    instances: { type: "string", default: "6" },
    "rss-growth-mb": { type: "string", default: "64" },
    keep: { type: "boolean", default: false },
    help: { type: "boolean", default: false },
  },
});

if (flags.help) {
  console.log(`npm run fuzz -- [--requests N] [--seed S] [--case I,J,…] [--concurrency C] [--instances N] [--rss-growth-mb M] [--keep]

  --requests       cases to send (default 500000)
  --seed           the run's seed (default: FUZZ_SEED, else random); printed, so that a run replays
  --case           only these case indexes of the seed's run (default: FUZZ_CASE)
  --concurrency    keep-alive connections at once (default 16)
  --instances      instances created per collection before the run (default 6)
  --rss-growth-mb  growth of the service's RSS allowed after the first quarter (default 64)
  --keep           keep the generated package and its database (its folder is printed)`);
  process.exit(0);
}

const seed = flags.seed !== undefined ? Number(flags.seed) : crypto.randomInt(2 ** 31);
const only = flags.case ? flags.case.split(",").map(Number) : undefined;
const requests = only?.length ?? Number(flags.requests);
const work = fs.mkdtempSync(path.join(os.tmpdir(), "resourcery-fuzz-"));
const out = path.join(work, "library-service");

console.log(`fuzz: seed ${seed}, ${requests} requests${only ? ` (cases ${only.join(", ")})` : ""}; generating into ${out}`);
const prepared = prepareService(root, out);
const port = await freePort();
const baseUrl = `http://127.0.0.1:${port}/v2`;
const server = await start(out, { PORT: String(port), BASE_URL: baseUrl, LOG_LEVEL: "warn", REQUEST_TIMEOUT_MS: "5000", HEADERS_TIMEOUT_MS: "3000" }, `${baseUrl}/authors`);
let crashed = false;
const onExit = (code: number | null, signal: NodeJS.Signals | null) => {
  crashed = true;
  console.error(`the service exited (${code ?? signal}) during the run:\n${server.log().slice(-4000)}`);
};
server.child.once("exit", onExit);

let failed = true;
try {
  const t0 = Date.now();
  const report = await runFuzz({
    baseUrl,
    openapi: prepared.openapi,
    keys: { write: prepared.write.secret, read: prepared.read.secret, writeId: prepared.write.id },
    seed,
    requests,
    ...(only ? { only } : {}),
    concurrency: Number(flags.concurrency),
    instances: Number(flags.instances),
    pid: server.child.pid,
    progress: (sent, r) => {
      const rss = r.rss[r.rss.length - 1]?.[1];
      console.log(`  ${sent} sent, ${Math.round(sent / ((Date.now() - t0) / 1000))} req/s, ${r.failed} failed, RSS ${rss === undefined ? "?" : `${Math.round(rss / 1024)} MB`}`);
      if (crashed) throw new Error("the service crashed");
    },
  });
  console.log(describeReport(report, 100, 3));
  const samples = report.rss;
  const warm = samples.find(([sent]) => sent >= requests / 4);
  const last = samples[samples.length - 1];
  const growthMb = warm && last ? (last[1] - warm[1]) / 1024 : 0;
  const rssOk = growthMb <= Number(flags["rss-growth-mb"]);
  if (!rssOk) console.log(`RSS grew ${Math.round(growthMb)} MB after the first quarter (allowed: ${flags["rss-growth-mb"]} MB)`);
  failed = report.failed > 0 || crashed || !rssOk;
  console.log(failed ? `FAILED (seed ${seed})` : `OK: ${report.sent} requests, no failure (seed ${seed})`);
} catch (error) {
  console.error(`FAILED (seed ${seed}): ${(error as Error).message}`);
} finally {
  server.child.off("exit", onExit);
  if (!crashed) await server.stop();
  if (flags.keep) console.log(`kept ${work}`);
  else fs.rmSync(work, { recursive: true, force: true });
}
process.exit(failed ? 1 : 0);
