/**
 * Id forms (x-id) in the runtime: ids made per form (templates/runtime/ids.ts) and stated by resourcery
 * alike (src/model/id-forms.ts), a sequence numbered by the SQLite store (an INTEGER key, a counter that
 * never gives a committed number again, lists in numeric order, no change of form in place), and the routes
 * of a hand-written spec with one resource per form: ids in representations, paths and links checked per
 * form (404 and 400, never a 500), expand and sub-collections across forms.
 */
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { test } from "uvu";
import * as assert from "uvu/assert";
import type { FastifyInstance, LightMyRequestResponse } from "fastify";
import { BUILTIN_ERRORS } from "../../../src/model/builtin-errors.js";
import { exampleId, idSchemaOf } from "../../../src/model/id-forms.js";
import { misfit } from "../../../src/lint/schema-fit.js";
import { buildApp } from "../../../templates/runtime/app.js";
import { describeIdForm, idValue, isIdOf, makeId, mayName, newId, newPrefixedId } from "../../../templates/runtime/ids.js";
import { KeyRing } from "../../../templates/runtime/keys.js";
import { matchLink } from "../../../templates/runtime/links.js";
import type { IdForm, JsonSchema, MediaTypeSpec, ResourceSpec, ServiceSpec } from "../../../templates/runtime/spec.js";
import { openSqliteStore } from "../../../templates/runtime/sqlite-store.js";
import type { Store, StoredRecord } from "../../../templates/runtime/store.js";
import { requiredOnly } from "../../helpers/stores.js";

type Json = Record<string, any>;

/** Asserts that `promise` rejects with a message matching `expected`. */
async function rejects(promise: Promise<unknown>, expected: RegExp): Promise<void> {
  try {
    await promise;
  } catch (e) {
    assert.match((e as Error).message, expected);
    return;
  }
  assert.unreachable(`expected a rejection matching ${expected}`);
}

const UUID: IdForm = { kind: "uuid" };
const CUS: IdForm = { kind: "prefix", prefix: "cus_" };
const SEQ: IdForm = { kind: "sequence" };

test("made ids: a UUIDv7, or the prefix and 22 base-62 digits of one; each increases strictly and has its form", () => {
  const prefixed = Array.from({ length: 3000 }, () => newPrefixedId("cus_"));
  for (const id of prefixed) assert.match(id, /^cus_[0-9A-Za-z]{22}$/);
  for (let i = 1; i < prefixed.length; i++) assert.ok(prefixed[i - 1]! < prefixed[i]!, `${prefixed[i - 1]} < ${prefixed[i]}`);
  // The same clock gives a prefixed id that sorts after the one made a millisecond earlier.
  const t = Date.now() + 10_000;
  assert.ok(newPrefixedId("a_", t) < newPrefixedId("a_", t + 1));
  assert.ok(isIdOf(UUID, makeId(UUID)));
  assert.ok(isIdOf(undefined, makeId(undefined)), "no form: UUIDs");
  assert.ok(isIdOf(CUS, makeId(CUS)));
  assert.ok(makeId(CUS).startsWith("cus_"));
});

test("isIdOf: each form accepts its own ids only, in the one way the service writes them", () => {
  const cases: [IdForm | undefined, string, boolean][] = [
    [UUID, newId(), true],
    [undefined, "0190b6c2-7d4e-7a10-8f3e-5b2c9d1e4f60", true],
    [UUID, "0190B6C2-7D4E-7A10-8F3E-5B2C9D1E4F60", false],
    [UUID, "0190b6c27d4e7a108f3e5b2c9d1e4f60", false],
    [UUID, "nope", false],
    [UUID, "", false],
    [CUS, "cus_0Pq3xG8nVbW2kLm5sT9cRd", true],
    [CUS, "cus_0Pq3xG8nVbW2kLm5sT9cR", false],
    [CUS, "cus_0Pq3xG8nVbW2kLm5sT9cRdd", false],
    [CUS, "acct_0Pq3xG8nVbW2kLm5sT9cR", false],
    [CUS, "cus_0Pq3xG8nVbW2kLm5sT9c-d", false],
    [CUS, "0190b6c2-7d4e-7a10-8f3e-5b2c9d1e4f60", false],
    [SEQ, "1", true],
    [SEQ, "42", true],
    [SEQ, "999999999999999", true],
    [SEQ, "9999999999999999", false],
    [SEQ, "0", false],
    [SEQ, "042", false],
    [SEQ, "4.0", false],
    [SEQ, "1e3", false],
    [SEQ, "-1", false],
    [SEQ, "+1", false],
    [SEQ, " 1", false],
    [SEQ, "abc", false],
    [SEQ, "", false],
  ];
  for (const [form, id, expected] of cases) {
    assert.is(isIdOf(form, id), expected, `${form?.kind ?? "none"} ${JSON.stringify(id)}`);
    // Only a sequence's integer key needs the form before a lookup: a string key finds nothing of another form.
    assert.is(mayName(form, id), form?.kind === "sequence" ? expected : true, `mayName ${form?.kind ?? "none"} ${JSON.stringify(id)}`);
  }
  assert.is(idValue(SEQ, "42"), 42);
  assert.is(idValue(CUS, "cus_x"), "cus_x");
  assert.is(idValue(undefined, "x"), "x");
  assert.match(describeIdForm(SEQ), /integers/);
  assert.match(describeIdForm(CUS), /"cus_"/);
});

