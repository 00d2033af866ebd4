/**
 * The embedded SQLite store: schema creation and migration from the spec, the Store contract
 * (insert/get/existing/list/update/delete), UniqueViolation mapping, paging and narrowing, remembered
 * collection sizes, and concurrent writers (one process, two connections, worker threads).
 */
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { fileURLToPath, pathToFileURL } from "node:url";
import { Worker } from "node:worker_threads";
import Database from "better-sqlite3";
import { test } from "uvu";
import * as assert from "uvu/assert";
import type { FieldSpec, ResourceSpec, ServiceSpec } from "../../../templates/runtime/spec.js";
import { openSqliteStore, openSqliteStoreInParallel } from "../../../templates/runtime/sqlite-store.js";
import { StoreBusy, UniqueViolation, type StoredRecord } from "../../../templates/runtime/store.js";
import { testResource, testSpec } from "../../helpers/stores.js";

const storeModule = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "../../../templates/runtime/sqlite-store.ts");

function resource(collection: string, fields: FieldSpec[], unique: string[] = [], owner?: string): ResourceSpec {
  return testResource(collection, fields, unique, { owner });
}

function makeSpec(opts: { accountUnique?: string[]; bookLinks?: boolean; extra?: ResourceSpec[] } = {}): ServiceSpec {
  const accounts = resource(
    "accounts",
    [
      { name: "email", kind: "string" },
      { name: "handle", kind: "string" },
      { name: "name", kind: "string" },
      { name: "books", kind: "links", link: { kind: "collection", target: "books", inverse: "author" } },
    ],
    opts.accountUnique ?? ["email"],
    "owner",
  );
  const bookFields: FieldSpec[] = [
    { name: "title", kind: "string" },
    { name: "tags", kind: "array" },
  ];
  if (opts.bookLinks !== false) {
    bookFields.push({ name: "author", kind: "link", link: { kind: "instance", target: "accounts" } });
    bookFields.push({ name: "related", kind: "links", link: { kind: "collection", target: "books" } });
  }
  return testSpec([accounts, resource("books", bookFields), ...(opts.extra ?? [])], "test-service");
}

let clock = 0;
function rec(id: string, data: Record<string, unknown>, extra: Partial<StoredRecord> = {}): StoredRecord {
  const t = new Date(Date.UTC(2024, 0, 1) + clock++ * 1000).toISOString();
  return { id, createdAt: t, modifiedAt: t, data, ...extra };
}

function tempDir(): string {
  return fs.mkdtempSync(path.join(os.tmpdir(), "rsc-store-"));
}

function indexNames(file: string, table: string): string[] {
  const db = new Database(file, { readonly: true });
  try {
    return (db.prepare(`SELECT name FROM sqlite_master WHERE type='index' AND tbl_name=? AND name LIKE 'rsc%' ORDER BY name`).all(table) as { name: string }[]).map((r) => r.name);
  } finally {
    db.close();
  }
}

async function rejectsWith(p: Promise<unknown>, check: (e: unknown) => void): Promise<void> {
  try {
    await p;
  } catch (error) {
    check(error);
    return;
  }
  assert.unreachable("expected a rejection");
}

test("insert then get returns the same record; owner is kept, or absent when there is none", async () => {
  const store = openSqliteStore(makeSpec(), ":memory:");
  const a = rec("a1", { email: "a@x.org", name: "Ann", nested: { list: [1, "two", null], ok: true }, text: "ünïcødé ✓ \"q\" \\" });
  const b = rec("b1", { title: "T" });
  await store.insert("accounts", { ...a, owner: "key-1" });
  await store.insert("books", b);
  assert.equal(await store.get("accounts", "a1"), { ...a, owner: "key-1" });
  const book = await store.get("books", "b1");
  assert.equal(book, b);
  assert.not.ok(book && "owner" in book);
  assert.is(await store.get("accounts", "nope"), undefined);
  assert.is(await store.get("books", "a1"), undefined, "collections are separate tables");
  // Its immediate reads (what a GET uses) answer the same, without a promise.
  assert.equal(store.immediate.get("accounts", "a1"), { ...a, owner: "key-1" });
  assert.equal(store.immediate.get("books", "b1"), b);
  assert.is(store.immediate.get("accounts", "nope"), undefined);
  assert.is(store.immediate.get("books", "a1"), undefined);
  await store.close();
});

test("a repeated x-unique value is a UniqueViolation naming collection and property", async () => {
  const store = openSqliteStore(makeSpec({ accountUnique: ["email", "handle"] }), ":memory:");
  await store.insert("accounts", rec("a1", { email: "a@x.org", handle: "ann" }));
  await rejectsWith(store.insert("accounts", rec("a2", { email: "a@x.org", handle: "bob" })), (e) => {
    assert.instance(e, UniqueViolation);
    assert.is((e as UniqueViolation).collection, "accounts");
    assert.is((e as UniqueViolation).property, "email");
  });
  await rejectsWith(store.insert("accounts", rec("a3", { email: "b@x.org", handle: "ann" })), (e) => {
    assert.instance(e, UniqueViolation);
    assert.is((e as UniqueViolation).property, "handle");
  });
  assert.is(await store.get("accounts", "a2"), undefined, "nothing was written");
  // Same value in a different JSON type is a different value; absent values never collide.
  await store.insert("accounts", rec("a4", { email: "A@x.org" }));
  await store.insert("accounts", rec("a5", {}));
  await store.insert("accounts", rec("a6", { email: null }));
  await store.insert("accounts", rec("a7", {}));
  await store.close();
});

test("a duplicate primary key is not reported as a UniqueViolation", async () => {
  const store = openSqliteStore(makeSpec(), ":memory:");
  await store.insert("accounts", rec("a1", { email: "a@x.org" }));
  await rejectsWith(store.insert("accounts", rec("a1", { email: "b@x.org" })), (e) => {
    assert.not.instance(e, UniqueViolation);
    assert.match(String(e), /UNIQUE/);
  });
  await store.close();
});

