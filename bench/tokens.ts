/**
 * What an OAuth 2.0 access token costs a request (`npm run tokens`): examples/library generated with `oauth2`
 * among its schemes, built and started; a key made, a token issued for it by the token endpoint; then GET of
 * one book in paired rounds, alternately with the key's secret and with the token as the Bearer credential.
 * The table gives each one's median req/s and the median of the pairs' ratios (token ÷ key; the issue's line:
 * ≥ 0.9). A token seen before is remembered until it expires, so its signature is checked once, not per request.
 *   --rounds R      paired rounds (default 9)
 *   --duration S    seconds per measurement (default 3)
 */
import { spawn, spawnSync } from "node:child_process";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { fileURLToPath, pathToFileURL } from "node:url";
import { commandLine } from "./args.js";
import { loadGenerator, waitFor } from "./server.js";
import { median } from "./stats.js";

const USAGE = `usage: npm run tokens [-- --rounds R --duration S]
GET of one instance with an API key's secret vs an OAuth 2.0 access token, paired rounds.`;
const args = commandLine(USAGE);
const rounds = Number(args.last("--rounds") ?? 9);
const duration = Number(args.last("--duration") ?? 3);
const here = path.dirname(fileURLToPath(import.meta.url));
const root = path.resolve(here, "..");

const work = fs.mkdtempSync(path.join(os.tmpdir(), "resourcery-tokens-"));
const defs = path.join(work, "defs");
const out = path.join(work, "service");
fs.cpSync(path.join(root, "examples/library"), defs, { recursive: true });
const servicePath = path.join(defs, "service.json");
const service = JSON.parse(fs.readFileSync(servicePath, "utf8"));
service.auth = { ...service.auth, schemes: [...new Set([...(service.auth?.schemes ?? ["apiKey"]), "oauth2"])] };
fs.writeFileSync(servicePath, JSON.stringify(service, null, 2));
const run = (cmd: string, argv: string[], cwd: string) => {
  const r = spawnSync(cmd, argv, { cwd, encoding: "utf8" });
  if (r.status !== 0) throw new Error(`${cmd} ${argv.join(" ")}: ${r.stderr}${r.stdout}`);
};
run(process.execPath, [path.join(root, "bin/run.js"), "generate", defs, "--out", out], root);
fs.symlinkSync(path.join(root, "node_modules"), path.join(out, "node_modules"), "dir");
run(process.execPath, [path.join(root, "node_modules/typescript/bin/tsc"), "-p", "tsconfig.json"], out);
const keysFile = path.join(work, "keys.json");
const { KeyRing } = (await import(pathToFileURL(path.join(out, "dist/src/index.js")).href)) as { KeyRing: { open(f: string): { create(r: string[]): { id: string; secret: string } } } };
const key = KeyRing.open(keysFile).create(["librarian"]);
const port = 3960 + Math.floor(Math.random() * 30);
const base = `http://127.0.0.1:${port}/v2`;
const keyHeaders = { authorization: `Bearer ${key.secret}`, accept: "application/json", "content-type": "application/json" };
const child = spawn(process.execPath, ["dist/src/main.js"], { cwd: out, env: { ...process.env, PORT: String(port), BASE_URL: base, KEYS_FILE: keysFile, DATABASE_FILE: path.join(work, "bench.db"), LOG_LEVEL: "warn" }, stdio: ["ignore", "ignore", "inherit"] });
try {
  await waitFor(`${base}/authors`, keyHeaders);
  const author = (await (await fetch(`${base}/authors`, { method: "POST", headers: keyHeaders, body: JSON.stringify({ name: "Ursula K. Le Guin", born: 1929 }) })).json()) as { meta: { href: string } };
  const book = (await (await fetch(`${base}/books`, { method: "POST", headers: keyHeaders, body: JSON.stringify({ title: "The Dispossessed", pages: 387, author: { meta: { href: author.meta.href } } }) })).json()) as { id: string };
  const issued = (await (await fetch(`${base}/oauth/token`, { method: "POST", headers: { "content-type": "application/x-www-form-urlencoded" }, body: new URLSearchParams({ grant_type: "client_credentials", client_id: key.id, client_secret: key.secret }) })).json()) as { access_token: string };
  const autocannon = await loadGenerator();
  const url = `${base}/books/${book.id}`;
  const credentials = { key: `Bearer ${key.secret}`, token: `Bearer ${issued.access_token}` } as const;
  const measure = async (which: keyof typeof credentials, seconds: number) => {
    const r = await autocannon({ url, method: "GET", headers: { authorization: credentials[which], accept: "application/json" }, connections: 10, duration: seconds });
    if (r.non2xx + r.errors > 0) throw new Error(`${which}: ${r.non2xx + r.errors} failed requests`);
    return r.requests.average;
  };
  await measure("key", 1);
  await measure("token", 1);
  const rps = { key: [] as number[], token: [] as number[] };
  const ratios: number[] = [];
  for (let round = 0; round < rounds; round++) {
    const order: (keyof typeof credentials)[] = round % 2 === 0 ? ["key", "token"] : ["token", "key"];
    const got: Record<string, number> = {};
    for (const which of order) got[which] = await measure(which, duration);
    rps.key.push(got.key!);
    rps.token.push(got.token!);
    ratios.push(got.token! / got.key!);
    console.log(`round ${round + 1}: key ${Math.round(got.key!)} req/s, token ${Math.round(got.token!)} req/s, ratio ${(got.token! / got.key!).toFixed(3)}`);
  }
  console.log("\n| GET instance with | req/s (median) |\n|---|---|");
  console.log(`| an API key's secret | ${Math.round(median(rps.key))} |\n| an access token (JWT) | ${Math.round(median(rps.token))} |`);
  console.log(`\ntoken ÷ key, median of ${rounds} paired rounds: ${median(ratios).toFixed(2)}`);
} finally {
  child.kill("SIGTERM");
  fs.rmSync(work, { recursive: true, force: true });
}