test("what resourcery states of each form (OpenAPI's id schema, the docs' examples) holds for the ids the runtime makes", () => {
  for (const form of [UUID, CUS, SEQ]) {
    const schema = idSchemaOf(form);
    const made = form.kind === "sequence" ? ["1", "2", "12345"] : Array.from({ length: 50 }, () => makeId(form));
    for (const id of made) {
      assert.is(misfit(schema, { value: idValue(form, id), formats: form.kind === "uuid" ? ["uuid"] : [] }), undefined, `${id} fits ${JSON.stringify(schema)}`);
      assert.ok(isIdOf(form, id));
    }
    for (const n of [0, 1, 2]) assert.ok(isIdOf(form, String(exampleId(form, n))), `example ${exampleId(form, n)} is an id of ${form.kind}`);
  }
});

// ---------------------------------------------------------------------------------------------------
// A spec with one resource per form: customers (cus_…), orders (a sequence) linking a customer, tags (UUIDs)
// listing orders.
// ---------------------------------------------------------------------------------------------------

const BASE = "https://api.example.com/v1";
const DOCS = "https://docs.example.com/errors";
const LINK_INPUT = { type: "object", required: ["meta"], properties: { meta: { type: "object", required: ["href"], properties: { href: { type: "string", minLength: 1 } } } } };
const type = (subject: string) => `application/vnd.shop.v1.${subject}+json`;

function resource(name: string, collection: string, idForm: IdForm | undefined, fields: ResourceSpec["fields"], body: Record<string, JsonSchema>, required: string[] = []): ResourceSpec {
  return {
    name,
    collection,
    fields,
    required,
    unique: [],
    access: {},
    owner: undefined,
    mediaType: type(name),
    collectionMediaType: type(collection),
    ...(idForm ? { idForm } : {}),
    bodySchema: { type: "object", additionalProperties: false, required, properties: body },
  };
}

const RESOURCES: ResourceSpec[] = [
  resource("customer", "customers", CUS, [{ name: "name", kind: "string" }, { name: "orders", kind: "links", link: { kind: "collection", target: "orders", inverse: "customer" } }], { name: { type: "string" } }, ["name"]),
  resource("order", "orders", SEQ, [{ name: "total", kind: "number" }, { name: "customer", kind: "link", link: { kind: "instance", target: "customers" } }], { total: { type: "number" }, customer: LINK_INPUT }, ["customer"]),
  resource("tag", "tags", undefined, [{ name: "label", kind: "string" }, { name: "orders", kind: "links", link: { kind: "collection", target: "orders" } }], { label: { type: "string" }, orders: { type: "array", items: LINK_INPUT } }),
];

const spec: ServiceSpec = {
  name: "shop",
  title: "Shop",
  vendor: "shop",
  version: 1,
  baseUrl: BASE,
  errorDocsUrl: DOCS,
  auth: { schemes: ["bearer"], realm: "Shop" },
  paging: { defaultLimit: 25, maxLimit: 100 },
  bodyLimit: 1_048_576,
  resources: RESOURCES,
  actions: [],
  errors: BUILTIN_ERRORS.map((e) => ({ ...e, info: `${DOCS}/${e.code}` })),
  mediaTypes: [
    { subject: "error", kind: "error" as const },
    ...RESOURCES.flatMap((r) => [
      { subject: r.name, kind: "instance" as const },
      { subject: r.collection, kind: "collection" as const },
    ]),
  ].map((t): MediaTypeSpec => ({ name: type(t.subject), alias: `application/shop.v1.${t.subject}.json`, subject: t.subject, kind: t.kind, version: 1 })),
};

