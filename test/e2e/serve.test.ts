/**
 * A generated package as its user runs it: npm install, keys, npm start over HTTP and HTTPS, and the
 * requests of CONTRACT.md section 3 against the real process and its SQLite file.
 */
import { spawnSync } from "node:child_process";
import fs from "node:fs";
import https from "node:https";
import os from "node:os";
import path from "node:path";
import { pathToFileURL } from "node:url";
import { test } from "uvu";
import * as assert from "uvu/assert";
import { repoRoot, runCli } from "../helpers/cli.js";
import { freePort, run, start, type Started } from "../helpers/package.js";

const tmp = fs.mkdtempSync(path.join(os.tmpdir(), "resourcery-serve-"));
const out = path.join(tmp, "library-service");
let port = 0;
let base = "";
let server: Started | undefined;
let admin = { id: "", secret: "" };
let reader = { id: "", secret: "" };

type Reply = { status: number; headers: Headers; body: any };
async function call(method: string, url: string, options: { body?: unknown; raw?: string; headers?: Record<string, string>; secret?: string | null } = {}): Promise<Reply> {
  const secret = options.secret === undefined ? admin.secret : options.secret;
  const headers: Record<string, string> = { ...(secret ? { authorization: `Bearer ${secret}` } : {}), ...options.headers };
  let body = options.raw;
  if (options.body !== undefined) {
    body = JSON.stringify(options.body);
    headers["content-type"] ??= "application/json";
  }
  const res = await fetch(url, { method, headers, ...(body === undefined ? {} : { body }) });
  const text = await res.text();
  return { status: res.status, headers: res.headers, body: text ? JSON.parse(text) : undefined };
}

/**
 * better-sqlite3's binary as a local prebuild (prebuild-install's `--local-prebuilds`, set through npm's
 * environment): the one resourcery's own install compiled, packed under the name prebuild-install looks for.
 * A user's install downloads that prebuilt binary from the package's releases; this machine reaches only the
 * npm registry, where the install would compile SQLite from source for a minute or two. When the
 * package resolves another version than the one resourcery installed, no file has its name and it compiles.
 */
function localPrebuilds(): NodeJS.ProcessEnv {
  const pkg = path.join(repoRoot, "node_modules/better-sqlite3");
  const binary = path.join(pkg, "build/Release/better_sqlite3.node");
  if (!fs.existsSync(binary)) return {};
  const { version } = JSON.parse(fs.readFileSync(path.join(pkg, "package.json"), "utf8")) as { version: string };
  const dir = path.join(tmp, "prebuilds");
  fs.mkdirSync(dir, { recursive: true });
  const name = `better-sqlite3-v${version}-node-v${process.versions.modules}-${process.platform}-${process.arch}.tar.gz`;
  const tar = spawnSync("tar", ["-czf", path.join(dir, name), "-C", pkg, "build/Release/better_sqlite3.node"], { encoding: "utf8" });
  assert.is(tar.status, 0, tar.stderr);
  return { npm_config_better_sqlite3_local_prebuilds: dir };
}

test("generate, npm install (builds), and the package's own npm test", () => {
  assert.is(runCli(["generate", "examples/library", "--out", out]).code, 0);
  const install = run("npm", ["install", "--no-audit", "--no-fund", "--prefer-offline"], out, localPrebuilds(), 600_000);
  assert.is(install.code, 0, install.output);
  assert.ok(fs.existsSync(path.join(out, "dist/src/main.js")), "npm install built the package");
  // The install built it (prepare): the tests run without pretest's second build (--ignore-scripts skips pre/post scripts).
  const tests = run("npm", ["test", "--ignore-scripts"], out, { NO_COLOR: "1" });
  assert.is(tests.code, 0, tests.output);
  assert.match(tests.output, /Passed:\s+[1-9]/, "the contract tests ran");
});

test("npm run keys -- create prints one line of JSON and stores only a hash", () => {
  const create = (roles: string) => {
    const r = run("npm", ["run", "--silent", "keys", "--", "create", "--roles", roles], out);
    assert.is(r.code, 0, r.output);
    const lines = r.output.trim().split("\n");
    assert.is(lines.length, 1, r.output);
    return JSON.parse(lines[0]!) as { id: string; secret: string; roles: string[] };
  };
  admin = create("librarian");
  reader = create("reader");
  assert.ok(Buffer.from(admin.secret, "base64url").length >= 16, "at least 128 bits of secret");
  const file = fs.readFileSync(path.join(out, "data/keys.json"), "utf8");
  assert.not.ok(file.includes(admin.secret) || file.includes(reader.secret), "the keys file holds no secret");
  assert.ok(file.includes(admin.id));
});

