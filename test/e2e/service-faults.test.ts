/**
 * Faults around a started library service (real process, real sockets, its SQLite file):
 * - kill -9 in the middle of a burst of POSTs, then a restart: every POST acknowledged with 201 is there;
 * - 50 sockets trickling bodies are cut within REQUEST_TIMEOUT_MS, header trickles within
 *   HEADERS_TIMEOUT_MS, with a 408 in the contract's body if anything is answered;
 * - SIGTERM stops the process while 50 trickling sockets are open (within SHUTDOWN_TIMEOUT_MS);
 * - another process holds the database's write lock for 10 s: the event loop keeps serving, a write that
 *   waits past DATABASE_BUSY_TIMEOUT_MS is a 503 with the error body, one that outlives the lock succeeds.
 * The timeouts are set small here to keep the file fast; their defaults are in the package's README.
 */
import fs from "node:fs";
import net from "node:net";
import os from "node:os";
import path from "node:path";
import Database from "better-sqlite3";
import { test } from "uvu";
import * as assert from "uvu/assert";
import { repoRoot } from "../helpers/cli.js";
import { errorAnswerProblems, modelOf, parseResponse, prepareService, type CheckContext, type PreparedService, type Reply } from "../helpers/fuzz.js";
import { freePort, start, type Started } from "../helpers/package.js";

const tmp = fs.mkdtempSync(path.join(os.tmpdir(), "resourcery-faults-"));
let prepared: PreparedService;
let check: CheckContext;
const running = new Set<Started>();

interface Launched {
  readonly server: Started;
  readonly port: number;
  readonly base: string;
}

/** Starts the package on a free port with its own database file (`db`) and these settings. */
async function launch(db: string, env: Record<string, string> = {}): Promise<Launched> {
  const port = await freePort();
  const base = `http://127.0.0.1:${port}/v2`;
  const server = await start(prepared.dir, { PORT: String(port), BASE_URL: base, LOG_LEVEL: "warn", DATABASE_FILE: path.join(tmp, db), ...env }, `${base}/authors`);
  running.add(server);
  server.child.once("exit", () => running.delete(server));
  return { server, port, base };
}

const exited = (s: Started) => new Promise<{ code: number | null; signal: NodeJS.Signals | null }>((resolve) => {
  if (s.child.exitCode !== null || s.child.signalCode !== null) resolve({ code: s.child.exitCode, signal: s.child.signalCode });
  else s.child.once("exit", (code, signal) => resolve({ code, signal }));
});

const writeHeaders = () => ({ authorization: `Bearer ${prepared.write.secret}`, "content-type": "application/json", accept: "application/json" });
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/** One slow client: what it got back and when the server closed its connection (ms after it connected; undefined: still open). */
interface Trickle {
  readonly done: Promise<void>;
  closedAfterMs: number | undefined;
  received: Buffer;
  destroy(): void;
}

/**
 * Opens a connection, writes `head`, then `drip()` every `everyMs` until the server closes the
 * connection (or `destroy`). The server's bytes are collected.
 */
function trickle(port: number, head: string, drip: (i: number) => string, everyMs: number): Trickle {
  const socket = net.connect({ host: "127.0.0.1", port });
  const t: Trickle = {
    closedAfterMs: undefined,
    received: Buffer.alloc(0),
    destroy: () => socket.destroy(),
    done: new Promise((resolve) => {
      let t0 = 0;
      let timer: NodeJS.Timeout | undefined;
      socket.on("connect", () => {
        t0 = performance.now();
        socket.write(head);
        let i = 0;
        timer = setInterval(() => {
          if (!socket.destroyed && socket.writable) socket.write(drip(i++));
        }, everyMs);
      });
      socket.on("data", (d: Buffer) => (t.received = Buffer.concat([t.received, d])));
      socket.on("error", () => {
        /* EPIPE / ECONNRESET when the server cuts the connection */
      });
      socket.on("close", () => {
        clearInterval(timer);
        t.closedAfterMs = t0 === 0 ? 0 : performance.now() - t0;
        resolve();
      });
    }),
  };
  return t;
}

/** Waits for every trickle to be closed by the server, or `ms`; then destroys what is still open. */
async function settle(trickles: readonly Trickle[], ms: number): Promise<void> {
  await Promise.race([Promise.all(trickles.map((t) => t.done)), sleep(ms)]);
  for (const t of trickles) if (t.closedAfterMs === undefined) t.destroy();
}

/** Problems with what a cut slow client received: nothing, or a 408 with the contract's body. */
function cutAnswerProblems(t: Trickle): string[] {
  if (t.received.length === 0) return [];
  const r: Reply | undefined = parseResponse(t.received, false, true);
  if (!r || r.error) return [`an unreadable answer: ${JSON.stringify(t.received.subarray(0, 120).toString("latin1"))}`];
  const problems = r.status === 408 ? [] : [`${r.status}, not 408`];
  return [...problems, ...errorAnswerProblems(r, check)];
}

