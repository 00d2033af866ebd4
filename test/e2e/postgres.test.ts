/**
 * A generated service on PostgreSQL (CONTRACT §9): the library example generated, built and started twice —
 * two server processes on one throwaway database (DATABASE_URL), their API key made by `npm run keys` with the
 * same DATABASE_URL — and driven over real HTTP: what one process writes the other reads, links and their
 * integrity hold across processes, 200 concurrent duplicate POSTs spread over the two give exactly one 201 (the
 * others 409 naming the property), a key revoked through the CLI stops working in both within a second, and the
 * database killed under load answers 503 with the error body, never a 500 and never a dead process, until it is back.
 */
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { test } from "uvu";
import * as assert from "uvu/assert";
import { repoRoot, runCli } from "../helpers/cli.js";
import { freePort, linkModules, run, start, type Started } from "../helpers/package.js";
import { startPostgres, type Postgres } from "../helpers/postgres.js";

type Json = Record<string, any>;
const tmp = fs.mkdtempSync(path.join(os.tmpdir(), "resourcery-postgres-"));
const out = path.join(tmp, "library-service");
const keysFile = path.join(tmp, "no-keys-here.json");
let database: string;
let pg: Postgres;
let servers: Started[] = [];
let bases: string[] = [];
let headers: Record<string, string>;

test.before(async () => {
  pg = await startPostgres();
  const gen = runCli(["generate", path.join(repoRoot, "examples/library"), "--out", out]);
  assert.is(gen.code, 0, gen.stdout + gen.stderr);
  linkModules(out);
  const tsc = run(process.execPath, [path.join(repoRoot, "node_modules/typescript/bin/tsc"), "-p", "tsconfig.json"], out);
  assert.is(tsc.code, 0, tsc.output);
  database = pg.database("library");
  // The key is made in the database (KEYS_FILE names a file that is never written).
  const key = run("npm", ["run", "--silent", "keys", "--", "create", "--roles", "librarian"], out, { DATABASE_URL: database, KEYS_FILE: keysFile });
  assert.is(key.code, 0, key.output);
  assert.not.ok(fs.existsSync(keysFile), "no keys file");
  headers = { authorization: `Bearer ${(JSON.parse(key.output.trim()) as { secret: string }).secret}`, "content-type": "application/json" };
  // Two processes started at once on an empty database: the schema is made once, under the migration lock.
  const ports = [await freePort(), await freePort()];
  bases = ports.map((p) => `http://127.0.0.1:${p}/v2`);
  servers = await Promise.all(ports.map((port, i) => start(out, { PORT: String(port), BASE_URL: bases[i]!, KEYS_FILE: keysFile, DATABASE_URL: database, LOG_LEVEL: "warn" }, `${bases[i]}/`)));
});
test.after(async () => {
  await Promise.all(servers.map((s) => s.stop()));
  pg?.stop();
  fs.rmSync(tmp, { recursive: true, force: true });
});

const post = (base: string, collection: string, body: unknown) => fetch(`${base}/${collection}`, { method: "POST", headers, body: JSON.stringify(body) });

test("what one process writes the other reads: instances, links, expand, a sub-collection, a delete refused while linked", async () => {
  const [a, b] = bases as [string, string];
  const author = await post(a, "authors", { name: "Ursula K. Le Guin" });
  assert.is(author.status, 201, await author.clone().text());
  const authorJson = (await author.json()) as Json;
  const authorPath = new URL(authorJson.meta.href).pathname.replace(/^\/v2/, "");
  const book = await post(b, "books", { title: "The Dispossessed", isbn: "9780060512750", pages: 387, author: { meta: { href: `${b}${authorPath}` } } });
  assert.is(book.status, 201, await book.clone().text());
  const bookJson = (await book.json()) as Json;
  const bookPath = new URL(bookJson.meta.href).pathname.replace(/^\/v2/, "");
  const read = await fetch(`${a}${bookPath}?expand=author`, { headers });
  assert.is(read.status, 200);
  const readJson = (await read.json()) as Json;
  assert.is(readJson.title, "The Dispossessed");
  assert.is(readJson.author.name, "Ursula K. Le Guin", "expanded from the other process's write");
  const page = (await (await fetch(`${a}/books?limit=10`, { headers })).json()) as Json;
  assert.ok(page.items.some((x: Json) => x.title === "The Dispossessed"));
  const refused = await fetch(`${a}${authorPath}`, { method: "DELETE", headers });
  assert.is(refused.status, 409, "the author is still linked");
  assert.is(((await refused.json()) as Json).property, "books.author");
});

