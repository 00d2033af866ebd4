/**
 * Starting a generated service (templates/runtime/server.ts): the data path's limits read from the
 * environment (EXPAND_LIMIT, DATABASE_BUSY_TIMEOUT_MS), their defaults, and their effect on a started service.
 */
import { spawnSync } from "node:child_process";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { fileURLToPath, pathToFileURL } from "node:url";
import { test } from "uvu";
import * as assert from "uvu/assert";
import { BUILTIN_ERRORS } from "../../../src/model/builtin-errors.js";
import { KeyRing } from "../../../templates/runtime/keys.js";
import { listenError, settingsFrom, startService } from "../../../templates/runtime/server.js";
import type { ResourceSpec, ServiceSpec } from "../../../templates/runtime/spec.js";

const BASE = "http://127.0.0.1:3000/v1";

function resource(name: string, collection: string, fields: ResourceSpec["fields"], properties: Record<string, unknown>): ResourceSpec {
  return {
    name,
    collection,
    fields,
    required: [],
    unique: [],
    access: {},
    mediaType: `application/vnd.acme.v1.${name}+json`,
    collectionMediaType: `application/vnd.acme.v1.${collection}+json`,
    bodySchema: { type: "object", additionalProperties: false, properties },
  };
}

const LINK = { type: "object", required: ["meta"], properties: { meta: { type: "object", required: ["href"], properties: { href: { type: "string" } } } } };

const spec: ServiceSpec = {
  name: "limits-service",
  title: "Limits",
  vendor: "acme",
  version: 1,
  baseUrl: BASE,
  errorDocsUrl: "http://127.0.0.1:3000/docs/errors",
  auth: { schemes: ["bearer"], realm: "Limits" },
  paging: { defaultLimit: 25, maxLimit: 100 },
  bodyLimit: 1 << 20,
  resources: [
    resource("author", "authors", [{ name: "name", kind: "string" }, { name: "books", kind: "links", link: { kind: "collection", target: "books", inverse: "author" } }], { name: { type: "string" } }),
    resource("book", "books", [{ name: "title", kind: "string" }, { name: "author", kind: "link", link: { kind: "instance", target: "authors" } }], { title: { type: "string" }, author: LINK }),
  ],
  actions: [],
  errors: BUILTIN_ERRORS.map((e) => ({ ...e, info: `http://127.0.0.1:3000/docs/errors/${e.code}` })),
  mediaTypes: [],
};

test("EXPAND_LIMIT and DATABASE_BUSY_TIMEOUT_MS: defaults 1000 and 5000, whole numbers, a bad value names its variable", () => {
  const defaults = settingsFrom({}, spec);
  assert.equal([defaults.expandLimit, defaults.databaseBusyTimeoutMs], [1000, 5000]);
  const set = settingsFrom({ EXPAND_LIMIT: "50", DATABASE_BUSY_TIMEOUT_MS: "0" }, spec);
  assert.equal([set.expandLimit, set.databaseBusyTimeoutMs], [50, 0]);
  assert.throws(() => settingsFrom({ EXPAND_LIMIT: "0" }, spec), /EXPAND_LIMIT must be a whole number \(1 or more\), not "0"/);
  assert.throws(() => settingsFrom({ EXPAND_LIMIT: "1e3" }, spec), /EXPAND_LIMIT/);
  assert.throws(() => settingsFrom({ DATABASE_BUSY_TIMEOUT_MS: "-5" }, spec), /DATABASE_BUSY_TIMEOUT_MS must be a whole number \(0 or more\)/);
});

test("a started service applies EXPAND_LIMIT to its responses", async () => {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), "rsc-server-"));
  const keysFile = path.join(dir, "keys.json");
  const { secret } = KeyRing.open(keysFile).create([]);
  const service = await startService(spec, {}, { PORT: "0", BASE_URL: BASE, KEYS_FILE: keysFile, DATABASE_FILE: ":memory:", LOG_LEVEL: "silent", EXPAND_LIMIT: "3" });
  try {
    const headers = { authorization: `Bearer ${secret}`, "content-type": "application/json" };
    const post = async (url: string, body: unknown) => JSON.parse((await service.app.inject({ method: "POST", url, headers, payload: JSON.stringify(body) })).body);
    const author = await post("/v1/authors", { name: "Ann" });
    for (let i = 0; i < 3; i++) await post("/v1/books", { title: `B${i}`, author: { meta: { href: author.meta.href } } });
    const three = await service.app.inject({ url: `/v1/authors/${author.id}?expand=books`, headers });
    assert.is(JSON.parse(three.body).books.items.length, 3);
    const four = await service.app.inject({ url: `/v1/authors/${author.id}?expand=books(author)`, headers });
    assert.is(four.statusCode, 400);
    assert.equal([JSON.parse(four.body).code, JSON.parse(four.body).property], [40010, "expand"]);
  } finally {
    await service.close();
    fs.rmSync(dir, { recursive: true, force: true });
  }
});