const record = (id: string, data: Json = {}, at = "2024-01-15T10:30:00.000Z"): StoredRecord => ({ id, createdAt: at, modifiedAt: at, data });

async function withStore(fn: (store: Store, file: string) => Promise<void>): Promise<void> {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), "resourcery-ids-"));
  const file = path.join(dir, "shop.db");
  const store = openSqliteStore(spec, file);
  try {
    await fn(store, file);
  } finally {
    await store.close();
    fs.rmSync(dir, { recursive: true, force: true });
  }
}

test("a sequence: the store numbers 1, 2, 3 …; a deleted number is never given again; an undone create's may be", () =>
  withStore(async (store) => {
    const next = () => store.nextId!("orders");
    assert.equal([await next(), await next(), await next()], ["1", "2", "3"]);
    for (const id of ["1", "2", "3"]) await store.insert("orders", record(id, { total: 1 }));
    assert.ok(await store.delete("orders", "3"));
    assert.is(await next(), "4", "the largest number, deleted, is not given again");
    await rejects(
      store.transaction!(async (tx) => {
        assert.is(await tx.nextId!("orders"), "5");
        throw new Error("undone");
      }),
      /undone/,
    );
    assert.is(await next(), "5", "a number taken in a transaction that was rolled back was never an instance's");
    await rejects(store.nextId!("tags"), /not a sequence/);
  }));

test("two stores on one file (two processes) number one sequence: creates interleaved in transactions never repeat a number", () =>
  withStore(async (store, file) => {
    const other = openSqliteStore(spec, file);
    try {
      const createIn = (s: Store) => s.transaction!(async (tx) => {
        const id = await tx.nextId!("orders");
        await new Promise((resolve) => setTimeout(resolve, 1)); // the other store's create waits its turn meanwhile
        await tx.insert("orders", record(id, { total: 1 }));
        return id;
      });
      const ids = await Promise.all(Array.from({ length: 20 }, (_, i) => createIn(i % 2 === 0 ? store : other)));
      assert.equal([...ids].map(Number).sort((a, b) => a - b), Array.from({ length: 20 }, (_, i) => i + 1));
      assert.is((await store.list("orders", { offset: 0, limit: 50 })).size, 20);
    } finally {
      await other.close();
    }
  }));

test("a sequence's ids are an INTEGER key: ids come back as text, lists order them as numbers, stored lists and existence work", () =>
  withStore(async (store) => {
    for (let i = 1; i <= 12; i++) await store.insert("orders", record(String(i), { total: i }));
    const page = await store.list("orders", { offset: 0, limit: 20 });
    assert.equal(page.items.map((r) => r.id), ["1", "2", "3", "4", "5", "6", "7", "8", "9", "10", "11", "12"], "10 after 9, though created at the same instant");
    assert.is((await store.get("orders", "10"))!.id, "10");
    assert.equal(await store.existing("orders", ["10", "99"]), new Set(["10"]));
    assert.equal(await store.existing("orders", ["12"]), new Set(["12"]));
    const listed = await store.list("orders", { offset: 0, limit: 20, ids: ["11", "2", "40"] });
    assert.equal(listed.items.map((r) => r.id), ["11", "2"]);
    await store.insert("tags", record("0190b6c2-7d4e-7a10-8f3e-5b2c9d1e4f60", { label: "t", orders: ["11", "2"] }));
    const holding = await store.list("tags", { offset: 0, limit: 5, where: { field: "orders", contains: "11" } });
    assert.is(holding.size, 1);
  }));

test("ids cannot change form in place: a database made with string ids refuses a sequence at start-up, and the other way round", () =>
  withStore(async (_store, file) => {
    const asText = { ...spec, resources: spec.resources.map((r) => (r.collection === "orders" ? { ...r, idForm: UUID } : r)) };
    assert.throws(() => openSqliteStore(asText, file), /"orders" in this database have integer ids, and the definitions now ask for string ids/);
    const asSequence = { ...spec, resources: spec.resources.map((r) => (r.collection === "tags" ? { ...r, idForm: SEQ } : r)) };
    assert.throws(() => openSqliteStore(asSequence, file), /"tags" in this database have string ids, and the definitions now ask for integer ids \("x-id": "sequence"\)/);
  }));