test("update replaces data and modifiedAt only; UniqueViolation on a taken value; false when missing", async () => {
  const store = openSqliteStore(makeSpec(), ":memory:");
  const a = rec("a1", { email: "a@x.org", name: "Ann" }, { owner: "k1" });
  await store.insert("accounts", a);
  await store.insert("accounts", rec("a2", { email: "b@x.org" }));
  const changed: StoredRecord = { id: "a1", createdAt: "ignored", modifiedAt: "2030-01-01T00:00:00.000Z", owner: "other", data: { email: "a@x.org", name: "Anna" } };
  assert.is(await store.update("accounts", changed), true, "keeping its own unique value is fine");
  assert.equal(await store.get("accounts", "a1"), { ...a, modifiedAt: changed.modifiedAt, data: changed.data });
  await rejectsWith(store.update("accounts", { ...changed, data: { email: "b@x.org" } }), (e) => {
    assert.instance(e, UniqueViolation);
    assert.is((e as UniqueViolation).property, "email");
  });
  assert.equal((await store.get("accounts", "a1"))?.data, changed.data, "a failed update changes nothing");
  assert.is(await store.update("accounts", { ...changed, id: "zz" }), false);
  // Freed values can be taken again.
  assert.is(await store.update("accounts", { ...changed, data: { email: "c@x.org" } }), true);
  await store.insert("accounts", rec("a3", { email: "a@x.org" }));
  await store.close();
});

test("delete reports whether there was something to delete", async () => {
  const store = openSqliteStore(makeSpec(), ":memory:");
  await store.insert("books", rec("b1", { title: "x" }));
  assert.is(await store.delete("books", "b1"), true);
  assert.is(await store.delete("books", "b1"), false);
  assert.is(await store.get("books", "b1"), undefined);
  await store.close();
});

test("existing answers which ids exist, in one query, ignoring other collections", async () => {
  const store = openSqliteStore(makeSpec(), ":memory:");
  for (const id of ["b1", "b2", "b3"]) await store.insert("books", rec(id, {}));
  await store.insert("accounts", rec("a1", {}));
  assert.equal(await store.existing("books", ["b3", "x", "b1", "a1", "b1"]), new Set(["b3", "b1"]));
  assert.equal(await store.existing("books", []), new Set());
  // One id (the usual case: a link in a body) takes a primary-key probe: same answers.
  assert.equal(await store.existing("books", ["b2"]), new Set(["b2"]));
  assert.equal(await store.existing("books", ["a1"]), new Set(), "an id of another collection");
  assert.equal(await store.existing("books", ["x"]), new Set());
  const many = Array.from({ length: 5000 }, (_, i) => `id${i}`).concat("b2");
  assert.equal(await store.existing("books", many), new Set(["b2"]), "no limit on the number of ids");
  await store.close();
});

test("list pages in created_at then id order and reports the size of the whole collection", async () => {
  const store = openSqliteStore(makeSpec(), ":memory:");
  const same = "2024-06-01T00:00:00.000Z";
  // Inserted out of order; two share a created_at and are ordered by id.
  await store.insert("books", { id: "c", createdAt: "2024-07-01T00:00:00.000Z", modifiedAt: same, data: { n: 3 } });
  await store.insert("books", { id: "b", createdAt: same, modifiedAt: same, data: { n: 2 } });
  await store.insert("books", { id: "a", createdAt: same, modifiedAt: same, data: { n: 1 } });
  await store.insert("books", { id: "d", createdAt: "2024-01-01T00:00:00.000Z", modifiedAt: same, data: { n: 0 } });
  const ids = async (q: { offset: number; limit: number }) => {
    const page = await store.list("books", q);
    return { ids: page.items.map((r) => r.id), size: page.size };
  };
  assert.equal(await ids({ offset: 0, limit: 10 }), { ids: ["d", "a", "b", "c"], size: 4 });
  assert.equal(await ids({ offset: 1, limit: 2 }), { ids: ["a", "b"], size: 4 });
  assert.equal(await ids({ offset: 3, limit: 2 }), { ids: ["c"], size: 4 });
  assert.equal(await ids({ offset: 9, limit: 2 }), { ids: [], size: 4 });
  assert.equal(await ids({ offset: 0, limit: 0 }), { ids: [], size: 4 });
  assert.equal(await ids({ offset: -5, limit: -1 }), { ids: [], size: 4 }, "negative numbers never mean 'no limit'");
  const page = await store.list("books", { offset: 0, limit: 1 });
  assert.equal(page.items[0], { id: "d", createdAt: "2024-01-01T00:00:00.000Z", modifiedAt: same, data: { n: 0 } });
  assert.equal(await store.list("accounts", { offset: 0, limit: 10 }), { items: [], size: 0 });
  await store.close();
});

test("list narrows by owner, by a field's value, and by both", async () => {
  const store = openSqliteStore(makeSpec(), ":memory:");
  await store.insert("books", rec("b1", { title: "1", author: "a1" }, { owner: "k1" }));
  await store.insert("books", rec("b2", { title: "2", author: "a2" }, { owner: "k1" }));
  await store.insert("books", rec("b3", { title: "3", author: "a1" }, { owner: "k2" }));
  await store.insert("books", rec("b4", { title: "4", author: "a1" }));
  await store.insert("books", rec("b5", { title: "5", author: "a1" }, { owner: "k1" }));
  const ids = async (q: Parameters<typeof store.list>[1]) => {
    const p = await store.list("books", q);
    return [p.items.map((r) => r.id).join(","), p.size];
  };
  assert.equal(await ids({ offset: 0, limit: 10, owner: "k1" }), ["b1,b2,b5", 3]);
  assert.equal(await ids({ offset: 1, limit: 1, owner: "k1" }), ["b2", 3]);
  assert.equal(await ids({ offset: 0, limit: 10, owner: "nobody" }), ["", 0]);
  assert.equal(await ids({ offset: 0, limit: 10, where: { field: "author", equals: "a1" } }), ["b1,b3,b4,b5", 4]);
  assert.equal(await ids({ offset: 2, limit: 10, where: { field: "author", equals: "a1" } }), ["b4,b5", 4]);
  assert.equal(await ids({ offset: 0, limit: 10, where: { field: "author", equals: "a1" }, owner: "k1" }), ["b1,b5", 2]);
  assert.equal(await ids({ offset: 0, limit: 10, where: { field: "title", equals: "3" } }), ["b3", 1], "any declared field");
  await rejectsWith(store.list("books", { offset: 0, limit: 10, where: { field: "nope') OR 1=1 --", equals: "x" } }), (e) =>
    assert.match(String(e), /no field/),
  );
  await store.close();
});