test("a value PostgreSQL cannot store (U+0000 in a string) is a 400 naming the property, never a 500", async () => {
  const r = await post(bases[0]!, "authors", { name: "nul\u0000here" });
  assert.is(r.status, 400, await r.clone().text());
  const body = (await r.json()) as Json;
  assert.is(body.property, "name");
  assert.match(body.dev, /U\+0000/);
});

test("200 concurrent duplicate POSTs over two processes: exactly one 201, the rest 409 on isbn", async () => {
  const [a, b] = bases as [string, string];
  const author = (await (await post(a, "authors", { name: "Octavia E. Butler" })).json()) as Json;
  const body = (base: string) => ({ title: "Kindred", isbn: "9780807083052", author: { meta: { href: `${base}${new URL(author.meta.href).pathname.replace(/^\/v2/, "")}` } } });
  const answers = await Promise.all(Array.from({ length: 200 }, (_, i) => (i % 2 === 0 ? post(a, "books", body(a)) : post(b, "books", body(b)))));
  const statuses = answers.map((r) => r.status);
  assert.is(statuses.filter((s) => s === 201).length, 1, JSON.stringify(statuses));
  assert.is(statuses.filter((s) => s === 409).length, 199, JSON.stringify(statuses));
  const conflict = (await answers.find((r) => r.status === 409)!.json()) as Json;
  assert.is(conflict.property, "isbn");
});

test("links stay whole across processes: a delete and creates linking to the same author race, and never both win", async () => {
  const [a, b] = bases as [string, string];
  let deleted = 0;
  let linked = 0;
  for (let round = 0; round < 15; round++) {
    const author = (await (await post(a, "authors", { name: `Racer ${round}` })).json()) as Json;
    const authorPath = new URL(author.meta.href).pathname.replace(/^\/v2/, "");
    const [del, ...books] = await Promise.all([
      fetch(`${a}${authorPath}`, { method: "DELETE", headers }),
      ...Array.from({ length: 3 }, (_, i) => post(b, "books", { title: `Race ${round}.${i}`, author: { meta: { href: `${b}${authorPath}` } } })),
    ]);
    const created = books.filter((r) => r.status === 201).length;
    assert.ok(del.status === 204 || del.status === 409, `delete: ${del.status} ${await del.text()}`);
    for (const r of books) assert.ok(r.status === 201 || r.status === 400, `create: ${r.status} ${await r.clone().text()}`);
    // The delete won: every create that came after it was refused; a create won: the delete was refused.
    assert.ok(!(del.status === 204 && created > 0), `round ${round}: the author deleted while ${created} book(s) were stored linking to it`);
    if (del.status === 204) deleted++;
    if (created > 0) linked++;
  }
  assert.ok(deleted + linked >= 15, "every round had a winner");
});

test("a key made and revoked through the CLI with the same DATABASE_URL: both processes accept it, then both refuse it within a second", async () => {
  const made = run("npm", ["run", "--silent", "keys", "--", "create", "--roles", "librarian"], out, { DATABASE_URL: database });
  assert.is(made.code, 0, made.output);
  const key = JSON.parse(made.output.trim()) as { id: string; secret: string };
  const auth = { authorization: `Bearer ${key.secret}` };
  const listed = run("npm", ["run", "--silent", "keys", "--", "list"], out, { DATABASE_URL: database });
  assert.match(listed.output, new RegExp(`"id":"${key.id}"`));
  // Made after the processes started: each has it within a second.
  for (const base of bases) {
    let status = 0;
    for (let i = 0; i < 30 && status !== 200; i++) {
      status = (await fetch(`${base}/books`, { headers: auth })).status;
      if (status !== 200) await new Promise((r) => setTimeout(r, 100));
    }
    assert.is(status, 200, `${base} accepts the new key`);
  }
  const revoked = run("npm", ["run", "--silent", "keys", "--", "revoke", key.id], out, { DATABASE_URL: database });
  assert.is(revoked.code, 0, revoked.output);
  const at = Date.now();
  await new Promise((r) => setTimeout(r, 1000));
  for (const base of bases) {
    const r = await fetch(`${base}/books`, { headers: auth });
    assert.is(r.status, 401, `${base} refuses the revoked key ${Date.now() - at} ms after the revocation`);
  }
  const again = run("npm", ["run", "--silent", "keys", "--", "revoke", key.id], out, { DATABASE_URL: database });
  assert.is(again.code, 1, "no such key any more");
});

