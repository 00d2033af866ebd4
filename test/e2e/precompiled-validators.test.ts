/**
 * Validators precompiled at generate time, over real HTTP against a generated, built and started package
 * whose definitions hold hostile text in the schema values ajv writes into code (test/fixtures/hostile/
 * validators-project.ts): the package's own tests pass with them; the started package answers every body
 * and query exactly as the same package answers when it compiles its validators at start-up (its
 * validators.js made another spec's, which the service notices, says, and compiles instead); and no
 * payload ever runs.
 */
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { test } from "uvu";
import * as assert from "uvu/assert";
import { runCli } from "../helpers/cli.js";
import { freePort, linkModules, run, start, type Started } from "../helpers/package.js";
import { payload } from "../fixtures/hostile/payloads.js";
import { AT, writeHostileValidatorsProject } from "../fixtures/hostile/validators-project.js";

const tmp = fs.mkdtempSync(path.join(os.tmpdir(), "resourcery-precompiled-"));
const sentinels = path.join(tmp, "sentinels");
const defs = path.join(tmp, "defs");
const out = path.join(tmp, "service");
const copy = path.join(tmp, "service-compiling");
const keysFile = path.join(tmp, "keys.json");
fs.mkdirSync(sentinels);
writeHostileValidatorsProject(defs, sentinels);
const text = (n: number) => payload(sentinels, n);

/** A started package and where it answers. */
interface Running {
  readonly server: Started;
  readonly base: string;
}
let precompiled: Running | undefined;
let compiling: Running | undefined;
let secret = "";

function noSentinel(when: string): void {
  assert.equal(fs.readdirSync(sentinels), [], `a payload ran ${when}`);
}

async function startPackage(dir: string): Promise<Running> {
  const port = await freePort();
  const base = `http://127.0.0.1:${port}/v1`;
  const server = await start(dir, { PORT: String(port), BASE_URL: base, KEYS_FILE: keysFile, DATABASE_FILE: ":memory:", LOG_LEVEL: "warn" }, `${base}/items`);
  return { server, base };
}

/** An answer with what differs from instance to instance (ids, times, hrefs of the server) left out. */
async function call(running: Running, method: string, url: string, body?: unknown): Promise<{ status: number; body: unknown }> {
  const headers: Record<string, string> = { authorization: `Bearer ${secret}` };
  if (body !== undefined) headers["content-type"] = method === "PATCH" ? "application/merge-patch+json" : "application/json";
  const res = await fetch(`${running.base}${url}`, { method, headers, ...(body === undefined ? {} : { body: JSON.stringify(body) }) });
  const answer = (await res.text()).replaceAll(running.base, "<base>");
  const parsed = answer ? (JSON.parse(answer) as Record<string, unknown>) : undefined;
  if (parsed && typeof parsed === "object") for (const k of ["id", "createdAt", "modifiedAt", "meta"]) delete parsed[k];
  return { status: res.status, body: parsed };
}

/** The id of a new item. */
async function newItem(running: Running): Promise<string> {
  const res = await fetch(`${running.base}/items`, { method: "POST", headers: { authorization: `Bearer ${secret}`, "content-type": "application/json" }, body: JSON.stringify({ name: "plain" }) });
  assert.is(res.status, 201);
  return ((await res.json()) as { id: string }).id;
}

test("generate writes the validators module; the package builds and passes its own tests with it", () => {
  const generate = runCli(["generate", defs, "--out", out]);
  assert.is(generate.code, 0, generate.stdout + generate.stderr);
  const module = fs.readFileSync(path.join(out, "src/generated/validators.js"), "utf8");
  assert.match(module, /^export function createValidators\(linearRegExp\)/m);
  assert.ok(module.includes(`«${AT.namePattern}»`), "the hostile pattern is compiled in");
  linkModules(out);
  const tests = run("npm", ["test", "--silent"], out, { NO_COLOR: "1", FORCE_COLOR: "0" });
  assert.is(tests.code, 0, tests.output);
  const contract = /Total:\s+(\d+)\s+Passed:\s+(\d+)/.exec(tests.output);
  assert.ok(contract && Number(contract[1]) >= 10 && contract[1] === contract[2], tests.output);
  assert.not.ok(fs.existsSync(path.join(out, "dist/src/generated/validators.js")), "tsc does not read the module");
  noSentinel("while the package was generated, built and tested");
});