test("list with ids returns those that exist, in the given order, paged, with the narrowed size", async () => {
  const store = openSqliteStore(makeSpec(), ":memory:");
  for (const id of ["b1", "b2", "b3", "b4"]) await store.insert("books", rec(id, { author: id === "b2" ? "a2" : "a1" }, { owner: id === "b4" ? "k2" : "k1" }));
  const ids = async (q: Parameters<typeof store.list>[1]) => {
    const p = await store.list("books", q);
    return [p.items.map((r) => r.id).join(","), p.size];
  };
  const order = ["b3", "gone", "b1", "b4", "b2"];
  assert.equal(await ids({ offset: 0, limit: 10, ids: order }), ["b3,b1,b4,b2", 4]);
  assert.equal(await ids({ offset: 1, limit: 2, ids: order }), ["b1,b4", 4]);
  assert.equal(await ids({ offset: 4, limit: 2, ids: order }), ["", 4]);
  assert.equal(await ids({ offset: 0, limit: 10, ids: ["b2", "b1", "b2"] }), ["b2,b1", 2], "a repeated id counts once");
  assert.equal(await ids({ offset: 0, limit: 10, ids: [] }), ["", 0]);
  assert.equal(await ids({ offset: 0, limit: 10, ids: order, owner: "k1" }), ["b3,b1,b2", 3]);
  assert.equal(await ids({ offset: 0, limit: 10, ids: order, where: { field: "author", equals: "a1" } }), ["b3,b1,b4", 3]);
  await store.close();
});

test("a remembered size follows every write through the store: insert, delete, and an update that moves a record between narrowings", async () => {
  const store = openSqliteStore(makeSpec(), ":memory:");
  const sizes = async () =>
    [
      (await store.list("books", { offset: 0, limit: 1 })).size,
      (await store.list("books", { offset: 0, limit: 1, owner: "k1" })).size,
      (await store.list("books", { offset: 0, limit: 1, where: { field: "author", equals: "a1" } })).size,
      (await store.list("books", { offset: 0, limit: 1, where: { field: "author", equals: "a2" } })).size,
    ].join(",");
  assert.is(await sizes(), "0,0,0,0");
  await store.insert("books", rec("b1", { author: "a1" }, { owner: "k1" }));
  assert.is(await sizes(), "1,1,1,0");
  assert.is(await sizes(), "1,1,1,0", "asked again with nothing written");
  await store.insert("books", rec("b2", { author: "a1" }));
  assert.is(await sizes(), "2,1,2,0");
  await store.update("books", rec("b2", { author: "a2" }));
  assert.is(await sizes(), "2,1,1,1");
  await rejectsWith(store.insert("books", rec("b2", {})), () => undefined);
  assert.is(await sizes(), "2,1,1,1", "a failed write changes nothing");
  await store.delete("books", "b1");
  assert.is(await sizes(), "1,0,0,1");
  await store.delete("books", "gone");
  assert.is(await sizes(), "1,0,0,1");
  await store.close();
});

test("a remembered size follows writes by another connection to the same file", async () => {
  const dir = tempDir();
  try {
    const file = path.join(dir, "db.sqlite");
    const store = openSqliteStore(makeSpec(), file);
    const other = openSqliteStore(makeSpec(), file);
    const size = async (owner?: string) => (await store.list("books", { offset: 0, limit: 10, owner })).size;
    await store.insert("books", rec("b1", {}, { owner: "k1" }));
    assert.is(await size(), 1);
    assert.is(await size("k1"), 1);
    await other.insert("books", rec("b2", {}, { owner: "k1" }));
    assert.is(await size(), 2);
    assert.is(await size("k1"), 2);
    await other.delete("books", "b1");
    assert.is(await size(), 1);
    const raw = new Database(file);
    raw.prepare(`INSERT INTO books (id, created_at, modified_at, owner, data) VALUES ('b3', 'x', 'x', 'k2', '{}')`).run();
    raw.close();
    assert.is(await size(), 2, "a write outside any store is seen too");
    assert.equal((await store.list("books", { offset: 0, limit: 10 })).items.map((r) => r.id), ["b2", "b3"]);
    await store.close();
    await other.close();
  } finally {
    fs.rmSync(dir, { recursive: true, force: true });
  }
});

test("unknown collections and a closed store are errors, not silent", async () => {
  const store = openSqliteStore(makeSpec(), ":memory:");
  await rejectsWith(store.get("nope", "x"), (e) => assert.match(String(e), /unknown collection "nope"/));
  assert.throws(() => store.immediate.get("nope", "x"), /unknown collection "nope"/);
  await rejectsWith(store.insert("sqlite_master", rec("x", {})), (e) => assert.match(String(e), /unknown collection/));
  await store.close();
  await store.close();
  await rejectsWith(store.get("books", "x"), (e) => assert.match(String(e), /closed/));
  assert.throws(() => store.immediate.get("books", "x"), /closed/);
});

