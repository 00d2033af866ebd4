/**
 * The request fuzzer (test/helpers/fuzz.ts) against the library service on PostgreSQL (DATABASE_URL, a
 * throwaway cluster): what the database cannot do that SQLite can (text without U+0000, numbered ids compared
 * as numbers, foreign keys, named statements on pooled connections) must never turn a client's request into a
 * 5xx. No 5xx, the contract's error body on every 4xx, the process alive at the end. A fixed seed in CI
 * (FUZZ_SEED replays one, FUZZ_PG_REQUESTS changes the length; the long run is the SQLite one of e2e/fuzz).
 */
import crypto from "node:crypto";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { test } from "uvu";
import * as assert from "uvu/assert";
import { repoRoot } from "../helpers/cli.js";
import { describeReport, prepareService, runFuzz, type PreparedService } from "../helpers/fuzz.js";
import { freePort, start, type Started } from "../helpers/package.js";
import { startPostgres, type Postgres } from "../helpers/postgres.js";

const seed = Number(process.env.FUZZ_SEED ?? (process.env.CI ? 20_2026 : crypto.randomInt(2 ** 31)));
const requests = Number(process.env.FUZZ_PG_REQUESTS ?? 5_000);
const tmp = fs.mkdtempSync(path.join(os.tmpdir(), "resourcery-pg-fuzz-"));
let pg: Postgres | undefined;
let prepared: PreparedService | undefined;
let server: Started | undefined;
let baseUrl = "";
let env: NodeJS.ProcessEnv = {};

test.before(async () => {
  pg = await startPostgres();
  env = { DATABASE_URL: pg.database("fuzz"), KEYS_FILE: path.join(tmp, "no-keys.json") };
  prepared = prepareService(repoRoot, path.join(tmp, "library-service"), { env });
});
test.after(async () => {
  await server?.stop();
  pg?.stop();
  fs.rmSync(tmp, { recursive: true, force: true });
});

test(`${requests} fuzzed requests on PostgreSQL (seed ${seed}): no 5xx, the contract's error body`, async () => {
  const port = await freePort();
  baseUrl = `http://127.0.0.1:${port}/v2`;
  server = await start(prepared!.dir, { ...env, PORT: String(port), BASE_URL: baseUrl, LOG_LEVEL: "warn", REQUEST_TIMEOUT_MS: "5000", HEADERS_TIMEOUT_MS: "3000" }, `${baseUrl}/authors`);
  console.log(`postgres fuzz: seed ${seed} (replay with FUZZ_SEED=${seed})`);
  const report = await runFuzz({
    baseUrl,
    openapi: prepared!.openapi,
    keys: { write: prepared!.write.secret, read: prepared!.read.secret, writeId: prepared!.write.id },
    seed,
    requests,
    concurrency: 16,
    pid: server.child.pid,
    timeoutMs: 15_000,
  });
  assert.is(report.sent, requests);
  if (report.failed > 0) console.log(describeReport(report));
  assert.is(report.failed, 0, `${report.failed} of ${requests} failed (seed ${seed}): the failure classes are printed above`);
  assert.equal([server.child.exitCode, server.child.signalCode], [null, null], `the service exited:\n${server.log().slice(-4000)}`);
  const res = await fetch(`${baseUrl}/authors`, { headers: { authorization: `Bearer ${prepared!.write.secret}` } });
  assert.is(res.status, 200);
});

test.run();
