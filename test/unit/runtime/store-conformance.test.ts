/**
 * The Store contract (templates/runtime/store.ts), the same cases against both stores: the embedded SQLite
 * store and the PostgreSQL store on a throwaway cluster (test/helpers/postgres.ts). Every answer of one store
 * is the other's: records read back byte for byte as written (object keys in their order), pages in
 * (createdAt, id) order (a sequence's ids as numbers), narrowing by owner, by an instance link and by
 * membership of a stored list, UniqueViolation naming the property (JSON null and absence repeat), sequences
 * that never give a committed number again, transactions that commit, roll back and nest. Then what only the
 * PostgreSQL store has to show: processes opening one database at once, migrations that refuse to lose meaning,
 * and a database out of reach answered as StoreBusy, recovered from by itself.
 */
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { test } from "uvu";
import * as assert from "uvu/assert";
import type { FieldSpec, ResourceSpec, ServiceSpec } from "../../../templates/runtime/spec.js";
import { MigrationRefused, type MigrateOptions, type MigrationStep } from "../../../templates/runtime/migration.js";
import { migratePg, openPgStore } from "../../../templates/runtime/pg-store.js";
import { migrateSqlite, openSqliteStore } from "../../../templates/runtime/sqlite-store.js";
import { LinkViolation, StoreBusy, UniqueViolation, UnstorableValue, type Store, type StoredRecord } from "../../../templates/runtime/store.js";
import { startPostgres, type Postgres } from "../../helpers/postgres.js";
import { testResource as resource, testSpec } from "../../helpers/stores.js";

function makeSpec(unique: string[] = ["email"]): ServiceSpec {
  return testSpec(
    [
      resource("accounts", [{ name: "email", kind: "string" }, { name: "name", kind: "string" }, { name: "it's \"odd\" \\ name", kind: "string" }], unique, { owner: "owner" }),
      resource("books", [
        { name: "title", kind: "string" },
        { name: "author", kind: "link", link: { kind: "instance", target: "accounts" } },
        { name: "related", kind: "links", link: { kind: "collection", target: "books" } },
        { name: "ticket", kind: "link", link: { kind: "instance", target: "tickets" } },
      ]),
      resource("tickets", [{ name: "subject", kind: "string" }], [], { idForm: { kind: "sequence" } }),
    ],
    "conformance",
  );
}

let clock = 0;
function rec(id: string, data: Record<string, unknown>, extra: Partial<StoredRecord> = {}): StoredRecord {
  const t = new Date(Date.UTC(2024, 0, 1) + clock++ * 1000).toISOString();
  return { id, createdAt: t, modifiedAt: t, data, ...extra };
}

async function rejects(promise: Promise<unknown>, check: (e: unknown) => boolean, what: string): Promise<void> {
  try {
    await promise;
  } catch (e) {
    assert.ok(check(e), `${what}: got ${String(e)}`);
    return;
  }
  assert.unreachable(`expected a rejection: ${what}`);
}

let pgServer: Postgres;
const tmp = fs.mkdtempSync(path.join(os.tmpdir(), "resourcery-conformance-"));
let databases = 0;

/** A fresh store of each kind on an empty database. */
const kinds: [string, (spec: ServiceSpec) => Promise<Store>][] = [
  ["sqlite", async (spec) => openSqliteStore(spec, path.join(tmp, `db-${databases++}.sqlite`))],
  ["postgres", async (spec) => openPgStore(spec, pgServer.database(`conformance_${databases++}`))],
];

test.before(async () => {
  pgServer = await startPostgres();
});
test.after(() => {
  pgServer?.stop();
  fs.rmSync(tmp, { recursive: true, force: true });
});

/** Runs `body` against a fresh store of each kind and gives back what each returned, for comparison. */
async function both<T>(body: (store: Store) => Promise<T>, spec = makeSpec()): Promise<[T, T]> {
  const results: T[] = [];
  for (const [, open] of kinds) {
    const store = await open(spec);
    try {
      results.push(await body(store));
    } finally {
      await store.close();
    }
  }
  return results as [T, T];
}

