/**
 * The generated service's HTTP layer over real sockets, where inject() cannot go: header and body
 * timeouts, Node's own client errors (431, bad bytes, unknown methods, CONNECT) in the error body,
 * duplicate Authorization headers, authentication before a body is read, and a SIGTERM that ends the
 * process while a slow client still holds a connection.
 */
import { spawn } from "node:child_process";
import fs from "node:fs";
import net from "node:net";
import os from "node:os";
import path from "node:path";
import { test } from "uvu";
import * as assert from "uvu/assert";
import type { FastifyInstance } from "fastify";
import { buildApp } from "../../../templates/runtime/app.js";
import { KeyRing, type NewKey } from "../../../templates/runtime/keys.js";
import { DEFAULT_HTTP_LIMITS, httpLimitsFrom, type HttpLimits } from "../../../templates/runtime/limits.js";
import { openSqliteStore } from "../../../templates/runtime/sqlite-store.js";
import { notesSpec } from "../../helpers/notes-service.js";

const ERROR_KEYS = ["code", "dev", "info", "message", "property", "status"];

interface Served {
  readonly app: FastifyInstance;
  readonly port: number;
  readonly key: NewKey;
}

async function withServer(fn: (s: Served) => Promise<void>, limits: Partial<HttpLimits> = {}): Promise<void> {
  const store = openSqliteStore(notesSpec, ":memory:");
  const keys = KeyRing.memory();
  const key = keys.create([]);
  const app = await buildApp({ spec: notesSpec, store, keys, limits });
  await app.listen({ port: 0, host: "127.0.0.1" });
  try {
    await fn({ app, port: (app.server.address() as net.AddressInfo).port, key });
  } finally {
    app.server.closeAllConnections();
    await app.close();
    await store.close();
  }
}

interface Exchange {
  readonly status: number;
  readonly headers: Record<string, string>;
  readonly body: string;
  /** Milliseconds from connecting to the end of the answer. */
  readonly ms: number;
  /** Whether the server closed the connection after answering. */
  readonly closed: boolean;
}

/**
 * Connects, lets `talk` write to the socket, and reads the first answer: resolves when the server closes
 * the connection or `waitMs` after a whole answer arrived; rejects after `timeoutMs` without one.
 */
function exchange(port: number, talk: (socket: net.Socket) => void, options: { timeoutMs?: number; waitMs?: number } = {}): Promise<Exchange> {
  const { timeoutMs = 3000, waitMs = 150 } = options;
  return new Promise((resolve, reject) => {
    const started = Date.now();
    const socket = net.connect(port, "127.0.0.1", () => talk(socket));
    let data = Buffer.alloc(0);
    let settled = false;
    const finish = (closed: boolean) => {
      if (settled) return;
      const text = data.toString("latin1");
      const split = text.indexOf("\r\n\r\n");
      if (split < 0) {
        settled = true;
        socket.destroy();
        reject(new Error(`no answer (${closed ? "closed" : "timed out"} after ${Date.now() - started} ms): ${JSON.stringify(text.slice(0, 200))}`));
        return;
      }
      settled = true;
      clearTimeout(timer);
      const [statusLine, ...lines] = text.slice(0, split).split("\r\n");
      const headers: Record<string, string> = {};
      for (const line of lines) headers[line.slice(0, line.indexOf(":")).toLowerCase()] = line.slice(line.indexOf(":") + 1).trim();
      resolve({ status: Number(statusLine!.split(" ")[1]), headers, body: data.subarray(Buffer.byteLength(text.slice(0, split + 4), "latin1")).toString("utf8"), ms: Date.now() - started, closed });
      socket.destroy();
    };
    const timer = setTimeout(() => finish(false), timeoutMs);
    let wait: NodeJS.Timeout | undefined;
    socket.on("data", (d) => {
      data = Buffer.concat([data, d]);
      clearTimeout(wait);
      if (data.includes("\r\n\r\n")) wait = setTimeout(() => finish(false), waitMs);
    });
    socket.on("error", () => finish(true));
    socket.on("close", () => {
      clearTimeout(wait);
      finish(true);
    });
  });
}