test("odd collection names are quoted", async () => {
  const odd = resource('we"ird; DROP TABLE x', [{ name: "v", kind: "string" }, { name: "p", kind: "link", link: { kind: "instance", target: "books" } }], ["v"]);
  const store = openSqliteStore(makeSpec({ extra: [odd] }), ":memory:");
  await store.insert(odd.collection, rec("o1", { v: "x", p: "b" }));
  await rejectsWith(store.insert(odd.collection, rec("o2", { v: "x" })), (e) => {
    assert.instance(e, UniqueViolation);
    assert.is((e as UniqueViolation).collection, odd.collection);
    assert.is((e as UniqueViolation).property, "v");
  });
  assert.is((await store.list(odd.collection, { offset: 0, limit: 5, where: { field: "p", equals: "b" } })).size, 1);
  await store.close();
});

/** Property names a definition may hold that SQL, JSON paths or index names could trip over. */
const HOSTILE_NAMES = [
  'a"b', '"', "a'b", "'", "a\\b", "\\", "a.b", "a[0]", "[0]", "$", "$.x", "a]b", "a b", " ", "%", "%u0022",
  "x'); DROP TABLE books; --", 'x"); DROP TABLE books; --', "a\nb", "\t", "\u0001", "\u007f", "a\u0000b",
  "é", "名前", "😀", "\u2028", "\ud800", "a\udc00b", "\\u0022", "rsc_unique:x", "",
];

test("hostile property names: x-unique and instance links on every one of them work, and reopening keeps their indexes", async () => {
  const dir = tempDir();
  try {
    const file = path.join(dir, "db.sqlite");
    const fields: FieldSpec[] = HOSTILE_NAMES.map((name) => ({ name, kind: "string" }));
    const linkName = 'ow"ner\'s \u0000 link';
    fields.push({ name: linkName, kind: "link", link: { kind: "instance", target: "books" } });
    const hostile = resource("hostiles", fields, HOSTILE_NAMES);
    const spec = makeSpec({ extra: [hostile] });
    const store = openSqliteStore(spec, file);
    const data = (n: number): Record<string, unknown> => Object.fromEntries([...HOSTILE_NAMES.map((name, i) => [name, `${i}-${n}`]), [linkName, `book-${n % 2}`]]);
    await store.insert("hostiles", rec("h1", data(1)));
    await store.insert("hostiles", rec("h2", data(2)));
    assert.equal((await store.get("hostiles", "h1"))?.data, data(1));
    for (const [i, name] of HOSTILE_NAMES.entries()) {
      // The same value again under one name is refused, and the violation names that property exactly.
      const clash = { ...data(3), [name]: `${i}-1` };
      await rejectsWith(store.insert("hostiles", rec(`c${i}`, clash)), (e) => {
        assert.instance(e, UniqueViolation, `${JSON.stringify(name)}: ${e}`);
        assert.is((e as UniqueViolation).property, name);
      });
    }
    await store.insert("hostiles", rec("h3", data(3)));
    const linked = await store.list("hostiles", { offset: 0, limit: 10, where: { field: linkName, equals: "book-1" } });
    assert.equal(linked.items.map((r) => r.id), ["h1", "h3"]);
    await store.close();
    const before = indexNames(file, "hostiles");
    assert.is(before.length, HOSTILE_NAMES.length + 3, before.join("\n"));
    const db = new Database(file, { readonly: true });
    const sql = (db.prepare(`SELECT name, sql FROM sqlite_master WHERE tbl_name = 'hostiles' ORDER BY name`).all() as { name: string; sql: string }[]);
    db.close();
    assert.ok(sql.every((r) => !/[\u0000-\u001f\ufffd]/.test(r.name + r.sql)), "no control character or replacement character in the schema");
    const again = openSqliteStore(spec, file);
    await rejectsWith(again.insert("hostiles", rec("h4", { ...data(4), [HOSTILE_NAMES[0]!]: "0-2" })), (e) => assert.instance(e, UniqueViolation));
    await again.close();
    const db2 = new Database(file, { readonly: true });
    assert.equal(db2.prepare(`SELECT name, sql FROM sqlite_master WHERE tbl_name = 'hostiles' ORDER BY name`).all(), sql, "reopening recreates nothing");
    db2.close();
  } finally {
    fs.rmSync(dir, { recursive: true, force: true });
  }
});

test("two names SQLite's JSON paths cannot tell apart (equal up to a U+0000) are a clear start-up error", () => {
  const clash = resource("clashes", [{ name: "a", kind: "string" }, { name: "a\u0000b", kind: "string" }], ["a"]);
  assert.throws(() => openSqliteStore(makeSpec({ extra: [clash] }), ":memory:"), /"a" and "a\\u0000b" of clashes differ only after a U\+0000/);
});

test("20 concurrent inserts of one unique value: exactly one succeeds, 19 are UniqueViolation", async () => {
  const store = openSqliteStore(makeSpec(), ":memory:");
  const results = await Promise.allSettled(
    Array.from({ length: 20 }, (_, i) => store.insert("accounts", rec(`c${i}`, { email: "same@x.org" }))),
  );
  const ok = results.filter((r) => r.status === "fulfilled");
  const violations = results.filter((r) => r.status === "rejected" && r.reason instanceof UniqueViolation);
  assert.is(ok.length, 1);
  assert.is(violations.length, 19);
  assert.is((await store.list("accounts", { offset: 0, limit: 100 })).size, 1);
  await store.close();
});

test("two connections to one file: the unique index holds across them", async () => {
  const dir = tempDir();
  try {
    const file = path.join(dir, "db.sqlite");
    const one = openSqliteStore(makeSpec(), file);
    const two = openSqliteStore(makeSpec(), file);
    const results = await Promise.allSettled(
      Array.from({ length: 20 }, (_, i) => (i % 2 ? one : two).insert("accounts", rec(`c${i}`, { email: "same@x.org" }))),
    );
    assert.is(results.filter((r) => r.status === "fulfilled").length, 1);
    assert.is(results.filter((r) => r.status === "rejected" && r.reason instanceof UniqueViolation).length, 19);
    await one.close();
    await two.close();
  } finally {
    fs.rmSync(dir, { recursive: true, force: true });
  }
});