test("a record reads back as written: key order of nested objects, numbers, owner, odd property names", async () => {
  const data = { name: "Ada", email: "ada@example.com", "it's \"odd\" \\ name": "yes", nested: { zeta: 1, alpha: [3, { y: 1, b: 2 }], n: 1.5, big: 12345678901234 } };
  const record = rec("a1", data, { owner: "key1" });
  const [sqlite, postgres] = await both(async (store) => {
    await store.insert("accounts", record);
    const got = await store.get("accounts", "a1");
    return { got, text: JSON.stringify(got!.data), missing: await store.get("accounts", "nope") };
  });
  assert.is(sqlite.text, JSON.stringify(data));
  assert.is(postgres.text, sqlite.text, "byte for byte, keys in their order");
  assert.equal(postgres.got, sqlite.got);
  assert.is(postgres.got!.owner, "key1");
  assert.is(postgres.missing, undefined);
});

test("pages in (createdAt, id) order, sizes, owner and link narrowing, membership of a stored list, ids in their order", async () => {
  const [sqlite, postgres] = await both(async (store) => {
    await store.insert("accounts", rec("a1", { email: "a@x" }, { owner: "k1" }));
    await store.insert("accounts", rec("a2", { email: "b@x" }, { owner: "k2" }));
    const same = new Date(Date.UTC(2025, 0, 1)).toISOString();
    for (const id of ["b3", "b1", "b2"]) await store.insert("books", { id, createdAt: same, modifiedAt: same, data: { title: id, author: id === "b2" ? "a2" : "a1", related: id === "b1" ? ["b2", "b3"] : ["b1"] } });
    await store.insert("books", rec("b0", { title: "no author", related: "b1" }));
    const titles = (p: { items: readonly StoredRecord[]; size: number }) => [p.items.map((r) => r.id).join(","), p.size];
    return {
      all: titles(await store.list("books", { offset: 0, limit: 10 })),
      paged: titles(await store.list("books", { offset: 1, limit: 2 })),
      beyond: titles(await store.list("books", { offset: 10, limit: 2 })),
      owned: titles(await store.list("accounts", { offset: 0, limit: 10, owner: "k2" })),
      byAuthor: titles(await store.list("books", { offset: 0, limit: 10, where: { field: "author", equals: "a1" } })),
      containing: titles(await store.list("books", { offset: 0, limit: 10, where: { field: "related", contains: "b1" } })),
      ids: titles(await store.list("books", { offset: 0, limit: 10, ids: ["b2", "missing", "b0"] })),
      existing: [...(await store.existing("books", ["b1", "zz", "b0"]))].sort(),
      none: [...(await store.existing("books", []))],
    };
  });
  assert.equal(postgres, sqlite);
  assert.equal(sqlite.all, ["b0,b1,b2,b3", 4], "createdAt then id (b0 the oldest; the others at one instant, by id)");
  assert.equal(sqlite.containing, ["b2,b3", 2], "a lone string is no stored list");
});

test("x-unique: a duplicate is UniqueViolation naming the property, on insert and on update; null and absence repeat", async () => {
  const [sqlite, postgres] = await both(async (store) => {
    const seen: string[] = [];
    await store.insert("accounts", rec("a1", { email: "same@x" }));
    await store.insert("accounts", rec("a2", { email: null }));
    await store.insert("accounts", rec("a3", { email: null }));
    await store.insert("accounts", rec("a4", { name: "no email" }));
    await store.insert("accounts", rec("a5", { name: "no email either" }));
    await store.insert("accounts", rec("a6", { email: "other@x" }));
    for (const attempt of [() => store.insert("accounts", rec("a7", { email: "same@x" })), () => store.update("accounts", rec("a6", { email: "same@x" }))]) {
      try {
        await attempt();
        seen.push("accepted");
      } catch (e) {
        seen.push(e instanceof UniqueViolation ? `${e.collection}.${e.property}` : String(e));
      }
    }
    seen.push(String(await store.update("accounts", rec("a6", { email: "new@x" }))), String(await store.update("accounts", rec("zz", { email: "x" }))));
    seen.push(String(await store.delete("accounts", "a6")), String(await store.delete("accounts", "a6")));
    return seen;
  });
  assert.equal(sqlite, ["accounts.email", "accounts.email", "true", "false", "true", "false"]);
  assert.equal(postgres, sqlite);
});