test("RATE_LIMIT over two processes on one database: the counts are shared, so the limit holds across them; health/ready on both", async () => {
  const ports = [await freePort(), await freePort()];
  const limited = ports.map((p) => `http://127.0.0.1:${p}/v2`);
  const started = await Promise.all(ports.map((port, i) => start(out, { PORT: String(port), BASE_URL: limited[i]!, KEYS_FILE: keysFile, DATABASE_URL: database, LOG_LEVEL: "warn", RATE_LIMIT: "10" }, `${limited[i]}/`)));
  try {
    const made = run("npm", ["run", "--silent", "keys", "--", "create", "--roles", "librarian"], out, { DATABASE_URL: database });
    assert.is(made.code, 0, made.output);
    const auth = { authorization: `Bearer ${(JSON.parse(made.output.trim()) as { secret: string }).secret}` };
    await new Promise((r) => setTimeout(r, 1200)); // each process has the new key within a second
    const statuses: number[] = [];
    for (let i = 0; i < 12; i++) statuses.push((await fetch(`${limited[i % 2]}/books`, { headers: auth })).status);
    assert.equal(statuses.slice(0, 10), Array(10).fill(200), `the first ten, five on each process: ${statuses}`);
    assert.equal(statuses.slice(10), [429, 429], "the eleventh and twelfth: over the limit the two share");
    for (const base of limited) assert.is((await fetch(`${new URL(base).origin}/health/ready`)).status, 200);
  } finally {
    await Promise.all(started.map((s) => s.stop()));
  }
});

test("the package's own contract tests pass on PostgreSQL (TEST_DATABASE_URL), each test service in a schema of its own, none left behind", async () => {
  const url = pg.database("contract");
  const tests = run("npm", ["test"], out, { TEST_DATABASE_URL: url }, 600_000);
  assert.is(tests.code, 0, tests.output.slice(-4000));
  assert.match(tests.output, /contract tests on PostgreSQL \(TEST_DATABASE_URL\)/);
  const passed = /Passed:\s+(\d+)/g;
  let total = 0;
  for (let m = passed.exec(tests.output); m !== null; m = passed.exec(tests.output)) total += Number(m[1]);
  // The library's contract tests are 32 (and the seeded test of the user's one): all of them, none skipped.
  assert.ok(total >= 33, `contract tests ran (${total} passed)`);
  assert.not.match(tests.output, /Skipped:\s+[1-9]/);
  const { default: pgClient } = await import("pg");
  const client = new pgClient.Client({ connectionString: url });
  await client.connect();
  try {
    const left = await client.query("SELECT nspname FROM pg_namespace WHERE nspname LIKE 'rsc_test_%'");
    assert.is(left.rowCount, 0, "every test schema dropped");
  } finally {
    await client.end();
  }
});

test("the database killed under load: 503 with the error body while it is down, never a 500, no process dies; back by itself", async () => {
  const [a, b] = bases as [string, string];
  pg.kill();
  const down = await Promise.all([fetch(`${a}/books`, { headers }), post(b, "authors", { name: "Down" })]);
  for (const r of down) {
    assert.is(r.status, 503, await r.clone().text());
    const body = (await r.json()) as Json;
    assert.is(body.status, 503);
    assert.ok(typeof body.code === "number" && typeof body.message === "string", JSON.stringify(body));
    assert.ok(r.headers.get("retry-after"), "Retry-After");
  }
  pg.restart();
  let status = 0;
  for (let i = 0; i < 100 && status !== 201; i++) {
    status = (await post(b, "authors", { name: `Back ${i}` })).status;
    if (status !== 201) {
      assert.is(status, 503);
      await new Promise((r) => setTimeout(r, 100));
    }
  }
  assert.is(status, 201, "writes work again");
  assert.is((await fetch(`${a}/books`, { headers })).status, 200);
  for (const s of servers) assert.is(s.child.exitCode, null, s.log());
});

test("kill -9 of a server mid-burst loses no acknowledged write: every 201 it sent is read back from the other process", async () => {
  const [a, b] = bases as [string, string];
  const victim = servers[1]!;
  const acknowledged: { href: string; name: string }[] = [];
  let failed = 0;
  let next = 0;
  const worker = async () => {
    while (next < 600) {
      const name = `Burst ${next++}`;
      try {
        const r = await post(b, "authors", { name });
        // Acknowledged: a 201 whose body arrived whole.
        if (r.status === 201) acknowledged.push({ href: ((await r.json()) as Json).meta.href, name });
        else await r.text();
      } catch {
        failed++;
      }
    }
  };
  const burst = Promise.all(Array.from({ length: 16 }, worker));
  for (let i = 0; i < 2000 && acknowledged.length < 40; i++) await new Promise((r) => setTimeout(r, 5));
  victim.child.kill("SIGKILL");
  await burst;
  servers = servers.filter((s) => s !== victim);
  assert.ok(acknowledged.length >= 40 && failed > 0, `killed mid-burst (${acknowledged.length} acknowledged, ${failed} failed)`);
  for (const { href, name } of acknowledged) {
    const r = await fetch(`${a}${new URL(href).pathname.replace(/^\/v2/, "")}`, { headers });
    assert.is(r.status, 200, `${name}, acknowledged, is stored`);
    assert.is(((await r.json()) as Json).name, name);
  }
});