// ---------------------------------------------------------------------------------------------------
// The routes
// ---------------------------------------------------------------------------------------------------

interface Harness {
  readonly app: FastifyInstance;
  readonly store: Store;
  readonly secret: string;
}

async function withApp(fn: (h: Harness) => Promise<void>): Promise<void> {
  const store = openSqliteStore(spec, ":memory:");
  const keys = KeyRing.memory();
  const h = { store, secret: keys.create([]).secret, app: await buildApp({ spec, store, keys }) };
  try {
    await fn(h);
  } finally {
    await h.app.close();
    await store.close();
  }
}

async function call(h: Harness, method: string, url: string, body?: unknown): Promise<LightMyRequestResponse> {
  const headers: Record<string, string> = { authorization: `Bearer ${h.secret}` };
  if (body !== undefined) headers["content-type"] = "application/json";
  return h.app.inject({ method: method as "GET", url: `/v1${url}`, headers, ...(body !== undefined ? { payload: JSON.stringify(body) } : {}) });
}

async function create(h: Harness, collection: string, body: Json): Promise<Json> {
  const res = await call(h, "POST", `/${collection}`, body);
  assert.is(res.statusCode, 201, res.body);
  const made = JSON.parse(res.body) as Json;
  assert.is(res.headers.location, made.meta.href);
  return made;
}

const linkTo = (x: Json) => ({ meta: { href: x.meta.href } });

/** The code and property of an error answer, checked against its status. */
function error(res: LightMyRequestResponse, status: number): [number, string, string] {
  assert.is(res.statusCode, status, res.body);
  const body = JSON.parse(res.body) as Json;
  return [body.code, body.property, body.dev];
}

test("representations carry each form's id: a prefixed string, a number for a sequence, a UUID; hrefs end in it", () =>
  withApp(async (h) => {
    const ann = await create(h, "customers", { name: "Ann" });
    assert.match(ann.id, /^cus_[0-9A-Za-z]{22}$/);
    assert.is(ann.meta.href, `${BASE}/customers/${ann.id}`);
    const first = await create(h, "orders", { total: 10, customer: linkTo(ann) });
    const second = await create(h, "orders", { total: 20, customer: linkTo(ann) });
    assert.equal([first.id, second.id], [1, 2]);
    assert.is(first.meta.href, `${BASE}/orders/1`);
    assert.equal(first.customer, { meta: { href: ann.meta.href, mediaType: type("customer") } });
    const tag = await create(h, "tags", { label: "big", orders: [linkTo(second), { meta: { href: "/v1/orders/1" } }] });
    assert.ok(isIdOf(UUID, tag.id));
    const got = JSON.parse((await call(h, "GET", "/orders/2")).body) as Json;
    assert.equal([got.id, got.total], [2, 20]);
    const picked = JSON.parse((await call(h, "GET", "/orders/2?fields=id")).body) as Json;
    assert.equal(picked, { meta: first.meta.href === picked.meta.href ? first.meta : second.meta, id: 2 });
    // Expanded across forms: an order's customer, a customer's orders (inverse), a tag's stored list.
    const expanded = JSON.parse((await call(h, "GET", "/orders/1?expand=customer")).body) as Json;
    assert.is(expanded.customer.id, ann.id);
    const orders = JSON.parse((await call(h, "GET", `/customers/${ann.id}/orders`)).body) as Json;
    assert.equal(orders.items.map((o: Json) => o.id), [1, 2]);
    const listed = JSON.parse((await call(h, "GET", `/tags/${tag.id}?expand=orders`)).body) as Json;
    assert.equal(listed.orders.items.map((o: Json) => o.id), [2, 1], "a stored list keeps its order");
    const page = JSON.parse((await call(h, "GET", "/orders")).body) as Json;
    assert.equal(page.items.map((o: Json) => o.id), [1, 2]);
  }));