test("sequences: numbers in order, never a committed one again after a delete; lists as numbers; a non-number id is absent", async () => {
  const [sqlite, postgres] = await both(async (store) => {
    const ids: string[] = [];
    for (let i = 0; i < 11; i++) {
      const id = await store.nextId!("tickets");
      ids.push(id);
      await store.insert("tickets", rec(id, { subject: `t${id}` }));
    }
    await store.delete("tickets", "11");
    ids.push(await store.nextId!("tickets"));
    const page = await store.list("tickets", { offset: 8, limit: 5 });
    return { ids, page: page.items.map((r) => r.id), odd: await store.get("tickets", "x1"), existing: [...(await store.existing("tickets", ["2", "abc", "99"]))] };
  });
  assert.equal(sqlite.ids, ["1", "2", "3", "4", "5", "6", "7", "8", "9", "10", "11", "12"]);
  assert.equal(postgres, sqlite);
});

test("transactions: commit, rollback of everything on a throw, a nested failure caught undoes only itself; a finished transaction's store refuses", async () => {
  const [sqlite, postgres] = await both(async (store) => {
    await store.transaction!(async (tx) => {
      await tx.insert("accounts", rec("c1", { email: "c1@x" }));
    });
    await rejects(
      store.transaction!(async (tx) => {
        await tx.insert("accounts", rec("c2", { email: "c2@x" }));
        throw new Error("hook refused");
      }),
      (e) => (e as Error).message === "hook refused",
      "the work's error passes through",
    );
    let kept: Store | undefined;
    await store.transaction!(async (tx) => {
      kept = tx;
      await tx.insert("accounts", rec("c3", { email: "c3@x" }));
      try {
        await tx.transaction!(async (inner) => {
          await inner.insert("accounts", rec("c4", { email: "c4@x" }));
          throw new Error("inner");
        });
      } catch {
        // caught: the outer work goes on
      }
      await tx.insert("accounts", rec("c5", { email: "c5@x" }));
    });
    let refused = false;
    try {
      await kept!.get("accounts", "c1");
    } catch {
      refused = true;
    }
    const ids = (await store.list("accounts", { offset: 0, limit: 10 })).items.map((r) => r.id);
    return { ids, refused };
  });
  assert.equal(sqlite, { ids: ["c1", "c3", "c5"], refused: true });
  assert.equal(postgres, sqlite);
});

test("postgres: a unique violation inside a transaction rolls it back whole and names the property", async () => {
  const store = await openPgStore(makeSpec(), pgServer.database("unique_tx"));
  try {
    await store.insert("accounts", rec("u1", { email: "taken@x" }));
    await rejects(
      store.transaction!(async (tx) => {
        await tx.insert("accounts", rec("u2", { email: "free@x" }));
        await tx.insert("accounts", rec("u3", { email: "taken@x" }));
      }),
      (e) => e instanceof UniqueViolation && e.property === "email",
      "UniqueViolation(email)",
    );
    assert.is(await store.get("accounts", "u2"), undefined, "the first insert undone too");
  } finally {
    await store.close();
  }
});

test("postgres: eight processes' worth of stores opening one empty database at once all start, and share it", async () => {
  const url = pgServer.database("many_at_once");
  const stores = await Promise.all(Array.from({ length: 8 }, () => openPgStore(makeSpec(), url, { poolSize: 2 })));
  try {
    await stores[0]!.insert("accounts", rec("m1", { email: "m@x" }));
    assert.is((await stores[7]!.get("accounts", "m1"))?.data.email, "m@x");
    // 40 concurrent duplicates across the eight: exactly one is stored.
    const results = await Promise.allSettled(stores.flatMap((s, i) => Array.from({ length: 5 }, (_, j) => s.insert("accounts", rec(`d${i}-${j}`, { email: "dup@x" })))));
    assert.is(results.filter((r) => r.status === "fulfilled").length, 1);
    assert.ok(results.every((r) => r.status === "fulfilled" || r.reason instanceof UniqueViolation));
  } finally {
    await Promise.all(stores.map((s) => s.close()));
  }
});