/** Asserts the error body of `code` (with its status) and a JSON Content-Type. */
function assertErrorBody(res: Exchange, status: number, code: number): void {
  assert.is(res.status, status, res.body);
  assert.ok(res.headers["content-type"]?.startsWith("application/json"), `content-type ${res.headers["content-type"]}`);
  const body = JSON.parse(res.body);
  assert.equal(Object.keys(body).sort(), ERROR_KEYS);
  assert.is(body.code, code, res.body);
  assert.is(body.status, status);
  assert.is(body.info, `https://docs.example.com/errors/${code}`);
}

const request = (lines: string[]) => `${lines.join("\r\n")}\r\n\r\n`;

test("defaults without configuration: requestTimeout 30 s, headersTimeout 10 s; settings from the environment, bad values refused", async () => {
  await withServer(async ({ app }) => {
    assert.is(app.server.requestTimeout, 30_000);
    assert.is(app.server.headersTimeout, 10_000);
    assert.is(app.server.keepAliveTimeout, DEFAULT_HTTP_LIMITS.keepAliveTimeoutMs);
  });
  assert.equal(httpLimitsFrom({}), DEFAULT_HTTP_LIMITS);
  assert.equal(httpLimitsFrom({ REQUEST_TIMEOUT_MS: "60000", HEADERS_TIMEOUT_MS: "5000", KEEP_ALIVE_TIMEOUT_MS: "1000", SHUTDOWN_TIMEOUT_MS: "" }), {
    requestTimeoutMs: 60_000,
    headersTimeoutMs: 5000,
    keepAliveTimeoutMs: 1000,
    shutdownTimeoutMs: DEFAULT_HTTP_LIMITS.shutdownTimeoutMs,
  });
  for (const [env, message] of [
    [{ REQUEST_TIMEOUT_MS: "0" }, /REQUEST_TIMEOUT_MS/],
    [{ HEADERS_TIMEOUT_MS: "10s" }, /HEADERS_TIMEOUT_MS/],
    [{ KEEP_ALIVE_TIMEOUT_MS: "-1" }, /KEEP_ALIVE_TIMEOUT_MS/],
    [{ REQUEST_TIMEOUT_MS: "1000", HEADERS_TIMEOUT_MS: "2000" }, /must not exceed/],
  ] as const) {
    assert.throws(() => httpLimitsFrom(env), message);
  }
});

test("headers trickled byte by byte are cut after HEADERS_TIMEOUT_MS with 408 and the error body", () =>
  withServer(
    async ({ port }) => {
      let timer: NodeJS.Timeout | undefined;
      const res = await exchange(port, (socket) => {
        socket.write("GET /v1/notes HTTP/1.1\r\nHost: x\r\n");
        timer = setInterval(() => socket.writable && socket.write("X"), 40);
      });
      clearInterval(timer);
      assertErrorBody(res, 408, 40800);
      assert.ok(res.ms < 1500, `cut after ${res.ms} ms`);
      assert.is(res.headers.connection, "close");
      assert.ok(res.closed);
    },
    { headersTimeoutMs: 300, requestTimeoutMs: 600 },
  ));

test("a body trickled byte by byte is cut after REQUEST_TIMEOUT_MS with 408 and the error body", () =>
  withServer(
    async ({ port, key }) => {
      let timer: NodeJS.Timeout | undefined;
      const res = await exchange(port, (socket) => {
        socket.write(request(["POST /v1/notes HTTP/1.1", "Host: x", `Authorization: Bearer ${key.secret}`, "Content-Type: application/json", "Content-Length: 1000"]));
        timer = setInterval(() => socket.writable && socket.write(" "), 40);
      });
      clearInterval(timer);
      assertErrorBody(res, 408, 40800);
      assert.ok(res.ms < 1500, `cut after ${res.ms} ms`);
      assert.ok(res.closed);
    },
    { headersTimeoutMs: 300, requestTimeoutMs: 600 },
  ));

