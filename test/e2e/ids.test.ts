/**
 * Id forms and server-owned names (CONTRACT §2), over real HTTP against a package generated from
 * definitions of its own, one resource per id form: customers with prefixed ids ("x-id": {"prefix": "cus_"}),
 * orders numbered by a sequence ("x-id": "sequence", each linking a customer), tags with UUIDs (the default)
 * listing orders; each declares the id (and orders their createdAt) as real API descriptions do. `check`
 * accepts them; the package builds (with a user file typing ids through the client: a number for orders),
 * its own contract tests pass, and the started service creates, reads, links, expands and deletes across the
 * forms, answers 404 for an id of the wrong form and 400 for a link to one, on a SQLite file that keeps the
 * sequence across a restart.
 */
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { pathToFileURL } from "node:url";
import { test } from "uvu";
import * as assert from "uvu/assert";
import { runCli } from "../helpers/cli.js";
import { freePort, linkModules, run, start, type Started } from "../helpers/package.js";

const tmp = fs.mkdtempSync(path.join(os.tmpdir(), "resourcery-ids-"));
const defs = path.join(tmp, "defs");
const out = path.join(tmp, "ids-service");
const keysFile = path.join(tmp, "keys.json");
const database = path.join(tmp, "data/ids.db");

let server: Started | undefined;
let base = "";
let secret = "";
let env: NodeJS.ProcessEnv = {};

type Json = Record<string, any>;
type Reply = { status: number; headers: Headers; body: any };

function write(file: string, value: unknown): void {
  fs.mkdirSync(path.dirname(path.join(defs, file)), { recursive: true });
  fs.writeFileSync(path.join(defs, file), JSON.stringify(value, null, 2));
}

async function call(method: string, url: string, body?: unknown): Promise<Reply> {
  const headers: Record<string, string> = { authorization: `Bearer ${secret}` };
  if (body !== undefined) headers["content-type"] = "application/json";
  const res = await fetch(url.startsWith("http") ? url : `${base}${url}`, { method, headers, ...(body !== undefined ? { body: JSON.stringify(body) } : {}) });
  const text = await res.text();
  return { status: res.status, headers: res.headers, body: text ? JSON.parse(text) : undefined };
}

async function create(collection: string, body: Json): Promise<Json> {
  const r = await call("POST", `/${collection}`, body);
  assert.is(r.status, 201, JSON.stringify(r.body));
  assert.is(r.headers.get("location"), r.body.meta.href);
  return r.body;
}

const link = (x: Json) => ({ meta: { href: x.meta.href } });

function assertError(r: Reply, status: number, code: number, property = ""): Json {
  assert.is(r.status, status, JSON.stringify(r.body));
  assert.equal([r.body.status, r.body.code, r.body.property], [status, code, property], JSON.stringify(r.body));
  return r.body;
}