test("postgres: shared counters (rate limits, OAuth 1.0a nonces) count across stores on one database, in windows; health pings", async () => {
  const url = pgServer.database("counters");
  const [a, b] = await Promise.all([openPgStore(makeSpec(), url, { poolSize: 2 }), openPgStore(makeSpec(), url, { poolSize: 2 })]);
  try {
    assert.ok(a.counters && b.counters, "the PostgreSQL store shares counters");
    await a.ping!();
    // 30 hits at once, from two stores: every count from 1 to 30 exactly once.
    const hits = await Promise.all(Array.from({ length: 30 }, (_, i) => (i % 2 === 0 ? a : b).counters!.hit("rate:key-1", 60_000)));
    assert.equal(hits.map((h) => h.count).sort((x, y) => x - y), Array.from({ length: 30 }, (_, i) => i + 1));
    assert.ok(hits.every((h) => h.resetAt === hits[0]!.resetAt && h.resetAt > Date.now()), "one window");
    assert.is((await b.counters!.hit("rate:key-2", 60_000)).count, 1, "another key counts apart");
    // A nonce is claimed once (the first hit is 1), whichever process sees it.
    assert.is((await a.counters!.hit("nonce:k:1:abc", 600_000)).count, 1);
    assert.is((await b.counters!.hit("nonce:k:1:abc", 600_000)).count, 2);
    // A window over starts again at 1.
    await a.counters!.hit("rate:short", 50);
    await new Promise((r) => setTimeout(r, 80));
    assert.is((await b.counters!.hit("rate:short", 50)).count, 1);
  } finally {
    await Promise.all([a.close(), b.close()]);
  }
});

test("postgres: migrations — a new x-unique over existing duplicates is refused with the value; ids cannot change form; x-unique added and dropped", async () => {
  const url = pgServer.database("migrations");
  const first = await openPgStore(makeSpec([]), url);
  await first.insert("accounts", rec("x1", { email: "twice@x" }));
  await first.insert("accounts", rec("x2", { email: "twice@x" }));
  await first.close();
  await rejects(openPgStore(makeSpec(["email"]), url), (e) => /cannot make accounts\.email unique.*"twice@x" appears 2 times/.test((e as Error).message), "the duplicates named");
  const spec = makeSpec([]);
  const changed = { ...spec, resources: spec.resources.map((r) => (r.collection === "tickets" ? { ...r, idForm: { kind: "uuid" as const } } : r)) } as ServiceSpec;
  await rejects(openPgStore(changed, url), (e) => /tickets.*integer ids.*string ids/.test((e as Error).message), "ids keep their form");
  const fix = await openPgStore(makeSpec([]), url);
  await fix.delete("accounts", "x2");
  await fix.close();
  const unique = await openPgStore(makeSpec(["email"]), url);
  await rejects(unique.insert("accounts", rec("x3", { email: "twice@x" })), (e) => e instanceof UniqueViolation, "unique once the duplicates are gone");
  await unique.close();
  const loose = await openPgStore(makeSpec([]), url);
  await loose.insert("accounts", rec("x4", { email: "twice@x" }));
  await loose.close();
});

/** makeSpec() whose books require `required` in their bodies, `pages` having `pagesDefault` as its default when given. */
function booksRequiring(required: string[], pagesDefault?: unknown): ServiceSpec {
  const spec = makeSpec();
  const books = (r: ResourceSpec): ResourceSpec => ({
    ...r,
    fields: [...r.fields, { name: "pages", kind: "integer", ...(pagesDefault !== undefined ? { default: pagesDefault } : {}) }],
    bodySchema: { type: "object", required },
  });
  return { ...spec, resources: spec.resources.map((r) => (r.collection === "books" ? books(r) : r)) } as ServiceSpec;
}