test("an idle keep-alive connection outlives the header timeout and serves the next request", () =>
  withServer(
    async ({ port, key }) => {
      const get = request(["GET /v1/notes HTTP/1.1", "Host: x", `Authorization: Bearer ${key.secret}`]);
      const statuses: number[] = [];
      await new Promise<void>((resolve, reject) => {
        const socket = net.connect(port, "127.0.0.1", () => socket.write(get));
        socket.on("data", (d) => {
          statuses.push(Number(String(d).split(" ")[1]));
          if (statuses.length === 1) setTimeout(() => socket.write(get), 500);
          else {
            socket.destroy();
            resolve();
          }
        });
        socket.on("error", reject);
        socket.on("close", () => resolve());
      });
      assert.equal(statuses, [200, 200]);
    },
    { headersTimeoutMs: 200, requestTimeoutMs: 400, keepAliveTimeoutMs: 2000 },
  ));

test("Node's client errors answer with the error body: 431 for large headers, 400 for bytes a header may not hold", () =>
  withServer(async ({ port }) => {
    const large = await exchange(port, (s) => s.write(request(["GET /v1/notes HTTP/1.1", "Host: x", `X-Big: ${"a".repeat(20_000)}`])));
    assertErrorBody(large, 431, 43100);
    assert.is(large.headers.connection, "close");
    const longUrl = await exchange(port, (s) => s.write(request([`GET /v1/notes?fields=${"a".repeat(20_000)} HTTP/1.1`, "Host: x"])));
    assertErrorBody(longUrl, 431, 43100);
    // To a HEAD request, the head alone: a body there would be read as the start of the next answer.
    const head = await exchange(port, (s) => s.write(request(["HEAD /v1/notes HTTP/1.1", "Host: x", `X-Big: ${"a".repeat(20_000)}`])));
    assert.is(head.status, 431);
    assert.ok(Number(head.headers["content-length"]) > 0);
    assert.is(head.body, "", "no body after the head");
    const headUrl = await exchange(port, (s) => s.write(request([`HEAD /v1/notes?fields=${"a".repeat(20_000)} HTTP/1.1`, "Host: x"])));
    assert.is(headUrl.status, 431);
    assert.is(headUrl.body, "", "no body after the head, the URL over the limit");
    for (const raw of [
      request(["GET /v1/notes HTTP/1.1", "Host: x", "X-Bad: a\u0001b"]),
      request(["GET /v1/notes HTTP/1.1", "Host: x", "Bad Name: x"]),
      request(["GET /v1/notes HTTP/9.9", "Host: x"]),
      request(["POST /v1/notes HTTP/1.1", "Host: x", "Content-Length: 5", "Transfer-Encoding: chunked"]),
      "\u0000\u0001\u0002garbage\r\n\r\n",
    ]) {
      assertErrorBody(await exchange(port, (s) => s.write(raw)), 400, 40011);
    }
  }));