test("generate the library example, build it, create keys", () => {
  prepared = prepareService(repoRoot, path.join(tmp, "library-service"));
  const model = modelOf(prepared.openapi);
  check = { errorTypes: model.errorTypes, errorDocsUrl: model.errorDocsUrl };
  assert.ok(check.errorDocsUrl, "errorDocsUrl read from the error examples of openapi.json");
});

test("kill -9 during a burst of POSTs, then a restart: no acknowledged write is lost", async () => {
  const first = await launch("kill.db");
  const acknowledged: { id: string; name: string }[] = [];
  let killed = false;
  const workers = Array.from({ length: 8 }, async (_, w) => {
    for (let i = 0; !killed; i++) {
      const name = `burst ${w}-${i}`;
      try {
        const res = await fetch(`${first.base}/authors`, { method: "POST", headers: writeHeaders(), body: JSON.stringify({ name, born: 1900 + (i % 200) }) });
        const body = (await res.json()) as { id?: string; name?: string };
        // Acknowledged: a 201 whose whole body arrived (its id is known).
        if (res.status === 201 && body.id) acknowledged.push({ id: body.id, name });
        else assert.is(res.status, 201, JSON.stringify(body));
      } catch (error) {
        if (!killed) throw error;
      }
    }
  });
  const deadline = Date.now() + 20_000;
  while (acknowledged.length < 200 && Date.now() < deadline) await sleep(5);
  assert.ok(acknowledged.length >= 200, `only ${acknowledged.length} POSTs acknowledged in 20 s`);
  // From here a POST may fail (the process is gone): only the ones answered 201 in full count.
  killed = true;
  first.server.child.kill("SIGKILL");
  const end = await exited(first.server);
  await Promise.all(workers);
  assert.is(end.signal, "SIGKILL");

  const second = await launch("kill.db");
  const missing: string[] = [];
  for (const { id, name } of acknowledged) {
    const res = await fetch(`${second.base}/authors/${id}`, { headers: writeHeaders() });
    const body = (await res.json()) as { name?: string };
    if (res.status !== 200 || body.name !== name) missing.push(`${id} (${name}): ${res.status} ${JSON.stringify(body).slice(0, 120)}`);
  }
  assert.equal(missing, [], `${missing.length} of ${acknowledged.length} acknowledged POSTs are gone after kill -9`);
  const again = await fetch(`${second.base}/authors`, { method: "POST", headers: writeHeaders(), body: JSON.stringify({ name: "after the restart" }) });
  assert.is(again.status, 201, "the database takes writes after the restart");
  await second.server.stop();
});

test("50 slow bodies are cut within REQUEST_TIMEOUT_MS (a 408 in the contract's body, or a close), and the service keeps answering", async () => {
  const requestTimeout = 2000;
  const { server, port, base } = await launch("slow-body.db", { REQUEST_TIMEOUT_MS: String(requestTimeout), HEADERS_TIMEOUT_MS: "1000" });
  const head = `POST /v2/authors HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer ${prepared.write.secret}\r\nContent-Type: application/json\r\nContent-Length: 100000\r\n\r\n{"name":"`;
  const slow = Array.from({ length: 50 }, () => trickle(port, head, () => "a", 200));
  await sleep(500);
  const during = await fetch(`${base}/authors?limit=1`, { headers: writeHeaders() });
  assert.is(during.status, 200, "answers other clients while 50 bodies trickle");
  // Node checks the timeouts on a timer (a quarter of the shorter one here): allow that and some scheduling.
  const allowed = requestTimeout + 2500;
  await settle(slow, allowed + 1000);
  const open = slow.filter((t) => t.closedAfterMs === undefined || t.closedAfterMs > allowed);
  assert.is(open.length, 0, `${open.length} of 50 trickling bodies were not cut within ${allowed} ms (closed after: ${slow.map((t) => (t.closedAfterMs === undefined ? "open" : Math.round(t.closedAfterMs))).join(", ")})`);
  const problems = slow.flatMap(cutAnswerProblems);
  assert.equal([...new Set(problems)], [], "what a cut client receives");
  const after = await fetch(`${base}/authors?limit=1`, { headers: writeHeaders() });
  assert.is(after.status, 200);
  await server.stop();
});

test("header trickles are cut within HEADERS_TIMEOUT_MS", async () => {
  const headersTimeout = 1000;
  const { server, port } = await launch("slow-headers.db", { REQUEST_TIMEOUT_MS: "5000", HEADERS_TIMEOUT_MS: String(headersTimeout) });
  const slow = Array.from({ length: 20 }, () => trickle(port, "GET /v2/authors HTTP/1.1\r\nHost: x\r\n", (i) => `X-Slow-${i}: y\r\n`, 150));
  const allowed = headersTimeout + 2000;
  await settle(slow, allowed + 1000);
  const open = slow.filter((t) => t.closedAfterMs === undefined || t.closedAfterMs > allowed);
  assert.is(open.length, 0, `${open.length} of 20 header trickles were not cut within ${allowed} ms (closed after: ${slow.map((t) => (t.closedAfterMs === undefined ? "open" : Math.round(t.closedAfterMs))).join(", ")})`);
  assert.equal([...new Set(slow.flatMap(cutAnswerProblems))], [], "what a cut client receives");
  await server.stop();
});