test("postgres: a newly required property whose default PostgreSQL cannot store (U+0000) is refused naming it, nothing changed", async () => {
  const url = pgServer.database(`migrate_${databases++}`);
  const before = await openPgStore(booksRequiring(["title"]), url);
  await before.insert("books", rec("n1", { title: "one" }));
  await before.close();
  const spec = makeSpec();
  const withText = { ...spec, resources: spec.resources.map((r) => (r.collection === "books" ? { ...r, fields: [...r.fields, { name: "note", kind: "string", default: "a\u0000b" }], bodySchema: { type: "object", required: ["title", "note"] } } : r)) } as ServiceSpec;
  await rejects(openPgStore(withText, url), (e) => e instanceof MigrationRefused && /default of "note" \(books\) holds U\+0000/.test((e as Error).message), "refused with the property named");
  const after = await openPgStore(booksRequiring(["title"]), url);
  try {
    assert.equal((await after.get("books", "n1"))!.data, { title: "one" }, "nothing changed");
  } finally {
    await after.close();
  }
});

test("migrations on both stores: a newly required property is filled from its default (the same text on both), refused without one, planned by a dry run that changes nothing", async () => {
  const places: [string, () => string, (spec: ServiceSpec, where: string) => Promise<Store>, (spec: ServiceSpec, where: string, o: MigrateOptions) => Promise<MigrationStep[]>][] = [
    ["sqlite", () => path.join(tmp, `migrate-${databases++}.sqlite`), async (spec, file) => openSqliteStore(spec, file), async (spec, file, o) => migrateSqlite(spec, file, o)],
    ["postgres", () => pgServer.database(`migrate_${databases++}`), (spec, url) => openPgStore(spec, url), (spec, url, o) => migratePg(spec, url, o)],
  ];
  const texts: string[][] = [];
  for (const [kind, place, open, migrate] of places) {
    const where = place();
    const before = await open(booksRequiring(["title"]), where);
    await before.insert("books", rec("b1", { title: "one", related: ["b2"] }));
    await before.insert("books", rec("b2", { title: "two", pages: 7 }));
    await before.insert("books", rec("b3", { title: "three" }));
    await before.close();
    const read = async (spec: ServiceSpec) => {
      const store = await open(spec, where);
      try {
        return await Promise.all(["b1", "b2", "b3"].map(async (id) => JSON.stringify((await store.get("books", id))!.data)));
      } finally {
        await store.close();
      }
    };
    const stored = await read(booksRequiring(["title"]));
    // Without a default: refused at start-up and by the dry run, naming how many lack it; nothing changed.
    const refused = (e: unknown) => e instanceof MigrationRefused && /2 instances of "books" stored before property "pages" became required lack it.*no default/.test((e as Error).message);
    await rejects(open(booksRequiring(["title", "pages"]), where), refused, `${kind}: start-up refuses`);
    await rejects(migrate(booksRequiring(["title", "pages"]), where, { dryRun: true }), refused, `${kind}: the dry run refuses too`);
    assert.equal(await read(booksRequiring(["title"])), stored, `${kind}: nothing changed`);
    // With a default: the dry run shows the statement and changes nothing; the start fills it.
    const planned = await migrate(booksRequiring(["title", "pages"], 100), where, { dryRun: true });
    const fill = planned.find((s) => s.sql.startsWith("UPDATE"));
    assert.ok(fill, `${kind}: the fill is planned: ${JSON.stringify(planned)}`);
    assert.match(fill!.why, /2 instance\(s\) of books lack the required property "pages"/);
    assert.match(fill!.sql, /"pages":100\}/);
    assert.equal(await read(booksRequiring(["title"])), stored, `${kind}: a dry run changes nothing`);
    const filled = await read(booksRequiring(["title", "pages"], 100));
    assert.equal(filled, ['{"title":"one","related":["b2"],"pages":100}', '{"title":"two","pages":7}', '{"title":"three","pages":100}'], `${kind}: appended to the text, the rest as it was`);
    assert.equal(await migrate(booksRequiring(["title", "pages"], 100), where, { dryRun: true }), [], `${kind}: then nothing left to do`);
    // A thorough run (npm run migrate) checks every required property again, not only the new ones.
    assert.equal((await migrate(booksRequiring(["title", "pages"], 100), where, { dryRun: true, thorough: true })).map((s) => s.sql), [], `${kind}: every instance holds them`);
    texts.push(filled);
    // Unique as well: one default cannot fill two instances.
    const unique = booksRequiring(["title", "pages", "isbn"], 100);
    const uniqueBooks = { ...unique, resources: unique.resources.map((r) => (r.collection === "books" ? { ...r, unique: ["isbn"], fields: [...r.fields, { name: "isbn", kind: "string" as const, default: "0" }] } : r)) } as ServiceSpec;
    await rejects(open(uniqueBooks, where), (e) => e instanceof MigrationRefused && /3 instances of "books" .* "isbn" .* unique \(x-unique\): one value cannot fill them all/.test((e as Error).message), `${kind}: a unique default refused`);
    assert.equal(await read(booksRequiring(["title", "pages"], 100)), filled, `${kind}: nothing changed`);
  }
  assert.equal(texts[1], texts[0], "the same stored text on both stores");
});