test("a service that cannot listen says why in the operator's words: the port in use, a HOST not of this machine", async () => {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), "rsc-server-"));
  const env = { BASE_URL: BASE, KEYS_FILE: path.join(dir, "keys.json"), DATABASE_FILE: ":memory:", LOG_LEVEL: "silent" };
  const first = await startService(spec, {}, { ...env, PORT: "0" });
  try {
    const port = new URL(first.url).port;
    const refused = await startService(spec, {}, { ...env, PORT: port }).then(
      () => undefined,
      (error: unknown) => error as Error & { code?: string; cause?: unknown },
    );
    assert.ok(refused, "a second service on the same port does not start");
    assert.is(refused.message, `cannot listen on 127.0.0.1:${port}: another process listens there; stop it, or set PORT to a free port`);
    assert.is(refused.code, "EADDRINUSE");
    assert.is((refused.cause as { code?: string }).code, "EADDRINUSE", "the socket's error is kept as the cause");
    // 192.0.2.1 (TEST-NET-1, RFC 5737) is no address of this machine.
    const elsewhere = await startService(spec, {}, { ...env, PORT: "0", HOST: "192.0.2.1" }).then(
      () => undefined,
      (error: unknown) => error as Error,
    );
    assert.match(String(elsewhere?.message), /^cannot listen on 192\.0\.2\.1:0: HOST 192\.0\.2\.1 is not an address of this machine; set HOST/);
  } finally {
    await first.close();
    fs.rmSync(dir, { recursive: true, force: true });
  }
  // Errors that are not the socket's (a route Fastify refuses when it gets ready) stay as they are.
  const other = new Error("Method 'GET' already declared for route '/v1/x'");
  assert.is(listenError(other, { host: "127.0.0.1", port: 3000 }), other);
  assert.match(String((listenError(Object.assign(new Error("listen EACCES"), { code: "EACCES" }), { host: "0.0.0.0", port: 80 }) as Error).message), /ports below 1024 need privileges/);
});

/** The lines a service started in a process of its own with `env` prints on stdout before it is closed. */
function startupOutput(env: Record<string, string>): string[] {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), "rsc-server-"));
  try {
    const server = pathToFileURL(fileURLToPath(new URL("../../../templates/runtime/server.ts", import.meta.url))).href;
    const script = `const { startService } = await import(${JSON.stringify(server)});
const service = await startService(JSON.parse(process.argv[1]), {}, { ...process.env });
await service.close();`;
    const run = spawnSync(process.execPath, ["--import", "tsx", "--input-type=module", "-e", script, JSON.stringify(spec)], {
      cwd: fileURLToPath(new URL("../../..", import.meta.url)),
      encoding: "utf8",
      timeout: 30_000,
      env: { PATH: process.env.PATH ?? "", PORT: "0", BASE_URL: BASE, KEYS_FILE: path.join(dir, "keys.json"), DATABASE_FILE: ":memory:", ...env },
    });
    assert.is(run.status, 0, run.stderr);
    return run.stdout.split("\n").filter((line) => line !== "");
  } finally {
    fs.rmSync(dir, { recursive: true, force: true });
  }
}

test("with LOG_LEVEL=warn a started service still prints where it listens: one JSON record at info level", () => {
  const lines = startupOutput({ LOG_LEVEL: "warn" });
  assert.is(lines.length, 1, lines.join("\n"));
  const record = JSON.parse(lines[0]!) as { level: number; msg: string; url: string; baseUrl: string };
  assert.is(record.level, 30);
  assert.match(record.url, /^http:\/\/127\.0\.0\.1:\d+$/);
  assert.is(record.baseUrl, BASE);
  assert.is(record.msg, `listening on ${record.url} (base URL ${BASE})`);
  assert.equal(startupOutput({ LOG_LEVEL: "silent" }), []);
});

test.run();