test("definitions with one resource per id form and declared server fields pass check; the package builds, and its own tests pass", async () => {
  write("service.json", {
    name: "ids-service",
    title: "Ids",
    vendor: "ids",
    version: 1,
    baseUrl: "http://localhost:3000/v1",
    errorDocsUrl: "http://localhost:3000/docs/errors",
    resources: ["resources/*.json"],
    auth: { schemes: ["apiKey"] },
  });
  write("resources/customer.json", {
    title: "Customer",
    type: "object",
    "x-collection": "customers",
    "x-id": { prefix: "cus_" },
    required: ["id", "name"],
    additionalProperties: false,
    properties: {
      id: { type: "string", maxLength: 5000, description: "Unique identifier for the customer, starting with cus_." },
      name: { type: "string" },
      orders: { type: "array", items: { $ref: "order.json" } },
    },
  });
  write("resources/order.json", {
    title: "Order",
    type: "object",
    "x-collection": "orders",
    "x-id": "sequence",
    required: ["id", "total", "customer", "createdAt"],
    additionalProperties: false,
    properties: {
      id: { type: "integer", format: "int64", description: "The order number." },
      createdAt: { type: "string", format: "date-time", description: "When the order was placed." },
      total: { type: "number", minimum: 0, examples: [12.5] },
      customer: { $ref: "customer.json" },
    },
  });
  write("resources/tag.json", {
    title: "Tag",
    type: "object",
    "x-collection": "tags",
    required: ["label"],
    additionalProperties: false,
    properties: {
      id: { type: "string", format: "uuid" },
      label: { type: "string", examples: ["priority"] },
      orders: { type: "array", items: { $ref: "order.json" } },
    },
  });
  const check = runCli(["check", defs]);
  assert.is(check.code, 0, check.stdout + check.stderr);
  assert.not.match(check.stdout + check.stderr, /warning|error/);
  const gen = runCli(["generate", defs, "--out", out]);
  assert.is(gen.code, 0, gen.stdout + gen.stderr);

  // User code typing ids through the generated types and client: it compiles only when a sequence's ids are numbers.
  fs.writeFileSync(
    path.join(out, "src/id-types.ts"),
    [
      `import { createClient } from "../client/index.js";`,
      `import type { Customer, Order, Tag } from "./generated/types.js";`,
      `/** Reads one of each through the client: order ids are numbers, the others strings. */`,
      `export async function readAll(baseUrl: string, bearer: string, ids: { order: number; customer: string; tag: string }): Promise<[number, string, string, string]> {`,
      `  const api = createClient({ baseUrl, auth: { bearer } });`,
      `  const order = await api.orders.get(ids.order, { expand: ["customer"] });`,
      `  const plain: Order = await api.orders.get(ids.order);`,
      `  const number: number = order.id;`,
      `  const customer: Customer = await api.customers.get(ids.customer);`,
      `  const text: string = customer.id;`,
      `  const picked = await api.orders.get(ids.order, { fields: ["id", "createdAt"] });`,
      `  const again: number = picked.id;`,
      `  const tag: Tag = await api.tags.get(ids.tag);`,
      `  await api.tags.orders.remove(tag.id, number);`,
      `  // @ts-expect-error an order's id is a number, not a string`,
      `  void api.orders.get("1");`,
      `  return [number + again - plain.id, text, order.customer.name, tag.id];`,
      `}`,
      ``,
    ].join("\n"),
  );
  linkModules(out);
  const tests = run("npm", ["test", "--silent"], out, { NO_COLOR: "1", FORCE_COLOR: "0" });
  assert.is(tests.code, 0, tests.output);
  assert.not.match(tests.output, /skipped: (customers|orders|tags) › ids are/, "the id cases ran for every resource");
  assert.match(fs.readFileSync(path.join(out, "dist/test/generated/kit.js"), "utf8"), /an id of another form is a 404/, "the package's tests have the id case");

  const key = run("npm", ["run", "--silent", "keys", "--", "create"], out, { KEYS_FILE: keysFile });
  assert.is(key.code, 0, key.output);
  secret = (JSON.parse(key.output.trim()) as { secret: string }).secret;
  const port = await freePort();
  base = `http://127.0.0.1:${port}/v1`;
  env = { PORT: String(port), BASE_URL: base, KEYS_FILE: keysFile, DATABASE_FILE: database, LOG_LEVEL: "warn" };
  server = await start(out, env, `${base}/tags`);
});