test("postgres: the database holds links whole (foreign keys): a write linking to nothing and a delete of a linked instance are LinkViolation, nothing written; numbered targets; a link field dropped and back", async () => {
  const url = pgServer.database("links");
  const store = await openPgStore(makeSpec(), url);
  try {
    await store.insert("accounts", rec("a1", { email: "x@x" }));
    const ticket = await store.nextId!("tickets");
    await store.insert("tickets", rec(ticket, { subject: "s" }));
    await rejects(store.insert("books", rec("b1", { title: "t", author: "nobody" })), (e) => e instanceof LinkViolation, "a link to nothing");
    await rejects(store.insert("books", rec("b1", { title: "t", ticket: "99" })), (e) => e instanceof LinkViolation, "a link to a number not given");
    await store.insert("books", rec("b2", { title: "t", author: "a1", ticket }));
    await rejects(store.delete("accounts", "a1"), (e) => e instanceof LinkViolation, "the linked author stays");
    assert.ok(await store.get("accounts", "a1"));
    await rejects(
      store.transaction!(async (tx) => {
        await tx.delete("tickets", ticket);
      }),
      (e) => e instanceof LinkViolation,
      "refused at the commit",
    );
    assert.ok(await store.get("tickets", ticket), "the transaction undone");
    // A delete and its cascade in one transaction may go in any order (checked at the commit).
    await store.transaction!(async (tx) => {
      await tx.delete("accounts", "a1");
      await tx.delete("books", "b2");
    });
    assert.is(await store.get("accounts", "a1"), undefined);
    await store.insert("books", rec("b3", { title: "t", ticket }));
    const byTicket = await store.list("books", { offset: 0, limit: 10, where: { field: "ticket", equals: ticket } });
    assert.equal(byTicket.items.map((r) => r.id), ["b3"]);
    assert.equal(await store.list("books", { offset: 0, limit: 10, where: { field: "ticket", equals: "not-a-number" } }), { items: [], size: 0 });
  } finally {
    await store.close();
  }
  // The ticket link dropped from the definitions: its column and foreign key go (a link to nothing is then the document's business); back, they return.
  const spec = makeSpec();
  const without = { ...spec, resources: spec.resources.map((r) => (r.collection === "books" ? { ...r, fields: r.fields.filter((f) => f.name !== "ticket") } : r)) } as ServiceSpec;
  const dropped = await migratePg(without, url, {});
  assert.ok(dropped.some((s) => /DROP COLUMN/.test(s.sql)), JSON.stringify(dropped));
  const loose = await openPgStore(without, url);
  await loose.insert("books", rec("b4", { title: "t", ticket: "12345" }));
  await loose.delete("books", "b4");
  await loose.close();
  const back = await migratePg(makeSpec(), url, {});
  assert.ok(back.some((s) => /ADD COLUMN/.test(s.sql)) && back.some((s) => /FOREIGN KEY/.test(s.sql)) && back.some((s) => /VALIDATE CONSTRAINT/.test(s.sql)), JSON.stringify(back.map((s) => s.sql)));
  assert.equal(await migratePg(makeSpec(), url, { dryRun: true, thorough: true }), [], "then nothing left to do");
});