test("HEAD over a real socket: GET's status, Content-Type and Content-Length, no body, for answers and errors alike", () =>
  withServer(async ({ port, key }) => {
    const auth = `Authorization: Bearer ${key.secret}`;
    const body = JSON.stringify({ text: "hello" });
    const created = await exchange(port, (s) => s.write(request(["POST /v1/notes HTTP/1.1", "Host: x", auth, "Content-Type: application/json", `Content-Length: ${body.length}`]) + body));
    assert.is(created.status, 201, created.body);
    const id = JSON.parse(created.body).id as string;
    const cases: [string, string[]][] = [
      ["/v1/notes", [auth]],
      [`/v1/notes/${id}`, [auth]],
      [`/v1/notes/${id}?fields=text`, [auth]],
      ["/v1/notes/01890a5d-ac96-774b-bcce-b302099a8057", [auth]],
      [`/v1/notes/${id}`, []],
      [`/v1/notes/${id}`, [auth, "Accept: text/html"]],
      [`/v1/notes?limit=nope`, [auth]],
    ];
    const statuses: number[] = [];
    for (const [target, headers] of cases) {
      const get = await exchange(port, (s) => s.write(request([`GET ${target} HTTP/1.1`, "Host: x", ...headers])));
      const head = await exchange(port, (s) => s.write(request([`HEAD ${target} HTTP/1.1`, "Host: x", ...headers])));
      statuses.push(head.status);
      assert.is(head.status, get.status, target);
      assert.is(head.headers["content-type"], get.headers["content-type"], target);
      assert.is(head.headers["content-length"], String(Buffer.byteLength(get.body)), target);
      assert.ok(get.body.length > 0, target);
      assert.is(head.body, "", `no body after the head of ${target}`);
    }
    assert.equal(statuses, [200, 200, 200, 404, 401, 406, 400]);
  }));

test("an HTTP/1.1 request without Host is 400 malformedRequest with the error body; HTTP/1.0 needs none", () =>
  withServer(async ({ port, key }) => {
    const res = await exchange(port, (s) => s.write(request(["GET /v1/notes HTTP/1.1", `Authorization: Bearer ${key.secret}`])));
    assertErrorBody(res, 400, 40011);
    assert.match(JSON.parse(res.body).dev, /Host/);
    assert.is((await exchange(port, (s) => s.write(request(["GET /v1/notes HTTP/1.0", `Authorization: Bearer ${key.secret}`])))).status, 200);
  }));

test("a method Node does not know, and CONNECT: 405 with Allow on a known path, 404 elsewhere, never 5xx", () =>
  withServer(async ({ port }) => {
    const known = await exchange(port, (s) => s.write(request(["FOO /v1/notes HTTP/1.1", "Host: x"])));
    assertErrorBody(known, 405, 40500);
    assert.is(known.headers.allow, "GET, HEAD, POST");
    assertErrorBody(await exchange(port, (s) => s.write(request(["FOO /v1/nothing HTTP/1.1", "Host: x"]))), 404, 40401);
    assertErrorBody(await exchange(port, (s) => s.write(request(["CONNECT 127.0.0.1:443 HTTP/1.1", "Host: 127.0.0.1:443"]))), 404, 40401);
  }));

test("two Authorization headers are refused (401) whichever comes first, never the first one winning", () =>
  withServer(async ({ port, key }) => {
    const valid = `Authorization: Bearer ${key.secret}`;
    for (const pair of [
      [valid, "Authorization: Bearer wrong"],
      ["Authorization: Bearer wrong", valid],
      [valid, valid],
    ]) {
      const res = await exchange(port, (s) => s.write(request(["GET /v1/notes HTTP/1.1", "Host: x", ...pair, "Connection: close"])));
      assertErrorBody(res, 401, 40100);
      assert.match(JSON.parse(res.body).dev, /more than one Authorization header/);
    }
    const one = await exchange(port, (s) => s.write(request(["GET /v1/notes HTTP/1.1", "Host: x", valid, "Connection: close"])));
    assert.is(one.status, 200);
  }));

test("an anonymous request is answered 401 before its body arrives (the rest is read and dropped, never parsed)", () =>
  withServer(async ({ port }) => {
    const started = Date.now();
    const res = await exchange(port, (s) => s.write(request(["POST /v1/notes HTTP/1.1", "Host: x", "Content-Type: application/json", "Content-Length: 1048576"])));
    assertErrorBody(res, 401, 40100);
    assert.ok(Date.now() - started < 1000);
  }));