test("worker threads writing one file in parallel: busy_timeout serialises them, one unique value wins", async () => {
  const dir = tempDir();
  try {
    const file = path.join(dir, "nested", "db.sqlite");
    const spec = makeSpec();
    await openSqliteStore(spec, file).close(); // create + migrate once, so the workers only write
    const code = `
      const { workerData, parentPort } = require("node:worker_threads");
      (async () => {
        // Workers do not inherit the tsx loader: load the TypeScript module through tsx's API.
        const { tsImport } = await import("tsx/esm/api");
        const { openSqliteStore } = await tsImport(workerData.module, workerData.module);
        const store = openSqliteStore(workerData.spec, workerData.file);
        const out = { ok: 0, unique: 0, other: [] };
        for (let i = 0; i < 25; i++) {
          const t = new Date().toISOString();
          const insert = (id, email) => store.insert("accounts", { id, createdAt: t, modifiedAt: t, data: { email } });
          try { await insert("w" + workerData.n + "-" + i, "same@x.org"); out.ok++; }
          catch (e) { if (e && e.name === "UniqueViolation") out.unique++; else out.other.push(String(e)); }
          await insert("w" + workerData.n + "-own-" + i, "w" + workerData.n + "-" + i + "@x.org");
        }
        await store.close();
        parentPort.postMessage(out);
      })().catch((e) => parentPort.postMessage({ ok: 0, unique: 0, other: [String(e && e.stack || e)] }));
    `;
    const runs = await Promise.all(
      [0, 1, 2, 3].map(
        (n) =>
          new Promise<{ ok: number; unique: number; other: string[] }>((resolve, reject) => {
            const w = new Worker(code, { eval: true, workerData: { module: pathToFileURL(storeModule).href, spec, file, n } });
            w.once("message", resolve);
            w.once("error", reject);
          }),
      ),
    );
    assert.equal(runs.flatMap((r) => r.other), []);
    assert.is(runs.reduce((s, r) => s + r.ok, 0), 1);
    assert.is(runs.reduce((s, r) => s + r.unique, 0), 99);
    const store = openSqliteStore(spec, file);
    assert.is((await store.list("accounts", { offset: 0, limit: 1 })).size, 101);
    await store.close();
  } finally {
    fs.rmSync(dir, { recursive: true, force: true });
  }
});

test("a write lock held by another process: the event loop keeps turning, the write is StoreBusy after busyTimeoutMs, or succeeds once the lock goes", async () => {
  const dir = tempDir();
  let gap = 0;
  let last = performance.now();
  const ticker = setInterval(() => {
    const now = performance.now();
    gap = Math.max(gap, now - last);
    last = now;
  }, 5);
  try {
    const file = path.join(dir, "db.sqlite");
    const store = openSqliteStore(makeSpec(), file, { busyTimeoutMs: 400 });
    await store.insert("accounts", rec("a0", { email: "a0@x.org" }));
    const other = new Database(file);
    other.exec("BEGIN IMMEDIATE");
    other.prepare(`INSERT INTO accounts (id, created_at, modified_at, owner, data) VALUES ('x', 'c', 'm', NULL, '{}')`).run();
    last = performance.now();
    gap = 0;
    const started = performance.now();
    const write = store.insert("accounts", rec("a1", { email: "a1@x.org" }));
    // Reads answer meanwhile (WAL: a reader waits for no writer).
    assert.is(store.immediate.get("accounts", "a0")?.id, "a0");
    assert.is((await store.list("accounts", { offset: 0, limit: 5 })).size, 1);
    await rejectsWith(write, (e) => {
      assert.instance(e, StoreBusy);
      assert.is((e as StoreBusy).code, "RSC_STORE_BUSY");
      assert.is((e as StoreBusy).retryAfterSeconds, 1);
    });
    const took = performance.now() - started;
    assert.ok(took >= 300 && took < 1500, `gave up after ${Math.round(took)} ms`);
    await rejectsWith(store.update("accounts", rec("a0", { email: "changed" })), (e) => assert.instance(e, StoreBusy));
    await rejectsWith(store.delete("accounts", "a0"), (e) => assert.instance(e, StoreBusy));
    // A lock released within the budget: the write waits for it and succeeds.
    const later = store.insert("accounts", rec("a2", { email: "a2@x.org" }));
    setTimeout(() => other.exec("COMMIT"), 150);
    await later;
    assert.ok(gap < 300, `the event loop stood still for ${Math.round(gap)} ms`);
    assert.equal((await store.list("accounts", { offset: 0, limit: 5 })).items.map((r) => r.id).sort(), ["a0", "a2", "x"]);
    assert.is(store.immediate.get("accounts", "a0")?.data.email, "a0@x.org", "the busy update changed nothing");
    other.close();
    await store.close();
  } finally {
    clearInterval(ticker);
    fs.rmSync(dir, { recursive: true, force: true });
  }
});

test("busyTimeoutMs must be a number of milliseconds", () => {
  assert.throws(() => openSqliteStore(makeSpec(), ":memory:", { busyTimeoutMs: -1 }), /busyTimeoutMs must be a number of milliseconds >= 0/);
  assert.throws(() => openSqliteStore(makeSpec(), ":memory:", { busyTimeoutMs: Number.NaN }), /busyTimeoutMs/);
});

test("a file store creates its folder, uses WAL, and keeps its data across close and reopen", async () => {
  const dir = tempDir();
  try {
    const file = path.join(dir, "a", "b", "service.db");
    const store = openSqliteStore(makeSpec(), file);
    const a = rec("a1", { email: "a@x.org", tags: ["x"] }, { owner: "k" });
    await store.insert("accounts", a);
    await store.insert("books", rec("b1", { author: "a1" }));
    await store.update("books", rec("b1", { author: "a1", title: "new" }));
    await store.close();
    const db = new Database(file, { readonly: true });
    assert.is(db.pragma("journal_mode", { simple: true }), "wal");
    db.close();
    const again = openSqliteStore(makeSpec(), file);
    assert.equal(await again.get("accounts", "a1"), a);
    assert.equal((await again.get("books", "b1"))?.data, { author: "a1", title: "new" });
    await rejectsWith(again.insert("accounts", rec("a2", { email: "a@x.org" })), (e) => assert.instance(e, UniqueViolation));
    await again.close();
  } finally {
    fs.rmSync(dir, { recursive: true, force: true });
  }
});