test("a string holding U+0000 or an unpaired surrogate: kept by SQLite; PostgreSQL text cannot hold them, so UnstorableValue naming the property, nothing written", async () => {
  for (const odd of ["a\u0000b", "x\udfff", "\ud800y"]) {
    const results: unknown[] = [];
    for (const [kind, open] of kinds) {
      const store = await open(makeSpec());
      try {
        await store.insert("accounts", rec("n1", { email: "odd@x", name: odd }));
        results.push([kind, "stored", (await store.get("accounts", "n1"))!.data.name]);
      } catch (e) {
        results.push([kind, e instanceof UnstorableValue ? `UnstorableValue ${(e as UnstorableValue).property}` : String(e), await store.get("accounts", "n1")]);
      } finally {
        await store.close();
      }
    }
    assert.equal(results, [["sqlite", "stored", odd], ["postgres", "UnstorableValue name", undefined]], JSON.stringify(odd));
  }
});

test("an id or a narrowing value holding U+0000 names nothing, on both stores (never an error)", async () => {
  const [sqlite, postgres] = await both(async (store) => {
    await store.insert("accounts", rec("a1", { email: "x@x" }));
    return {
      get: await store.get("accounts", "a\u0000b"),
      existing: [...(await store.existing("accounts", ["a1", "a1\u0000"]))],
      update: await store.update("accounts", rec("a\u0000", { email: "y@x" })),
      delete: await store.delete("accounts", "\u0000"),
      where: (await store.list("books", { offset: 0, limit: 5, where: { field: "author", equals: "a1\u0000" } })).size,
      contains: (await store.list("books", { offset: 0, limit: 5, where: { field: "related", contains: "\u0000" } })).size,
      owner: (await store.list("accounts", { offset: 0, limit: 5, owner: "k\u0000" })).size,
      ids: (await store.list("accounts", { offset: 0, limit: 5, ids: ["a1", "a\u0000"] })).items.map((r) => r.id),
    };
  });
  assert.equal(sqlite, { get: undefined, existing: ["a1"], update: false, delete: false, where: 0, contains: 0, owner: 0, ids: ["a1"] });
  assert.equal(postgres, sqlite);
});

test("postgres: the database down is StoreBusy (a 503), and the store works again by itself once it is back", async () => {
  const url = pgServer.database("restarts");
  const store = await openPgStore(makeSpec(), url, { connectTimeoutMs: 1000 });
  try {
    await store.insert("accounts", rec("r1", { email: "r@x" }));
    pgServer.kill();
    await rejects(store.get("accounts", "r1"), (e) => e instanceof StoreBusy, "StoreBusy while down");
    await rejects(store.insert("accounts", rec("r2", { email: "r2@x" })), (e) => e instanceof StoreBusy, "StoreBusy while down");
    await rejects(store.transaction!(async (tx) => tx.get("accounts", "r1")), (e) => e instanceof StoreBusy, "StoreBusy while down");
    pgServer.restart();
    let back: StoredRecord | undefined;
    for (let i = 0; i < 50 && back === undefined; i++) {
      try {
        back = await store.get("accounts", "r1");
      } catch (e) {
        assert.ok(e instanceof StoreBusy, String(e));
        await new Promise((r) => setTimeout(r, 100));
      }
    }
    assert.is(back?.data.email, "r@x");
  } finally {
    await store.close();
  }
});

test.run();