test("npm start serves the API over HTTP", async () => {
  port = await freePort();
  base = `http://127.0.0.1:${port}/v2`;
  server = await start(out, { PORT: String(port), BASE_URL: base }, `${base}/authors`);
  const unauth = await call("GET", `${base}/authors`, { secret: null });
  assert.is(unauth.status, 401);
  assert.match(unauth.headers.get("www-authenticate") ?? "", 'Bearer realm="Library API"');
});

test("the README's Try it lines run as written (SECRET set, BASE naming this service's port)", () => {
  const block = /## Try it\n```sh\n([\s\S]*?)\n```/.exec(fs.readFileSync(path.join(out, "README.md"), "utf8"));
  assert.ok(block, "a Try it block");
  const lines = block[1]!.split("\n");
  assert.is(lines[1], "BASE=http://localhost:3000/v2", "the base URL npm start serves and puts in its hrefs");
  const script = [`BASE=${base}`, ...lines.slice(2)].join("\n");
  const r = spawnSync("bash", ["-e", "-c", script], { encoding: "utf8", env: { ...process.env, SECRET: admin.secret }, timeout: 30_000 });
  assert.is(r.status, 0, r.stderr);
  const created = /"meta":\{"href":"([^"]+)","mediaType":"application\/vnd\.library\.v2\.author\+json"\}/.exec(r.stdout);
  assert.ok(created && created[1]!.startsWith(`${base}/authors/`), r.stdout);
  assert.ok(r.stdout.includes(`"books":{"meta":{"href":"${created[1]}/books","mediaType":"application/vnd.library.v2.books+json"},"offset":0`), "the instance read back by its href, books expanded");
  assert.equal(r.stdout.match(/"status":4\d\d/g), ['"status":401'], "no refusal but the last line's 401");
  assert.match(r.stdout, /HTTP\/1\.1 401 Unauthorized\r?\n/);
});

test("create, links, expand, fields, sub-collections", async () => {
  const author = await call("POST", `${base}/authors`, { body: { name: "Ursula K. Le Guin", born: 1929 } });
  assert.is(author.status, 201, JSON.stringify(author.body));
  assert.is(author.headers.get("location"), author.body.meta.href);
  assert.ok(author.body.meta.href.startsWith(`${base}/authors/`));
  assert.is(author.body.meta.mediaType, "application/vnd.library.v2.author+json");
  const book = await call("POST", `${base}/books`, { body: { title: "The Dispossessed", pages: 387, author: { meta: { href: author.body.meta.href } } } });
  assert.is(book.status, 201, JSON.stringify(book.body));
  const expanded = await call("GET", `${book.body.meta.href}?expand=author`);
  assert.is(expanded.body.author.name, "Ursula K. Le Guin");
  const picked = await call("GET", `${book.body.meta.href}?fields=title,author(name)`);
  assert.equal(picked.body, { meta: book.body.meta, title: "The Dispossessed", author: { meta: author.body.meta, name: "Ursula K. Le Guin" } });
  const books = await call("GET", `${author.body.meta.href}/books`);
  assert.equal([books.status, books.body.size, books.body.items[0].title], [200, 1, "The Dispossessed"]);
  const badLink = await call("POST", `${base}/books`, { body: { title: "X", author: { meta: { href: `${base}/authors/nope` } } } });
  assert.equal([badLink.status, badLink.body.property], [400, "author"]);
  const coerced = await call("POST", `${base}/authors`, { body: { name: "Someone", born: "1929" } });
  assert.equal([coerced.status, coerced.body.property], [400, "born"]);
});

test("20 concurrent duplicate POSTs: exactly one 201, the rest 409 naming the property", async () => {
  const replies = await Promise.all(Array.from({ length: 20 }, () => call("POST", `${base}/authors`, { body: { name: "Octavia E. Butler" } })));
  const statuses = replies.map((r) => r.status).sort();
  assert.is(statuses.filter((s) => s === 201).length, 1, statuses.join(","));
  assert.is(statuses.filter((s) => s === 409).length, 19);
  const conflict = replies.find((r) => r.status === 409)!;
  assert.equal([conflict.body.property, conflict.body.code, conflict.body.info], ["name", 40900, "http://localhost:3000/docs/errors/40900"]);
});

