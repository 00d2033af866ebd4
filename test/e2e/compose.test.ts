/**
 * The generated service as a foundation (CONTRACT.md §5): a user's src/main.ts builds it with createService,
 * adds routes and a plugin before listen(), and those routes get the generated routes' authentication
 * (config.access, request.caller), error body and 405s, under the base URL's path; a hook with a business
 * rule and an action handler answer with the catalog's errors; the store can be swapped in process.
 */
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { pathToFileURL } from "node:url";
import { test } from "uvu";
import * as assert from "uvu/assert";
import { runCli } from "../helpers/cli.js";
import { freePort, linkModules, run, start, type Started } from "../helpers/package.js";
import type { Service, ServiceOptions } from "../../templates/runtime/server.js";

const tmp = fs.mkdtempSync(path.join(os.tmpdir(), "resourcery-compose-"));
const out = path.join(tmp, "library-service");
let base = "";
let server: Started | undefined;
const keys: Record<"librarian" | "reader", { id: string; secret: string }> = { librarian: { id: "", secret: "" }, reader: { id: "", secret: "" } };

type Reply = { status: number; headers: Headers; body: any };
async function call(method: string, url: string, options: { body?: unknown; headers?: Record<string, string>; key?: keyof typeof keys | null } = {}): Promise<Reply> {
  const key = options.key === undefined ? "librarian" : options.key;
  const headers: Record<string, string> = { ...(key ? { authorization: `Bearer ${keys[key].secret}` } : {}), ...options.headers };
  if (options.body !== undefined) headers["content-type"] ??= "application/json";
  const res = await fetch(url, { method, headers, ...(options.body === undefined ? {} : { body: JSON.stringify(options.body) }) });
  const text = await res.text();
  return { status: res.status, headers: res.headers, body: text ? JSON.parse(text) : undefined };
}

function assertErrorBody(reply: Reply, status: number, code: number, property = ""): void {
  assert.is(reply.status, status, JSON.stringify(reply.body));
  assert.equal(Object.keys(reply.body).sort(), ["code", "dev", "info", "message", "property", "status"]);
  assert.is(reply.body.code, code);
  assert.is(reply.body.property, property);
}

const MAIN = `import { createService } from "./generated/server.js";
import { apiError } from "./generated/errors.js";

const service = await createService();
// Not listening yet: routes and plugins can still be added.
service.app.get("/reports", { config: { access: ["librarian"] } }, async (request) => ({ caller: request.caller?.id ?? null, roles: request.caller?.roles ?? [] }));
service.app.get("/whoami", { config: { access: "public" } }, async (request) => ({ caller: request.caller?.id ?? null }));
service.app.post("/v2/loans", async () => {
  throw apiError("bookOnLoan", "isbn");
});
service.app.get("/crash", async () => {
  throw new Error("a secret detail of the crash");
});
service.app.post("/typed", { schema: { body: { type: "object", required: ["n"], properties: { n: { type: "integer" } } } } }, async (request) => request.body);
await service.app.register(async (scope) => {
  scope.get("/plugin/ping", async (request) => ({ pong: request.caller?.id ?? null }));
}, { prefix: "/tools" });
service.app.get("/healthz", { config: { access: "public", outsideBase: true } }, async () => ({ ok: true }));
await service.listen();
`;

const BOOK_HOOKS = `import type { ResourceHooks } from "../generated/errors.js";
import type { Book, BookInput } from "../generated/types.js";

export const hooks: ResourceHooks<BookInput, Book> = {
  beforeCreate(input, ctx) {
    if (input.title.toLowerCase().includes("forbidden")) throw ctx.error("bookOnLoan", "title", "Titles with 'forbidden' are refused by our rule.");
    return { ...input, title: input.title.trim() };
  },
};
`;

const LOOKUP = `import type { HandlerContext } from "../generated/errors.js";
import type { LookupParams, LookupResult } from "../generated/types.js";

export async function lookup(params: LookupParams, ctx: HandlerContext): Promise<LookupResult> {
  if (!params.isbn.startsWith("978")) throw ctx.error("invalidParameter", "isbn", "Only 978 ISBNs are known here.");
  return { title: "Known book", found: true };
}
`;

