/**
 * The generated client against a generated server over real HTTP, and its types checked with tsc:
 * a file that must compile and a file whose every statement must fail to compile.
 */
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import http from "node:http";
import { pathToFileURL } from "node:url";
import { test } from "uvu";
import * as assert from "uvu/assert";
import { repoRoot, runCli } from "../helpers/cli.js";
import { freePort, linkModules, run } from "../helpers/package.js";

const tmp = fs.mkdtempSync(path.join(os.tmpdir(), "resourcery-client-"));
const out = path.join(tmp, "library-service");
const tsc = path.join(repoRoot, "node_modules/typescript/bin/tsc");
type Any = any;
let api: Any;
let client: Any;
let service: { close(): Promise<void> } | undefined;
let base = "";
let secret = "";

/** One request with the path exactly as given (fetch would resolve its dot segments), with the test key. */
function rawRequest(port: number, method: string, rawPath: string, body: string): Promise<{ status: number; body: string }> {
  return new Promise((resolve, reject) => {
    const req = http.request({ host: "127.0.0.1", port, method, path: rawPath, headers: { authorization: `Bearer ${secret}`, "content-type": "application/merge-patch+json" } }, (res) => {
      let text = "";
      res.setEncoding("utf8").on("data", (d: string) => (text += d)).on("end", () => resolve({ status: res.statusCode ?? 0, body: text }));
    });
    req.on("error", reject);
    req.end(body);
  });
}

test("the package builds with its client", () => {
  assert.is(runCli(["generate", "examples/library", "--out", out]).code, 0);
  linkModules(out);
  const build = run(process.execPath, [tsc, "-p", "tsconfig.json"], out);
  assert.is(build.code, 0, build.output);
  const pkg = JSON.parse(fs.readFileSync(path.join(out, "package.json"), "utf8"));
  assert.is(pkg.exports["./client"].default, "./dist/client/index.js");
});