test("the package starts with its precompiled validators; a copy whose module is another spec's compiles at start-up", async () => {
  const key = run(process.execPath, ["dist/src/generated/runtime/keys-cli.js", "create", "--roles", "admin"], out, { KEYS_FILE: keysFile });
  assert.is(key.code, 0, key.output);
  secret = (JSON.parse(key.output.trim().split("\n").pop()!) as { secret: string }).secret;
  fs.cpSync(out, copy, { recursive: true, filter: (src) => path.basename(src) !== "node_modules" });
  linkModules(copy);
  const file = path.join(copy, "src/generated/validators.js");
  const module = fs.readFileSync(file, "utf8");
  fs.writeFileSync(file, module.replace(/export const fingerprint = "[0-9a-f]{64}";/, 'export const fingerprint = "of another spec";'));
  precompiled = await startPackage(out);
  compiling = await startPackage(copy);
  assert.match(compiling.server.log(), /compiled them at start-up instead/);
  assert.not.match(precompiled.server.log(), /precompiled validators/);
});

test("both answer every body and query alike over HTTP: valid ones, defaults, each kind of error", async () => {
  const odd = `z ${text(AT.propertyName)}`;
  const requests: readonly (readonly [method: string, url: string, body?: unknown])[] = [
    ["POST", "/items", { name: "plain" }],
    ["POST", "/items", { name: text(AT.namePattern), kind: text(AT.kindEnum), fixed: text(AT.fixedConst), [odd]: "x", when: "2024-05-01T12:00:00Z", size: 3, tags: ["a"], shelf: null }],
    ["POST", "/items", ["plain"]],
    ["POST", "/items", { kind: "plain" }],
    ["POST", "/items", { name: "plain", colour: 1, size: 2, shade: 3 }],
    ["POST", "/items", { name: "nope" }],
    ["POST", "/items", { name: 12 }],
    ["POST", "/items", { name: "plain", kind: "other" }],
    ["POST", "/items", { name: "plain", fixed: "other" }],
    ["POST", "/items", { name: "plain", when: "yesterday" }],
    ["POST", "/items", { name: "plain", size: 11 }],
    ["POST", "/items", { name: "plain", tags: [""] }],
    ["POST", "/items", { name: "plain", shelf: "x" }],
    ["POST", "/items", { name: "plain", id: "x" }],
    ["POST", "/shelves", { label: "x".repeat(21) }],
    ["GET", `/find?q=plain`],
    ["GET", `/find?q=${encodeURIComponent(text(AT.queryPattern))}&mode=${encodeURIComponent(text(AT.queryEnum))}`],
    ["GET", `/find`],
    ["GET", `/find?q=nope`],
    ["GET", `/find?q=plain&${encodeURIComponent(`n ${text(AT.queryName)}`)}=three`],
    ["GET", `/find?q=plain&mode=other`],
    ["GET", `/find?q=plain&size=3`],
    ["GET", `/find?q=plain&size=11`],
  ];
  const statuses = new Set<number>();
  for (const [method, url, body] of requests) {
    const a = await call(precompiled!, method, url, body);
    const b = await call(compiling!, method, url, body);
    assert.equal(a, b, `${method} ${url.slice(0, 60)} ${JSON.stringify(body)?.slice(0, 80)}`);
    statuses.add(a.status);
  }
  // Valid bodies are created, invalid ones refused, valid queries reach the (unwritten) handler.
  assert.equal([...statuses].sort(), [201, 400, 501]);
  const created = await call(precompiled!, "POST", "/items", { name: "plain" });
  assert.is((created.body as Record<string, unknown>).kind, text(AT.kindEnum), "the hostile default is stored as a value");
  // A merge patch that removes a required property, and one that sets a nullable link to null.
  for (const change of [{ name: null }, { shelf: null }, { kind: "other" }]) {
    const [a, b] = await Promise.all([precompiled!, compiling!].map(async (running) => call(running, "PATCH", `/items/${await newItem(running)}`, change)));
    assert.equal(a, b, JSON.stringify(change));
    assert.is(a!.status, change.shelf === null ? 200 : 400, JSON.stringify(a));
  }
  noSentinel("while the services answered");
});

test.after(async () => {
  await precompiled?.server.stop();
  await compiling?.server.stop();
  noSentinel("by the end");
  fs.rmSync(tmp, { recursive: true, force: true });
});
test.run();
