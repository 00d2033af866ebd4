/**
 * Starting a generated service (templates/runtime/server.ts): the data path's limits read from the
 * environment (EXPAND_LIMIT, DATABASE_BUSY_TIMEOUT_MS), their defaults, and their effect on a started service.
 */
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { test } from "uvu";
import * as assert from "uvu/assert";
import { BUILTIN_ERRORS } from "../../../src/model/builtin-errors.js";
import { KeyRing } from "../../../templates/runtime/keys.js";
import { settingsFrom, startService } from "../../../templates/runtime/server.js";
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

test.run();