test("generate, write your own main.ts, a hook and an action handler, build under strict", () => {
  assert.is(runCli(["generate", "examples/library", "--out", out]).code, 0);
  const seeded = fs.readFileSync(path.join(out, "src/main.ts"), "utf8");
  assert.match(seeded, "createService", "the seeded main.ts shows createService");
  assert.match(seeded, "await service.listen()");
  fs.writeFileSync(path.join(out, "src/main.ts"), MAIN);
  fs.writeFileSync(path.join(out, "src/hooks/books.ts"), BOOK_HOOKS);
  fs.writeFileSync(path.join(out, "src/actions/lookup.ts"), LOOKUP);
  linkModules(out);
  const build = run(process.execPath, [path.join(out, "node_modules/typescript/bin/tsc"), "-p", "tsconfig.json"], out);
  assert.is(build.code, 0, build.output);
});

test("keys, and npm start with the user's main.ts", async () => {
  for (const role of ["librarian", "reader"] as const) {
    const r = run(process.execPath, ["dist/src/generated/runtime/keys-cli.js", "create", "--roles", role], out);
    assert.is(r.code, 0, r.output);
    keys[role] = JSON.parse(r.output.trim());
  }
  const port = await freePort();
  base = `http://127.0.0.1:${port}/v2`;
  server = await start(out, { PORT: String(port), BASE_URL: base, LOG_LEVEL: "info" }, `${base}/authors`);
});

test("the service prints where it listens once, in one JSON record", async () => {
  const lines = server!.log().split("\n").filter((l) => l.includes("listening"));
  assert.is(lines.length, 1, server!.log());
  assert.match(JSON.parse(lines[0]!).msg, `(base URL ${base})`);
});

test("a route of your own sits under the base path and answers 401/403/200 from config.access", async () => {
  assertErrorBody(await call("GET", `${base}/reports`, { key: null }), 401, 40100);
  const unauth = await call("GET", `${base}/reports`, { key: null });
  assert.match(unauth.headers.get("www-authenticate") ?? "", 'Bearer realm="Library API"');
  assertErrorBody(await call("GET", `${base}/reports`, { key: "reader" }), 403, 40300);
  const ok = await call("GET", `${base}/reports`);
  assert.is(ok.status, 200);
  assert.equal(ok.body, { caller: keys.librarian.id, roles: ["librarian"] });
  assert.is((await call("GET", `${base.replace(/\/v2$/, "")}/reports`)).status, 404, "not at the root path");
});

test("a public route needs no credentials; valid ones still name the caller", async () => {
  assert.equal((await call("GET", `${base}/whoami`, { key: null })).body, { caller: null });
  assert.equal((await call("GET", `${base}/whoami`)).body, { caller: keys.librarian.id });
  const bad = await fetch(`${base}/whoami`, { headers: { authorization: "Bearer not-a-key" } });
  assert.is(bad.status, 200);
});

test("a route already under the base path keeps it; outsideBase keeps a route at its own path", async () => {
  assertErrorBody(await call("POST", `${base}/loans`, { body: {} }), 422, 2001, "isbn");
  const root = base.replace(/\/v2$/, "");
  assert.equal((await call("GET", `${root}/healthz`, { key: null })).body, { ok: true });
});

test("errors thrown by your routes answer the error body: a catalog error as is, anything else a 500 without detail", async () => {
  const crash = await call("GET", `${base}/crash`);
  assertErrorBody(crash, 500, 50000);
  assert.not.match(JSON.stringify(crash.body), "secret detail");
  const typed = await call("POST", `${base}/typed`, { body: { n: "x" } });
  assertErrorBody(typed, 400, 40003, "n");
  assertErrorBody(await call("POST", `${base}/typed`, { body: {} }), 400, 40001, "n");
  assert.equal((await call("POST", `${base}/typed`, { body: { n: 2 } })).body, { n: 2 });
});

test("a plugin's routes get the same authentication, under the base path and the plugin's prefix", async () => {
  assertErrorBody(await call("GET", `${base}/tools/plugin/ping`, { key: null }), 401, 40100);
  assert.equal((await call("GET", `${base}/tools/plugin/ping`, { key: "reader" })).body, { pong: keys.reader.id });
});

test("a method your route lacks answers 405 with Allow, before credentials", async () => {
  const r = await call("DELETE", `${base}/reports`, { key: null });
  assertErrorBody(r, 405, 40500);
  assert.is(r.headers.get("allow"), "GET, HEAD");
  assert.is((await call("PUT", `${base}/tools/plugin/ping`)).headers.get("allow"), "GET, HEAD");
});