test("the schema has a unique index per x-unique property, one per instance link, owner and order", () => {
  const dir = tempDir();
  try {
    const file = path.join(dir, "db.sqlite");
    openSqliteStore(makeSpec({ accountUnique: ["email", "handle"] }), file).close();
    assert.equal(indexNames(file, "accounts"), ["rsc_order:accounts", "rsc_owner:accounts", "rsc_unique:accounts:email", "rsc_unique:accounts:handle"]);
    assert.equal(indexNames(file, "books"), ["rsc_link:books:author", "rsc_order:books", "rsc_owner:books"], "no index for collection links");
    const db = new Database(file, { readonly: true });
    const plan = (sql: string, ...args: unknown[]) =>
      (db.prepare(`EXPLAIN QUERY PLAN ${sql}`).all(...args) as { detail: string }[]).map((r) => r.detail).join(" | ");
    assert.match(plan(`SELECT * FROM books AS t WHERE json_extract(t.data, '$."author"') = ? ORDER BY t.created_at, t.id`, "a"), /USING INDEX rsc_link:books:author/);
    assert.match(plan(`SELECT * FROM accounts AS t WHERE t.owner = ? ORDER BY t.created_at, t.id`, "k"), /USING INDEX rsc_owner:accounts/);
    assert.match(plan(`SELECT * FROM accounts WHERE json_extract(data, '$."email"') = ?`, "e"), /USING INDEX rsc_unique:accounts:email/);
    assert.not.match(plan(`SELECT * FROM accounts AS t ORDER BY t.created_at, t.id LIMIT 5`), /TEMP B-TREE/);
    db.close();
  } finally {
    fs.rmSync(dir, { recursive: true, force: true });
  }
});

test("migration: x-unique added, removed, and refused when existing rows repeat a value", async () => {
  const dir = tempDir();
  try {
    const file = path.join(dir, "db.sqlite");
    let store = openSqliteStore(makeSpec({ accountUnique: ["email"] }), file);
    await store.insert("accounts", rec("a1", { email: "a@x.org", handle: "ann" }));
    await store.insert("accounts", rec("a2", { email: "b@x.org", handle: "bob" }));
    await store.close();

    // handle becomes unique as well: created, enforced.
    store = openSqliteStore(makeSpec({ accountUnique: ["email", "handle"] }), file);
    assert.equal(indexNames(file, "accounts").filter((n) => n.startsWith("rsc_unique")), ["rsc_unique:accounts:email", "rsc_unique:accounts:handle"]);
    await rejectsWith(store.insert("accounts", rec("a3", { email: "c@x.org", handle: "ann" })), (e) => assert.is((e as UniqueViolation).property, "handle"));
    await store.close();

    // email is no longer unique: its index goes, duplicates are accepted.
    store = openSqliteStore(makeSpec({ accountUnique: ["handle"] }), file);
    assert.equal(indexNames(file, "accounts").filter((n) => n.startsWith("rsc_unique")), ["rsc_unique:accounts:handle"]);
    await store.insert("accounts", rec("a4", { email: "a@x.org", handle: "dan" }));
    await store.close();

    // email unique again, but a1 and a4 share a value: a clear error, and the file is left as it was.
    assert.throws(
      () => openSqliteStore(makeSpec({ accountUnique: ["email"] }), file),
      (e: unknown) => e instanceof Error && /accounts\.email/.test(e.message) && /collection "accounts"/.test(e.message) && /property "email"/.test(e.message) && /"a@x\.org" appears 2 times/.test(e.message),
    );
    assert.equal(indexNames(file, "accounts").filter((n) => n.startsWith("rsc_unique")), ["rsc_unique:accounts:handle"], "rolled back");
    store = openSqliteStore(makeSpec({ accountUnique: ["handle"] }), file);
    assert.is((await store.list("accounts", { offset: 0, limit: 10 })).size, 3);
    await store.close();
  } finally {
    fs.rmSync(dir, { recursive: true, force: true });
  }
});

test("migration: an instance link removed from the spec loses its index; foreign and changed indexes are handled", async () => {
  const dir = tempDir();
  try {
    const file = path.join(dir, "db.sqlite");
    openSqliteStore(makeSpec(), file).close();
    const db = new Database(file);
    db.exec(`CREATE INDEX "mine" ON books (id)`); // not ours: left alone
    db.exec(`DROP INDEX "rsc_order:books"; CREATE INDEX "rsc_order:books" ON books (created_at)`); // ours, outdated
    db.close();
    openSqliteStore(makeSpec({ bookLinks: false }), file).close();
    assert.equal(indexNames(file, "books"), ["rsc_order:books", "rsc_owner:books"]);
    const check = new Database(file, { readonly: true });
    const sql = (name: string) => (check.prepare(`SELECT sql FROM sqlite_master WHERE name = ?`).get(name) as { sql: string } | undefined)?.sql;
    assert.ok(sql("mine"));
    assert.match(sql("rsc_order:books") ?? "", /\(created_at, id\)/);
    check.close();
  } finally {
    fs.rmSync(dir, { recursive: true, force: true });
  }
});

test("a table without the expected columns is a clear start-up error", () => {
  const dir = tempDir();
  try {
    const file = path.join(dir, "db.sqlite");
    const db = new Database(file);
    db.exec(`CREATE TABLE books (id TEXT PRIMARY KEY, body TEXT)`);
    db.close();
    assert.throws(() => openSqliteStore(makeSpec(), file), /table "books" exists but lacks column\(s\) created_at, modified_at, owner, data/);
  } finally {
    fs.rmSync(dir, { recursive: true, force: true });
  }
});