test("a body announced over the limit gets its 413 and the connection stays open while the client still sends it (no reset)", () =>
  withServer(async ({ port, key }) => {
    const body = Buffer.alloc(12 * 1024 * 1024, "y");
    const head = ["POST /v1/notes HTTP/1.1", "Host: x", `Authorization: Bearer ${key.secret}`, "Content-Type: application/json", `Content-Length: ${body.length}`];
    // A client that reads its answer only after sending the whole body (as many do) loses the 413 to a
    // reset when the server closes under it; kept open, the server reads and drops the rest.
    const outcome = await new Promise<{ sent: Error | null | undefined; answer: string }>((resolve) => {
      const socket = net.connect(port, "127.0.0.1");
      let answer = "";
      socket.on("data", (d) => (answer += d.toString("latin1")));
      socket.on("error", () => {});
      socket.write(request(head));
      socket.write(body, (sent) => {
        setTimeout(() => {
          socket.destroy();
          resolve({ sent, answer });
        }, 200);
      });
    });
    assert.is(outcome.sent ?? null, null, "the whole body was sent without a reset");
    assert.match(outcome.answer, /^HTTP\/1\.1 413 /);
    assert.ok(!/\r\nconnection: close\r\n/i.test(outcome.answer.split("\r\n\r\n")[0]! + "\r\n"), "the 413 keeps the connection");
  }));

test("an Expect other than 100-continue is ignored rather than answered 417", () =>
  withServer(async ({ port, key }) => {
    const body = JSON.stringify({ text: "hi" });
    const res = await exchange(port, (s) =>
      s.write(request(["POST /v1/notes HTTP/1.1", "Host: x", `Authorization: Bearer ${key.secret}`, "Expect: the-unexpected", "Content-Type: application/json", `Content-Length: ${body.length}`]) + body),
    );
    assert.is(res.status, 201, res.body);
  }));

test("SIGTERM ends the process within SHUTDOWN_TIMEOUT_MS while a client is still sending its body", async () => {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), "resourcery-shutdown-"));
  const keysFile = path.join(dir, "keys.json");
  const env = { ...process.env, KEYS_HMAC_SECRET: "a-test-hmac-secret-0123456789" };
  const key = KeyRing.open(keysFile, { env }).create([]);
  const child = spawn(process.execPath, ["--import", "tsx", "test/helpers/notes-service.ts"], {
    env: { ...env, PORT: "0", KEYS_FILE: keysFile, DATABASE_FILE: ":memory:", LOG_LEVEL: "warn", SHUTDOWN_TIMEOUT_MS: "300", REQUEST_TIMEOUT_MS: "60000" },
    stdio: ["ignore", "pipe", "inherit"],
  });
  try {
    const url = await new Promise<string>((resolve, reject) => {
      let out = "";
      child.stdout.on("data", (d) => {
        out += d;
        // The service logs where it listens as a JSON record; the helper then prints the bare URL.
        const line = /^https?:\/\/\S+$/m.exec(out);
        if (line) resolve(line[0]);
      });
      child.on("exit", (code) => reject(new Error(`the service exited (${code}) before listening`)));
    });
    const slow = net.connect(Number(new URL(url).port), "127.0.0.1");
    await new Promise((r) => slow.on("connect", r));
    slow.on("error", () => undefined);
    slow.write(request(["POST /v1/notes HTTP/1.1", "Host: x", `Authorization: Bearer ${key.secret}`, "Content-Type: application/json", "Content-Length: 1000"]) + '{"text": "');
    await new Promise((r) => setTimeout(r, 200));
    const started = Date.now();
    const exited = new Promise<number | null>((resolve) => child.on("exit", (code) => resolve(code)));
    child.kill("SIGTERM");
    const code = await Promise.race([exited, new Promise<"hung">((r) => setTimeout(() => r("hung"), 4000))]);
    assert.is(code, 0, "exits cleanly");
    assert.ok(Date.now() - started < 3000, `exited after ${Date.now() - started} ms`);
    slow.destroy();
  } finally {
    child.kill("SIGKILL");
    fs.rmSync(dir, { recursive: true, force: true });
  }
});

test.run();