test("the client's types: selections narrow, wrong names fail to compile", () => {
  const dir = path.join(out, "typetest");
  fs.cpSync(path.join(repoRoot, "test/fixtures/client-types"), dir, { recursive: true });
  const both = run(process.execPath, [tsc, "-p", "tsconfig.json"], dir);
  assert.is(both.code, 0, both.output);
  // Without the @ts-expect-error lines, every one of them must be an error of its own.
  const fail = fs.readFileSync(path.join(dir, "fail.ts"), "utf8");
  const expected = (fail.match(/\/\/ @ts-expect-error/g) ?? []).length;
  fs.writeFileSync(path.join(dir, "fail.ts"), fail.replace(/\/\/ @ts-expect-error.*\n/g, ""));
  const errors = run(process.execPath, [tsc, "-p", "tsconfig.json", "--pretty", "false"], dir);
  const lines = new Set([...errors.output.matchAll(/fail\.ts\((\d+),/g)].map((m) => m[1]));
  assert.is(lines.size, expected, errors.output);
});

test("create, get with expand and fields, list, sub-collection, update, replace, delete", async () => {
  const pkg = (p: string) => import(pathToFileURL(path.join(out, p)).href);
  const { start, KeyRing } = await pkg("dist/src/index.js");
  client = await pkg("dist/client/index.js");
  const keysFile = path.join(tmp, "keys.json");
  secret = KeyRing.open(keysFile).create(["librarian"]).secret;
  const port = await freePort();
  base = `http://127.0.0.1:${port}/v2`;
  service = await start({ PORT: String(port), BASE_URL: base, KEYS_FILE: keysFile, DATABASE_FILE: ":memory:", LOG_LEVEL: "silent" });
  api = client.createClient({ baseUrl: base, auth: { bearer: secret } });

  const author = await api.authors.create({ name: "Ursula K. Le Guin", born: 1929 });
  assert.ok(author.meta.href.startsWith(`${base}/authors/`));
  const book = await api.books.create({ title: "The Dispossessed", author: { meta: { href: author.meta.href } } });
  const expanded = await api.books.get(book.id, { expand: ["author"] });
  assert.is(expanded.author.name, "Ursula K. Le Guin");
  const picked = await api.books.get(book.id, { fields: ["title", "author(name)"] });
  assert.equal(picked, { meta: book.meta, title: "The Dispossessed", author: { meta: author.meta, name: "Ursula K. Le Guin" } });
  const page = await api.books.list({ offset: 0, limit: 10 });
  assert.equal([page.offset, page.limit, page.size, page.items[0].id], [0, 10, 1, book.id]);
  const sub = await api.authors.books(author.id);
  assert.is(sub.items[0].title, "The Dispossessed");
  const updated = await api.books.update(book.id, { pages: 387 });
  assert.is(updated.pages, 387);
  const cleared = await api.books.update(book.id, { pages: null });
  assert.is(cleared.pages, undefined);
  const replaced = await api.books.replace(book.id, { title: "The Dispossessed: An Ambiguous Utopia", author: { meta: { href: author.meta.href } } });
  assert.is(replaced.title, "The Dispossessed: An Ambiguous Utopia");
  await api.books.delete(book.id);
  const gone = await api.books.get(book.id).catch((e: Any) => e);
  assert.ok(gone instanceof client.ApiError);
  assert.equal([gone.status, gone.code], [404, 40400]);
});

test("a 409 and a 501 throw ApiError with the error body", async () => {
  const conflict = await api.authors.create({ name: "Ursula K. Le Guin" }).catch((e: Any) => e);
  assert.ok(client.isApiError(conflict));
  assert.equal([conflict.status, conflict.code, conflict.property], [409, 40900, "name"]);
  assert.is(conflict.info, "http://localhost:3000/docs/errors/40900");
  assert.ok(conflict.message && conflict.dev);
  const action = await api.lookup({ isbn: "9780060512750" }).catch((e: Any) => e);
  assert.equal([action.status, action.code], [501, 50100]);
});

test("the client pins the vendor Accept of its version, and Basic is refused over plain HTTP", async () => {
  const seen: string[] = [];
  const spy = client.createClient({ baseUrl: base, auth: { bearer: secret }, fetch: (url: string, init: Any) => (seen.push(init.headers.accept), fetch(url, init)) });
  await spy.authors.list();
  assert.equal(seen, ["application/vnd.library.v2.authors+json"]);
  const basic = client.createClient({ baseUrl: base, auth: { basic: { id: "x", secret } } });
  const refused = await basic.authors.list().catch((e: Any) => e);
  assert.equal([refused.status, refused.code], [401, 40101]);
});

test("retries with backoff for idempotent requests only; AbortSignal and timeout", async () => {
  let calls = 0;
  const flaky = (url: string, init: Any) => (++calls <= 2 ? Promise.reject(new TypeError("connection reset")) : fetch(url, init));
  const retrying = client.createClient({ baseUrl: base, auth: { bearer: secret }, fetch: flaky, retry: { retries: 3, minDelayMs: 1 } });
  await retrying.authors.list();
  assert.is(calls, 3, "GET retried twice");
  calls = 0;
  const post = await retrying.authors.create({ name: "Never" }).catch((e: Any) => e);
  assert.is(calls, 1, "POST is never retried");
  assert.instance(post, TypeError);
  const aborted = new AbortController();
  aborted.abort(new Error("stop"));
  const stopped = await api.authors.list({}, { signal: aborted.signal }).catch((e: Any) => e);
  assert.is(stopped.message, "stop");
  const slow = client.createClient({ baseUrl: base, auth: { bearer: secret }, fetch: (_u: string, init: Any) => new Promise((_r, reject) => init.signal.addEventListener("abort", () => reject(init.signal.reason))) });
  const timedOut = await slow.authors.list({}, { timeoutMs: 20 }).catch((e: Any) => e);
  assert.match(timedOut.message, "timed out after 20 ms");
});

test("ids that would change the path (\"\", \".\", \"..\") are refused before anything is sent; the server answers 404 for them", async () => {
  let sent = 0;
  const counting = client.createClient({ baseUrl: base, auth: { bearer: secret }, fetch: (url: string, init: Any) => (sent++, fetch(url, init)) });
  for (const id of ["..", ".", ""]) {
    for (const attempt of [() => counting.books.update(id, { pages: 1 }), () => counting.books.get(id), () => counting.books.replace(id, {}), () => counting.books.delete(id), () => counting.authors.books(id)]) {
      const refused = await attempt().catch((e: Any) => e);
      assert.instance(refused, TypeError, `${JSON.stringify(id)}: ${refused}`);
      assert.match(refused.message, "would change the request's path");
    }
  }
  assert.is(sent, 0, "nothing was sent");
  // Ids with dots inside them are ordinary ids.
  assert.equal((await counting.books.get("a..b").catch((e: Any) => e)).status, 404);
  // The same paths sent raw (no URL normalisation) name no instance: 404 with the error body, never the collection.
  const { port, pathname } = new URL(base);
  for (const raw of [`${pathname}/books/..`, `${pathname}/books/%2E%2E`, `${pathname}/books/.`, `${pathname}/books/%2e`]) {
    const res = await rawRequest(Number(port), "PATCH", raw, JSON.stringify({ pages: 1 }));
    assert.is(res.status, 404, `${raw}: ${res.body}`);
    assert.is(JSON.parse(res.body).code, 40400, raw);
  }
});

test("an answer larger than maxResponseBytes is cut off with ResponseTooLargeError, declared or streamed, and never retried", async () => {
  for (let i = 0; i < 3; i++) await api.authors.create({ name: `Someone with a rather long name, number ${i}`.padEnd(150, ".") });
  const small = client.createClient({ baseUrl: base, auth: { bearer: secret }, maxResponseBytes: 200 });
  const declared = await small.authors.list().catch((e: Any) => e);
  assert.instance(declared, client.ResponseTooLargeError);
  assert.is(declared.limit, 200);
  assert.match(declared.message, "maxResponseBytes");
  assert.ok((await small.authors.list({}, { maxResponseBytes: 1 << 20 })).items.length > 0, "a call may raise it");
  // An endless answer without Content-Length: reading stops at the limit.
  let calls = 0;
  let pulled = 0;
  const endless = () => {
    calls++;
    const body = new ReadableStream({ pull: (c) => void (pulled += 65536, c.enqueue(new Uint8Array(65536).fill(32))) });
    return Promise.resolve(new Response(body, { status: 200, headers: { "content-type": "application/json" } }));
  };
  const flooded = client.createClient({ baseUrl: base, fetch: endless, maxResponseBytes: 1 << 20, retry: { retries: 3, minDelayMs: 1 } });
  const cut = await flooded.authors.list().catch((e: Any) => e);
  assert.instance(cut, client.ResponseTooLargeError);
  assert.is(calls, 1, "not retried");
  assert.ok(pulled <= (1 << 20) + 4 * 65536, `read ${pulled} bytes`);
  // The default is 32 MiB: an ordinary answer is read whole.
  assert.ok((await api.authors.list()).items.length > 0);
});

test("generate --client-only writes a standalone package with no runtime dependency", () => {
  const alone = path.join(tmp, "client-only");
  const r = runCli(["generate", "examples/library", "--out", alone, "--client-only"]);
  assert.is(r.code, 0, r.stderr);
  const pkg = JSON.parse(fs.readFileSync(path.join(alone, "package.json"), "utf8"));
  assert.is(pkg.name, "library-service-client");
  assert.is(pkg.dependencies, undefined);
  assert.not.ok(fs.existsSync(path.join(alone, "src")));
  linkModules(alone);
  const build = run(process.execPath, [tsc, "-p", "tsconfig.json"], alone);
  assert.is(build.code, 0, build.output);
  const imports = fs.readdirSync(path.join(alone, "client")).flatMap((f) => [...fs.readFileSync(path.join(alone, "client", f), "utf8").matchAll(/from "([^"]+)"/g)].map((m) => m[1]!));
  assert.ok(imports.every((i) => i.startsWith("./")), `only relative imports: ${imports.join(", ")}`);
});

test.after(async () => {
  await service?.close();
  fs.rmSync(tmp, { recursive: true, force: true });
});
test.run();