test("negotiation, media types and error answers", async () => {
  const vendor = await call("GET", `${base}/authors`, { headers: { accept: "application/library.v2.authors.json" } });
  assert.equal([vendor.status, vendor.headers.get("content-type")], [200, "application/library.v2.authors.json"]);
  const q = await call("GET", `${base}/authors`, { headers: { accept: "text/html;q=1, application/vnd.library.v2.authors+json;q=0.5" } });
  assert.equal([q.status, q.headers.get("content-type")], [200, "application/vnd.library.v2.authors+json"]);
  assert.is((await call("GET", `${base}/authors`, { headers: { accept: "text/html" } })).status, 406);
  const version = await call("GET", `${base}/authors`, { headers: { accept: "application/vnd.library.v3.authors+json" } });
  assert.equal([version.status, version.body.code], [406, 40601]);
  assert.is((await call("POST", `${base}/authors`, { raw: "name=x", headers: { "content-type": "application/x-www-form-urlencoded" } })).status, 415);
  assert.is((await call("POST", `${base}/authors`, { raw: "{bad", headers: { "content-type": "application/json" } })).status, 400);
  const big = await call("POST", `${base}/authors`, { body: { name: "x".repeat(2_000_000) } });
  assert.is(big.status, 413);
  const wrong = await call("DELETE", `${base}/authors`);
  assert.equal([wrong.status, wrong.headers.get("allow")], [405, "GET, HEAD, POST"]);
  const forbidden = await call("POST", `${base}/authors`, { body: { name: "Nobody" }, secret: reader.secret });
  assert.is(forbidden.status, 403);
  const basic = await call("GET", `${base}/authors`, { secret: null, headers: { authorization: `Basic ${Buffer.from(`${admin.id}:${admin.secret}`).toString("base64")}` } });
  assert.equal([basic.status, basic.body.code], [401, 40101]);
  const action = await call("GET", `${base}/lookup?isbn=9780060512750`);
  assert.equal([action.status, action.body.code], [501, 50100]);
  for (const reply of [version, wrong, basic, action]) {
    assert.equal(Object.keys(reply.body).sort(), ["code", "dev", "info", "message", "property", "status"]);
    assert.match(reply.headers.get("content-type") ?? "", "application/json");
  }
});

test("the reference docs are served at /docs, and every error's info URL resolves on the service", async () => {
  const origin = base.replace(/\/v2$/, "");
  const index = await fetch(`${origin}/docs/`);
  assert.equal([index.status, index.headers.get("content-type")], [200, "text/html; charset=utf-8"]);
  const openapi = await fetch(`${origin}/docs/openapi.json`);
  assert.is((await openapi.json()).openapi, "3.1.0");
  // errorDocsUrl of the library example is http://localhost:3000/docs/errors: the pages are served there.
  const page = await fetch(`${origin}/docs/errors/40900`);
  assert.is(page.status, 200);
  assert.match(await page.text(), "40900");
  // Redirected to its place in /docs/, so that the page's relative links resolve.
  assert.is(new URL(page.url).pathname, "/docs/40900.html");
  const css = await fetch(new URL("assets/style.css", page.url));
  assert.equal([css.status, css.headers.get("content-type")], [200, "text/css; charset=utf-8"]);
  const direct = await fetch(`${origin}/docs/errors/40900`, { redirect: "manual" });
  assert.equal([direct.status, direct.headers.get("location")], [302, "/docs/40900.html"]);
  const missing = await fetch(`${origin}/docs/../package.json`);
  assert.is.not(missing.status, 200);
});

test("SIGTERM stops it gracefully, and the data survives a restart", async () => {
  assert.is(await server!.stop(), 0, server!.log());
  server = await start(out, { PORT: String(port), BASE_URL: base }, `${base}/authors`);
  const list = await call("GET", `${base}/authors?limit=100`);
  assert.ok(list.body.items.some((a: { name: string }) => a.name === "Ursula K. Le Guin"));
  await server.stop();
  server = undefined;
});