test("a property made required: npm run migrate -- --dry-run prints the SQL; without a default start-up and migrate refuse, changing nothing; with one the stored instances get it", async () => {
  await Promise.all(servers.map((s) => s.stop()));
  servers = [];
  const defs = path.join(tmp, "defs");
  fs.cpSync(path.join(repoRoot, "examples/library"), defs, { recursive: true });
  const file = path.join(defs, "resources/author.json");
  const author = JSON.parse(fs.readFileSync(file, "utf8")) as Json;
  const regenerate = (country: Json) => {
    author.properties.country = country;
    author.required = ["name", "country"];
    fs.writeFileSync(file, JSON.stringify(author, null, 2));
    const gen = runCli(["generate", defs, "--out", out, "--allow-breaking"]);
    assert.is(gen.code, 0, gen.stdout + gen.stderr);
    const tsc = run(process.execPath, [path.join(repoRoot, "node_modules/typescript/bin/tsc"), "-p", "tsconfig.json"], out);
    assert.is(tsc.code, 0, tsc.output);
  };
  const env = { DATABASE_URL: database, KEYS_FILE: keysFile };
  const { default: pgClient } = await import("pg");
  const lacking = async () => {
    const client = new pgClient.Client({ connectionString: database });
    await client.connect();
    try {
      return Number((await client.query(`SELECT count(*) AS n FROM authors WHERE NOT (data::jsonb ? 'country')`)).rows[0].n);
    } finally {
      await client.end();
    }
  };
  const stored = await lacking();
  assert.ok(stored > 40, `authors stored before (${stored})`);

  regenerate({ type: "string", minLength: 2, maxLength: 2 });
  const refusal = /instances of "authors" stored before property "country" became required lack it, and its schema gives no default/;
  const dry = run("npm", ["run", "--silent", "migrate", "--", "--dry-run"], out, env);
  assert.is(dry.code, 1, dry.output);
  assert.match(dry.output, refusal);
  const port = await freePort();
  let startError = "";
  await start(out, { ...env, PORT: String(port), LOG_LEVEL: "warn" }, `http://127.0.0.1:${port}/v2/`).then(
    (s) => s.stop(),
    (e: Error) => (startError = e.message),
  );
  assert.match(startError, refusal);
  assert.match(startError, /cannot start: \d+ instances of "authors"/, "one line saying why");
  assert.not.match(startError, /\n\s+at /, "no stack trace");
  assert.is(await lacking(), stored, "nothing changed");

  regenerate({ type: "string", minLength: 2, maxLength: 2, default: "ZZ" });
  const planned = run("npm", ["run", "--silent", "migrate", "--", "--dry-run"], out, env);
  assert.is(planned.code, 0, planned.output);
  assert.match(planned.output, /^-- would run on the PostgreSQL database of DATABASE_URL/m);
  assert.match(planned.output, new RegExp(`-- ${stored} instance\\(s\\) of authors lack the required property "country": its default\nUPDATE "authors" SET data = .*"country":"ZZ"\\}`));
  assert.is(await lacking(), stored, "a dry run changes nothing");
  const applied = run("npm", ["run", "--silent", "migrate"], out, env);
  assert.is(applied.code, 0, applied.output);
  assert.match(applied.output, /^-- ran on the PostgreSQL database/m);
  assert.is(await lacking(), 0);
  assert.match(run("npm", ["run", "--silent", "migrate", "--", "--dry-run"], out, env).output, /in line with the definitions: nothing to do/);
  const server = await start(out, { ...env, PORT: String(port), BASE_URL: `http://127.0.0.1:${port}/v2`, LOG_LEVEL: "warn" }, `http://127.0.0.1:${port}/v2/`);
  servers = [server];
  const page = (await (await fetch(`http://127.0.0.1:${port}/v2/authors?limit=100`, { headers })).json()) as Json;
  assert.ok(page.items.length > 0);
  for (const item of page.items) assert.is(item.country, "ZZ", JSON.stringify(item));

  // A second process on the same port: exit 1 with one line saying why, no stack trace, the first one unharmed.
  const second = run(process.execPath, ["dist/src/main.js"], out, { ...env, PORT: String(port), BASE_URL: `http://127.0.0.1:${port}/v2`, LOG_LEVEL: "warn" }, 30_000);
  assert.is(second.code, 1, second.output);
  assert.match(second.output, new RegExp(`cannot start: cannot listen on 127\\.0\\.0\\.1:${port}: another process listens there; stop it, or set PORT to a free port`));
  assert.not.match(second.output, /\n\s+at /, "no stack trace");
  assert.is((await fetch(`http://127.0.0.1:${port}/health/live`)).status, 200);
});

test.run();