test("an id not of the collection's form names nothing: 404 for paths, 400 invalidLink naming the form for links, never a 500", () =>
  withApp(async (h) => {
    const ann = await create(h, "customers", { name: "Ann" });
    const order = await create(h, "orders", { total: 1, customer: linkTo(ann) });
    const tag = await create(h, "tags", { label: "t", orders: [linkTo(order)] });
    const notFound = BUILTIN_ERRORS.find((e) => e.key === "notFound")!.code;
    const invalidLink = BUILTIN_ERRORS.find((e) => e.key === "invalidLink")!.code;
    for (const bad of ["01", "1.0", "0", "-1", "1e0", "abc", "99999999999999999999", ann.id, tag.id]) {
      for (const method of ["GET", "PATCH", "PUT", "DELETE"]) {
        const res = await call(h, method, `/orders/${encodeURIComponent(bad)}`, method === "PATCH" || method === "PUT" ? { total: 2, customer: linkTo(ann) } : undefined);
        assert.equal(error(res, 404).slice(0, 2), [notFound, ""], `${method} /orders/${bad}`);
      }
    }
    for (const bad of ["cus_short", order.meta.href.split("/").pop()!, tag.id, ann.id.replace("cus_", "acct_")]) {
      assert.equal(error(await call(h, "GET", `/customers/${bad}`), 404).slice(0, 2), [notFound, ""], bad);
      assert.equal(error(await call(h, "GET", `/customers/${bad}/orders`), 404).slice(0, 2), [notFound, ""], bad);
    }
    assert.equal(error(await call(h, "GET", "/tags/1"), 404).slice(0, 2), [notFound, ""]);
    assert.equal(error(await call(h, "DELETE", `/tags/${tag.id}/orders/01`), 404).slice(0, 2), [notFound, ""], "a member's id too");
    const [code, property, dev] = error(await call(h, "POST", "/orders", { total: 1, customer: { meta: { href: `${BASE}/customers/cus_nope` } } }), 400);
    assert.equal([code, property], [invalidLink, "customer"]);
    assert.match(dev, /names no existing customer \(the ids of customers are "cus_" and 22 letters and digits\)/);
    const [, listProperty, listDev] = error(await call(h, "POST", `/tags/${tag.id}/orders`, { meta: { href: `${BASE}/orders/007` } }), 400);
    assert.is(listProperty, "orders");
    assert.match(listDev, /integers from 1/);
    assert.equal(error(await call(h, "POST", "/tags", { label: "x", orders: [{ meta: { href: `${BASE}/orders/1.0` } }] }), 400).slice(0, 2), [invalidLink, "orders"]);
    assert.is(matchLink(`${BASE}/orders/1`, BASE, RESOURCES[1]!).id, "1");
  }));

test("deletes across forms: a member by its number, an order, then its customer; numbers go on after a delete", () =>
  withApp(async (h) => {
    const ann = await create(h, "customers", { name: "Ann" });
    const o1 = await create(h, "orders", { total: 1, customer: linkTo(ann) });
    const o2 = await create(h, "orders", { total: 2, customer: linkTo(ann) });
    const tag = await create(h, "tags", { label: "t", orders: [linkTo(o1), linkTo(o2)] });
    assert.is((await call(h, "DELETE", `/tags/${tag.id}/orders/1`)).statusCode, 204);
    assert.equal((JSON.parse((await call(h, "GET", `/tags/${tag.id}/orders`)).body) as Json).items.map((o: Json) => o.id), [2]);
    assert.is(error(await call(h, "DELETE", `/customers/${ann.id}`), 409)[1], "orders.customer");
    assert.is((await call(h, "DELETE", "/orders/2")).statusCode, 204);
    assert.is((await call(h, "DELETE", "/orders/1")).statusCode, 204);
    assert.is((await call(h, "GET", "/orders/2")).statusCode, 404);
    assert.equal((JSON.parse((await call(h, "GET", `/tags/${tag.id}/orders`)).body) as Json).items, [], "the deleted order left the list");
    assert.is((await call(h, "DELETE", `/customers/${ann.id}`)).statusCode, 204);
    const ben = await create(h, "customers", { name: "Ben" });
    assert.is((await create(h, "orders", { total: 3, customer: linkTo(ben) })).id, 3);
  }));

test("a service whose ids include a sequence refuses to start on a store that cannot number them", async () => {
  const store = openSqliteStore(spec, ":memory:");
  const bare = requiredOnly(store);
  try {
    await rejects(buildApp({ spec, store: bare, keys: KeyRing.memory() }), /the store has no nextId\(\), which the ids of orders need/);
  } finally {
    await store.close();
  }
});

test.run();