/** Runs `work` with every SQL text better-sqlite3 is given (prepare and exec, on any connection) recorded. */
function recordingSql<T>(work: () => T): { result: T; sql: string[] } {
  const sql: string[] = [];
  const proto = Database.prototype as unknown as { prepare: (s: string) => unknown; exec: (s: string) => unknown };
  const { prepare, exec } = proto;
  proto.prepare = function (this: unknown, s: string) {
    sql.push(s);
    return prepare.call(this, s);
  };
  proto.exec = function (this: unknown, s: string) {
    sql.push(s);
    return exec.call(this, s);
  };
  try {
    return { result: work(), sql };
  } finally {
    proto.prepare = prepare;
    proto.exec = exec;
  }
}

/** A spec of `n` more collections besides makeSpec's, each with an instance link to accounts. */
function wideSpec(n: number, opts: Parameters<typeof makeSpec>[0] = {}): ServiceSpec {
  const extra = Array.from({ length: n }, (_, i) => resource(`items${i}s`, [{ name: "account", kind: "link", link: { kind: "instance", target: "accounts" } }], ["code"]));
  return makeSpec({ ...opts, extra: [...extra, ...(opts.extra ?? [])] });
}

test("start-up reads sqlite_master a fixed number of times and prepares no collection's statements, whatever the number of collections", async () => {
  const dir = tempDir();
  try {
    const counts = (n: number) => {
      const file = path.join(dir, `wide-${n}.sqlite`);
      const created = recordingSql(() => openSqliteStore(wideSpec(n), file));
      const reopened = recordingSql(() => {
        void created.result.close();
        return openSqliteStore(wideSpec(n), file);
      });
      void reopened.result.close();
      const master = (sql: string[]) => sql.filter((s) => /sqlite_master/i.test(s)).length;
      const perCollection = (sql: string[]) => sql.filter((s) => /^(SELECT|INSERT|UPDATE|DELETE)\b/.test(s) && /"items\d+s"/.test(s)).length;
      return {
        master: [master(created.sql), master(reopened.sql)],
        prepared: [perCollection(created.sql), perCollection(reopened.sql)],
        ddl: reopened.sql.filter((s) => /^(CREATE|DROP)\b/.test(s)),
      };
    };
    const small = counts(3);
    const big = counts(60);
    assert.ok(small.master[0]! > 0, "the schema is read");
    assert.equal(big.master, small.master, "sqlite_master is read as often at 60 collections as at 3");
    assert.equal(big.prepared, [0, 0], "no statement of a collection is prepared before its first use");
    assert.equal(big.ddl, [], "reopening an up-to-date database changes no schema");

    // The first use prepares the collection's statements, on that connection only, once.
    const file = path.join(dir, "wide-60.sqlite");
    const store = openSqliteStore(wideSpec(60), file);
    const first = recordingSql(() => store.immediate.get("items7s", "x"));
    assert.is(first.result, undefined);
    assert.ok(first.sql.some((s) => /FROM "items7s" WHERE id = \?/.test(s)), "prepared on first use");
    assert.ok(first.sql.every((s) => !/"items8s"/.test(s)), "only the collection used");
    assert.equal(recordingSql(() => store.immediate.get("items7s", "y")).sql, [], "once");
    await store.insert("items7s", rec("i1", { account: "a1", code: "c1" }));
    assert.equal(store.immediate.get("items7s", "i1")?.data, { account: "a1", code: "c1" });
    await rejectsWith(store.insert("items7s", rec("i2", { code: "c1" })), (e) => assert.is((e as UniqueViolation).property, "code"));
    await store.close();
  } finally {
    fs.rmSync(dir, { recursive: true, force: true });
  }
});

test("migration of a database of many collections: a new collection is created, changed and dropped indexes are handled per table", async () => {
  const dir = tempDir();
  try {
    const file = path.join(dir, "db.sqlite");
    let store = openSqliteStore(wideSpec(20), file);
    await store.insert("items3s", rec("i1", { account: "a1", code: "c1" }));
    await store.insert("items3s", rec("i2", { account: "a2", code: "c2" }));
    await store.close();
    const db = new Database(file);
    db.exec(`DROP INDEX "rsc_order:items5s"; CREATE INDEX "rsc_order:items5s" ON items5s (created_at)`); // ours, outdated
    db.exec(`DROP INDEX "rsc_link:items9s:account"`); // ours, missing
    db.exec(`CREATE INDEX "rsc_link:items11s:gone" ON items11s (id)`); // ours, no longer wanted
    db.exec(`CREATE INDEX "theirs" ON items12s (id)`); // not ours: left alone
    db.close();

    const added = resource("newcomers", [{ name: "account", kind: "link", link: { kind: "instance", target: "accounts" } }], ["code"], "owner");
    store = openSqliteStore(wideSpec(20, { extra: [added] }), file);
    assert.equal(indexNames(file, "items5s"), ["rsc_link:items5s:account", "rsc_order:items5s", "rsc_owner:items5s", "rsc_unique:items5s:code"]);
    assert.equal(indexNames(file, "items9s"), ["rsc_link:items9s:account", "rsc_order:items9s", "rsc_owner:items9s", "rsc_unique:items9s:code"]);
    assert.equal(indexNames(file, "items11s"), ["rsc_link:items11s:account", "rsc_order:items11s", "rsc_owner:items11s", "rsc_unique:items11s:code"]);
    assert.equal(indexNames(file, "newcomers"), ["rsc_link:newcomers:account", "rsc_order:newcomers", "rsc_owner:newcomers", "rsc_unique:newcomers:code"]);
    const check = new Database(file, { readonly: true });
    const sql = (name: string) => (check.prepare(`SELECT sql FROM sqlite_master WHERE name = ?`).get(name) as { sql: string } | undefined)?.sql;
    assert.match(sql("rsc_order:items5s") ?? "", /\(created_at, id\)/);
    assert.ok(sql("theirs"));
    check.close();
    assert.is((await store.list("items3s", { offset: 0, limit: 10 })).size, 2, "the rows are kept");
    await store.insert("newcomers", rec("n1", { account: "a1", code: "c1" }, { owner: "k" }));
    assert.is((await store.list("newcomers", { offset: 0, limit: 10, owner: "k" })).size, 1);
    await store.close();

    // A duplicate in one of many tables still refuses the start, naming that collection, and changes nothing.
    const dup = new Database(file);
    dup.exec(`DROP INDEX "rsc_unique:items14s:code"`);
    dup.prepare(`INSERT INTO items14s (id, created_at, modified_at, owner, data) VALUES (?, ?, ?, NULL, ?)`).run("d1", "t", "t", JSON.stringify({ code: "same" }));
    dup.prepare(`INSERT INTO items14s (id, created_at, modified_at, owner, data) VALUES (?, ?, ?, NULL, ?)`).run("d2", "t", "t", JSON.stringify({ code: "same" }));
    dup.close();
    assert.throws(() => openSqliteStore(wideSpec(20, { extra: [added] }), file), /collection "items14s".*"same" appears 2 times/);
    assert.not.ok(indexNames(file, "items14s").includes("rsc_unique:items14s:code"));
  } finally {
    fs.rmSync(dir, { recursive: true, force: true });
  }
});