test("Node's nextTick tasks keep one shape under load (runtime/steady-ticks.ts): their shapes survive a full collection", async () => {
  // On SIGUSR2 the probe forces two full collections, then compares (V8's natives syntax) the shape of the task
  // object the runtime holds with that of a task made now: the same when the collections freed none of the
  // shapes the tasks go through (else V8 marks the definitions of Node's task literal megamorphic, for good).
  const probe = path.join(tmp, "nexttick-probe.cjs");
  const held = path.join(out, "dist/src/generated/runtime/steady-ticks.js");
  fs.writeFileSync(
    probe,
    `const { executionAsyncResource } = require("node:async_hooks");
process.on("SIGUSR2", async () => {
  const { heldTask } = await import(${JSON.stringify(pathToFileURL(held).href)});
  const task = heldTask(); // now: a module the service did not load is evaluated by this import, its tick still queued
  global.gc();
  global.gc();
  process.nextTick(() => {
    const fresh = executionAsyncResource();
    if (task !== undefined) void task.callback; // a deprecated shape is brought up to date on this read
    const same = task !== undefined && %HaveSameMap(task, fresh);
    process.stdout.write(\`probe: held \${task === undefined ? "none" : "a task"}, same shape \${same}\\n\`, () => process.exit(0));
  });
});
`,
  );
  const probed = await start(out, { PORT: String(port), BASE_URL: base }, `${base}/authors`, ["--allow-natives-syntax", "--expose-gc", "--require", probe]);
  try {
    const book = (await call("GET", `${base}/books?limit=1`)).body.items[0];
    assert.ok(book, "a book to read");
    for (let round = 0; round < 20; round++) {
      const replies = await Promise.all(Array.from({ length: 10 }, () => call("GET", `${book.meta.href}?expand=author`)));
      assert.equal(new Set(replies.map((r) => r.status)), new Set([200]));
    }
    const closed = new Promise<void>((resolve) => probed.child.once("close", () => resolve()));
    probed.child.kill("SIGUSR2");
    await Promise.race([closed, new Promise((r) => setTimeout(r, 20_000))]);
    assert.match(probed.log(), "probe: held a task, same shape true", probed.log().slice(-2000));
  } finally {
    await probed.stop();
  }
});

test("HTTPS with TLS_CERT_FILE and TLS_KEY_FILE, where Basic is accepted", async () => {
  const cert = path.join(tmp, "cert.pem");
  const key = path.join(tmp, "key.pem");
  const ssl = run("openssl", ["req", "-x509", "-newkey", "rsa:2048", "-nodes", "-keyout", key, "-out", cert, "-days", "1", "-subj", "/CN=127.0.0.1"], tmp);
  assert.is(ssl.code, 0, ssl.output);
  const tlsPort = await freePort();
  const tlsBase = `https://127.0.0.1:${tlsPort}/v2`;
  const get = (auth: string) =>
    new Promise<{ status: number; body: string }>((resolve, reject) => {
      const req = https.request(`${tlsBase}/authors`, { rejectUnauthorized: false, headers: { authorization: auth } }, (res) => {
        let body = "";
        res.on("data", (d) => (body += d));
        res.on("end", () => resolve({ status: res.statusCode ?? 0, body }));
      });
      req.on("error", reject);
      req.end();
    });
  const child = await startTls(tlsPort, tlsBase, cert, key);
  try {
    const ok = await get(`Basic ${Buffer.from(`${admin.id}:${admin.secret}`).toString("base64")}`);
    assert.is(ok.status, 200, ok.body);
    assert.match(JSON.parse(ok.body).meta.href, tlsBase);
    assert.is((await get(`Basic ${Buffer.from(`${admin.id}:wrong`).toString("base64")}`)).status, 401);
  } finally {
    await child.stop();
  }
});

/** Starts the package with TLS; readiness is polled with certificate checks off (self-signed). */
async function startTls(tlsPort: number, tlsBase: string, cert: string, key: string): Promise<Started> {
  const previous = process.env.NODE_TLS_REJECT_UNAUTHORIZED;
  process.env.NODE_TLS_REJECT_UNAUTHORIZED = "0";
  try {
    return await start(out, { PORT: String(tlsPort), BASE_URL: tlsBase, TLS_CERT_FILE: cert, TLS_KEY_FILE: key, NODE_TLS_REJECT_UNAUTHORIZED: previous ?? "1" }, `${tlsBase}/authors`);
  } finally {
    if (previous === undefined) delete process.env.NODE_TLS_REJECT_UNAUTHORIZED;
    else process.env.NODE_TLS_REJECT_UNAUTHORIZED = previous;
  }
}

test.after(async () => {
  await server?.stop();
  fs.rmSync(tmp, { recursive: true, force: true });
});
test.run();