test("a hook's business rule and an action handler answer with catalog errors; passing input goes through", async () => {
  const author = await call("POST", `${base}/authors`, { body: { name: "Ursula" } });
  assert.is(author.status, 201, JSON.stringify(author.body));
  const link = { meta: { href: author.body.meta.href } };
  assertErrorBody(await call("POST", `${base}/books`, { body: { title: "A forbidden book", author: link } }), 422, 2001, "title");
  const made = await call("POST", `${base}/books`, { body: { title: "  Earthsea  ", author: link } });
  assert.is(made.status, 201, JSON.stringify(made.body));
  assert.is(made.body.title, "Earthsea", "the hook's changed input is stored");
  const refused = await call("GET", `${base}/lookup?isbn=0306406152`);
  assertErrorBody(refused, 400, 40009, "isbn");
  assert.is(refused.body.dev, "Only 978 ISBNs are known here.", "the handler's own refusal");
  assert.equal((await call("GET", `${base}/lookup?isbn=9780306406157`)).body, { title: "Known book", found: true });
});

test("SIGTERM stops the service", async () => {
  assert.is(await server!.stop(), 0);
  server = undefined;
});

test("createService in process: not listening until listen(), options.store swaps the store, close() closes it", async () => {
  const dist = (p: string) => pathToFileURL(path.join(out, "dist/src", p)).href;
  const { createService } = (await import(dist("generated/server.js"))) as { createService: (options?: ServiceOptions) => Promise<Service> };
  const { openSqliteStore } = (await import(dist("generated/runtime/sqlite-store.js"))) as typeof import("../../templates/runtime/sqlite-store.js");
  const { KeyRing } = (await import(dist("generated/runtime/keys.js"))) as typeof import("../../templates/runtime/keys.js");
  const { spec } = (await import(dist("generated/spec.js"))) as { spec: import("../../templates/runtime/spec.js").ServiceSpec };
  const inner = openSqliteStore(spec, ":memory:");
  const calls: string[] = [];
  let closed = false;
  // A store of the user's: any implementation of the Store interface (here one that wraps SQLite and records calls).
  const store = {
    insert: (c: string, r: any) => (calls.push(`insert ${c}`), inner.insert(c, r)),
    get: (c: string, id: string) => (calls.push(`get ${c}`), inner.get(c, id)),
    existing: (c: string, ids: readonly string[]) => inner.existing(c, ids),
    list: (c: string, q: any) => (calls.push(`list ${c}`), inner.list(c, q)),
    update: (c: string, r: any) => inner.update(c, r),
    delete: (c: string, id: string) => inner.delete(c, id),
    close: async () => {
      closed = true;
      await inner.close();
    },
  };
  const ring = KeyRing.memory();
  const key = ring.create(["librarian"]);
  const port = await freePort();
  const service = await createService({ env: { PORT: String(port), BASE_URL: `http://127.0.0.1:${port}/v2`, LOG_LEVEL: "silent" }, store, keys: ring });
  assert.is(service.store, store);
  await assert.not.throws(() => service.app.get("/extra", async () => ({ added: true })), "a route can be added before listen()");
  const refused = await fetch(`http://127.0.0.1:${port}/v2/authors`).then(
    () => "answered",
    () => "refused",
  );
  assert.is(refused, "refused", "createService does not listen");
  const url = await service.listen();
  assert.is(url, `http://127.0.0.1:${port}`);
  const auth = { authorization: `Bearer ${key.secret}` };
  const created = await fetch(`${url}/v2/authors`, { method: "POST", headers: { ...auth, "content-type": "application/json" }, body: JSON.stringify({ name: "Tove" }) });
  assert.is(created.status, 201);
  const extra = await fetch(`${url}/v2/extra`, { headers: auth });
  assert.equal(await extra.json(), { added: true });
  const list = await fetch(`${url}/v2/authors`, { headers: auth });
  assert.is(((await list.json()) as { size: number }).size, 1);
  assert.ok(calls.includes("insert authors") && calls.includes("list authors"), calls.join(", "));
  await service.close();
  assert.ok(closed, "close() closes the store");
});

test.after(async () => {
  await server?.stop();
  fs.rmSync(tmp, { recursive: true, force: true });
});

test.run();