/** The schema of a database file: every table and index with its SQL, by name. */
function schemaOf(file: string): { type: string; name: string; tbl_name: string; sql: string | null }[] {
  const db = new Database(file, { readonly: true });
  try {
    return db.prepare(`SELECT type, name, tbl_name, sql FROM sqlite_master ORDER BY name`).all() as { type: string; name: string; tbl_name: string; sql: string | null }[];
  } finally {
    db.close();
  }
}

test("openSqliteStoreInParallel: a new database gets on a worker thread exactly the schema openSqliteStore makes, and works once created", async () => {
  const dir = tempDir();
  try {
    const spec = wideSpec(30, { extra: [{ ...resource("tickets", [{ name: "account", kind: "link", link: { kind: "instance", target: "accounts" } }]), idForm: { kind: "sequence" } }] });
    openSqliteStore(spec, path.join(dir, "sync.sqlite")).close();
    const file = path.join(dir, "parallel.sqlite");
    const { store, created } = openSqliteStoreInParallel(spec, file);
    const before = schemaOf(file);
    assert.ok(before.length < 10, `the tables are not made on the calling thread (${before.length} schema entries before created)`);
    await created;
    assert.equal(schemaOf(file), schemaOf(path.join(dir, "sync.sqlite")));
    await store.insert("items4s", rec("i1", { account: "a1", code: "c1" }));
    assert.equal((await store.get("items4s", "i1"))?.data, { account: "a1", code: "c1" });
    await rejectsWith(store.insert("items4s", rec("i2", { code: "c1" })), (e) => assert.is((e as UniqueViolation).property, "code"));
    assert.is(await store.nextId!("tickets"), "1");
    await store.close();
    const reopened = recordingSql(() => openSqliteStore(spec, file));
    assert.equal(reopened.sql.filter((s) => /^(CREATE|DROP)\b/.test(s)), [], "the next start finds every index as wanted");
    await reopened.result.close();
  } finally {
    fs.rmSync(dir, { recursive: true, force: true });
  }
});

test("openSqliteStoreInParallel: changes to existing tables are made before it returns, only missing tables later; two at once on a new file both succeed", async () => {
  const dir = tempDir();
  try {
    const file = path.join(dir, "db.sqlite");
    openSqliteStore(makeSpec(), file).close();
    const db = new Database(file);
    db.exec(`DROP INDEX "rsc_order:books"; CREATE INDEX "rsc_order:books" ON books (created_at)`); // ours, outdated
    db.close();
    const { store, created } = openSqliteStoreInParallel(wideSpec(10), file);
    const fixed = schemaOf(file).find((e) => e.name === "rsc_order:books");
    assert.match(fixed?.sql ?? "", /\(created_at, id\)/, "the existing table is migrated at once");
    await created;
    assert.equal(indexNames(file, "items9s"), ["rsc_link:items9s:account", "rsc_order:items9s", "rsc_owner:items9s", "rsc_unique:items9s:code"]);
    await store.close();

    // Two services starting at once on one new file: each creates what it finds missing; IF NOT EXISTS makes the second a no-op.
    const shared = path.join(dir, "shared.sqlite");
    const a = openSqliteStoreInParallel(wideSpec(40), shared);
    const b = openSqliteStoreInParallel(wideSpec(40), shared);
    await Promise.all([a.created, b.created]);
    openSqliteStore(wideSpec(40), path.join(dir, "one.sqlite")).close();
    assert.equal(schemaOf(shared), schemaOf(path.join(dir, "one.sqlite")));
    await a.store.close();
    await b.store.close();

    // In memory, nothing is left for later.
    const memory = openSqliteStoreInParallel(wideSpec(3), ":memory:");
    await memory.created;
    await memory.store.insert("items1s", rec("m1", { code: "x" }));
    assert.is((await memory.store.list("items1s", { offset: 0, limit: 5 })).size, 1);
    await memory.store.close();
  } finally {
    fs.rmSync(dir, { recursive: true, force: true });
  }
});

test("openSqliteStoreInParallel: tables that cannot be created reject `created` with the reason (here another connection's lock past the busy timeout)", async () => {
  const dir = tempDir();
  try {
    const file = path.join(dir, "db.sqlite");
    const { store, created } = openSqliteStoreInParallel(wideSpec(5), file, { busyTimeoutMs: 50 });
    // Taken at once: the worker thread is still starting, so it finds the file locked.
    const other = new Database(file);
    other.exec("BEGIN IMMEDIATE");
    await rejectsWith(created, (e) => {
      assert.instance(e, Error);
      assert.match((e as Error).message, /sqlite store: cannot create the tables the database .*db\.sqlite lacks: database is locked/);
    });
    other.exec("ROLLBACK");
    other.close();
    await store.close();
    assert.equal(indexNames(file, "items1s"), [], "nothing half made");
  } finally {
    fs.rmSync(dir, { recursive: true, force: true });
  }
});

test.run();