test("create and get by id in each form: cus_… strings, order numbers 1, 2 …, UUIDs; hrefs end in them", async () => {
  const ann = await create("customers", { name: "Ann" });
  assert.match(ann.id, /^cus_[0-9A-Za-z]{22}$/);
  assert.is(ann.meta.href, `${base}/customers/${ann.id}`);
  const o1 = await create("orders", { total: 10, customer: link(ann) });
  const o2 = await create("orders", { total: 20, customer: link(ann) });
  assert.equal([o1.id, o2.id], [1, 2]);
  assert.is(o2.meta.href, `${base}/orders/2`);
  assert.is(typeof o1.createdAt, "string");
  const tag = await create("tags", { label: "big", orders: [link(o2), { meta: { href: "/v1/orders/1" } }] });
  assert.match(tag.id, /^[0-9a-f]{8}-[0-9a-f]{4}-7[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/);
  for (const x of [ann, o1, tag]) {
    const got = await call("GET", x.meta.href);
    assert.is(got.status, 200, JSON.stringify(got.body));
    assert.equal(got.body, x);
  }
  assertError(await call("POST", "/orders", { id: 7, total: 1, customer: link(ann) }), 400, 40004, "id");
  assertError(await call("POST", "/orders", { total: 1, customer: link(ann), createdAt: "2024-01-01T00:00:00Z" }), 400, 40004, "createdAt");
});

test("links across forms: an order's customer, a customer's orders, a tag's orders, expanded; a link to an id of the wrong form is a 400", async () => {
  const ben = await create("customers", { name: "Ben" });
  const order = await create("orders", { total: 5, customer: link(ben) });
  const expanded = await call("GET", `/orders/${order.id}?expand=customer`);
  assert.is(expanded.status, 200);
  assert.equal([expanded.body.id, expanded.body.customer.id, expanded.body.customer.name], [order.id, ben.id, "Ben"]);
  const theirs = await call("GET", `/customers/${ben.id}?expand=orders`);
  assert.equal(theirs.body.orders.items.map((o: Json) => o.id), [order.id]);
  const tag = await create("tags", { label: "t", orders: [link(order)] });
  const listed = await call("GET", `/tags/${tag.id}/orders`);
  assert.equal(listed.body.items.map((o: Json) => [o.id, o.total]), [[order.id, 5]]);
  const picked = await call("GET", `/tags/${tag.id}?fields=id,orders(id)`);
  assert.equal(picked.body.orders.items, [{ meta: order.meta, id: order.id }]);
  for (const href of [`${base}/customers/cus_short`, `${base}/customers/${ben.id.replace("cus_", "acc_")}`, `${base}/customers/${tag.id}`]) {
    assert.match(assertError(await call("POST", "/orders", { total: 1, customer: { meta: { href } } }), 400, 40005, "customer").dev, /names no existing customer/);
  }
  for (const href of [`${base}/orders/0${order.id}`, `${base}/orders/${order.id}.0`, `${base}/orders/${tag.id}`]) {
    assertError(await call("POST", `/tags/${tag.id}/orders`, { meta: { href } }), 400, 40005, "orders");
  }
});

test("an id of the wrong form names nothing: 404 on every instance route, never a 500", async () => {
  const cid = (await create("customers", { name: "Cy" })).id as string;
  const tid = (await create("tags", { label: "x" })).id as string;
  const wrong: [string, string[]][] = [
    ["orders", ["01", "1.0", "1e0", "0", "-1", "abc", "99999999999999999999", cid, tid]],
    ["customers", ["cus_", cid.slice(0, -1), cid.toUpperCase(), "1", tid]],
    ["tags", [tid.toUpperCase(), tid.replace(/-/g, ""), "1", cid]],
  ];
  for (const [collection, ids] of wrong) {
    for (const id of ids) {
      for (const method of ["GET", "PATCH", "DELETE"]) {
        const r = await call(method, `/${collection}/${encodeURIComponent(id)}`, method === "PATCH" ? {} : undefined);
        assertError(r, 404, 40400);
      }
    }
  }
  assertError(await call("GET", `/customers/${cid.slice(0, -1)}/orders`), 404, 40400);
});

test("the typed client types and sends the ids of each form (the user file built with the package)", async () => {
  const dee = await create("customers", { name: "Dee" });
  const order = await create("orders", { total: 7, customer: link(dee) });
  const tag = await create("tags", { label: "client", orders: [link(order)] });
  const mod = await import(pathToFileURL(path.join(out, "dist/src/id-types.js")).href);
  const read = await mod.readAll(base, secret, { order: order.id, customer: dee.id, tag: tag.id });
  assert.equal(read, [order.id, dee.id, "Dee", tag.id]);
  assert.equal((await call("GET", `/tags/${tag.id}/orders`)).body.items, [], "remove(tag.id, order.id) took the order out of the list");
});

test("delete across forms; numbers are never given again, also after a restart of the service", async () => {
  const eve = await create("customers", { name: "Eve" });
  const order = await create("orders", { total: 1, customer: link(eve) });
  const tag = await create("tags", { label: "gone", orders: [link(order)] });
  assertError(await call("DELETE", `/customers/${eve.id}`), 409, 40901, "orders.customer");
  assert.is((await call("DELETE", `/orders/${order.id}`)).status, 204);
  assertError(await call("GET", `/orders/${order.id}`), 404, 40400);
  assert.equal((await call("GET", `/tags/${tag.id}/orders`)).body.items, []);
  assert.is((await call("DELETE", `/customers/${eve.id}`)).status, 204);
  assert.is((await call("DELETE", `/tags/${tag.id}`)).status, 204);
  const fay = await create("customers", { name: "Fay" });
  const next = await create("orders", { total: 2, customer: link(fay) });
  assert.is(next.id, order.id + 1, "the deleted order's number is not given again");
  assert.is((await call("DELETE", `/orders/${next.id}`)).status, 204);

  assert.is(await server!.stop(), 0);
  server = await start(out, env, `${base}/tags`);
  const after = await create("orders", { total: 3, customer: link(fay) });
  assert.is(after.id, next.id + 1, "the sequence is kept in the database");
  const page = await call("GET", "/orders?limit=100");
  const ids = page.body.items.map((o: Json) => o.id);
  assert.equal(ids, [...ids].sort((a: number, b: number) => a - b), "a page lists orders by number");
});

test.after(async () => {
  await server?.stop();
  if (!process.env.KEEP) fs.rmSync(tmp, { recursive: true, force: true });
});

test.run();