test("SIGTERM stops the process while 50 slow bodies are still open (within SHUTDOWN_TIMEOUT_MS)", async () => {
  const shutdownTimeout = 1500;
  const { server, port } = await launch("sigterm.db", { REQUEST_TIMEOUT_MS: "60000", HEADERS_TIMEOUT_MS: "30000", SHUTDOWN_TIMEOUT_MS: String(shutdownTimeout) });
  const head = `POST /v2/authors HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer ${prepared.write.secret}\r\nContent-Type: application/json\r\nContent-Length: 100000\r\n\r\n{"name":"`;
  const slow = Array.from({ length: 50 }, () => trickle(port, head, () => "a", 200));
  await sleep(800);
  assert.is(slow.filter((t) => t.closedAfterMs !== undefined).length, 0, "all 50 are open when the signal is sent");
  const t0 = performance.now();
  server.child.kill("SIGTERM");
  const allowed = shutdownTimeout + 3000;
  const end = await Promise.race([exited(server), sleep(allowed).then(() => undefined)]);
  const took = Math.round(performance.now() - t0);
  for (const t of slow) t.destroy();
  if (!end) server.child.kill("SIGKILL");
  assert.ok(end, `still running ${allowed} ms after SIGTERM with 50 slow clients open`);
  assert.equal([end!.code, end!.signal], [0, null], `exit after ${took} ms:\n${server.log().slice(-2000)}`);
});

test("another process holds the write lock for 10 s: the event loop keeps serving, a blocked write is a 503 with the error body, never a 500", async () => {
  const busyTimeout = 3000;
  const dbFile = path.join(tmp, "locked.db");
  const { server, base } = await launch("locked.db", { DATABASE_BUSY_TIMEOUT_MS: String(busyTimeout) });
  const created = await fetch(`${base}/authors`, { method: "POST", headers: writeHeaders(), body: JSON.stringify({ name: "Before the lock" }) });
  assert.is(created.status, 201);
  const instance = ((await created.json()) as { meta: { href: string } }).meta.href;
  const docs = `${new URL(base).origin}/docs/openapi.json`;

  const locker = new Database(dbFile, { timeout: 0 });
  locker.exec("BEGIN IMMEDIATE");
  const lockedAt = performance.now();
  const releaseAfter = 10_000;
  const released = sleep(releaseAfter).then(() => {
    locker.exec("ROLLBACK");
    locker.close();
    return performance.now();
  });

  /** A POST, with when it was answered (ms after the lock was taken). */
  const write = async (name: string) => {
    const res = await fetch(`${base}/authors`, { method: "POST", headers: writeHeaders(), body: JSON.stringify({ name }) });
    const raw = Buffer.from(await res.arrayBuffer());
    return { reply: { status: res.status, headers: Object.fromEntries(res.headers), body: raw } satisfies Reply, at: performance.now() - lockedAt };
  };
  // Probes of the event loop meanwhile: the docs (no database) and an instance (a read, which WAL never blocks).
  const probes: { url: string; ms: number; status: number }[] = [];
  let probing = true;
  const probe = (async () => {
    while (probing) {
      for (const url of [docs, instance]) {
        const t = performance.now();
        const res = await fetch(url, { headers: writeHeaders() });
        await res.arrayBuffer();
        probes.push({ url, ms: performance.now() - t, status: res.status });
      }
      await sleep(100);
    }
  })();

  const blocked = write("Blocked by the lock");
  await sleep(releaseAfter - busyTimeout + 1500); // this one still waits when the lock goes
  const outlives = write("Outlives the lock");
  const [first, second, releasedAt] = await Promise.all([blocked, outlives, released]);
  probing = false;
  await probe;

  const slowest = probes.reduce((a, b) => (b.ms > a.ms ? b : a));
  assert.ok(slowest.ms < 1000, `the event loop stood still: a probe of ${slowest.url} took ${Math.round(slowest.ms)} ms (${probes.length} probes)`);
  assert.ok(probes.every((p) => p.status === 200), `probes: ${[...new Set(probes.map((p) => p.status))].join(", ")}`);

  assert.is(first.reply.status, 503, `the write blocked for the whole budget: ${first.reply.status} ${first.reply.body}`);
  assert.equal(errorAnswerProblems(first.reply, check), [], "the 503's body");
  assert.ok(first.at < busyTimeout + 2000, `the 503 came after ${Math.round(first.at)} ms, with a budget of ${busyTimeout} ms`);

  assert.is(second.reply.status, 201, `the write that outlived the lock: ${second.reply.status} ${second.reply.body}`);
  assert.ok(second.at >= releasedAt - lockedAt, "it was answered after the release");

  const list = await fetch(`${base}/authors?limit=100`, { headers: writeHeaders() });
  const names = ((await list.json()) as { items: { name: string }[] }).items.map((a) => a.name);
  assert.not.ok(names.includes("Blocked by the lock"), "the 503'd write wrote nothing");
  assert.ok(names.includes("Outlives the lock"));
  await server.stop();
});

test.after(async () => {
  await Promise.all([...running].map((s) => s.stop()));
  fs.rmSync(tmp, { recursive: true, force: true });
});
test.run();
