/**
 * Transactions of the embedded SQLite store: commit and rollback across awaits, isolation from the reads of
 * other requests (a file database writes on a second connection), the remembered sizes across them, writes
 * of the process taking turns, nested transactions as savepoints, a transaction's store after its end, a
 * writer of another process, and the in-memory database's single connection. Plus the `contains` narrowing
 * (the stored lists that hold an id).
 */
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import Database from "better-sqlite3";
import { test } from "uvu";
import * as assert from "uvu/assert";
import type { ResourceSpec, ServiceSpec } from "../../../templates/runtime/spec.js";
import { openSqliteStore } from "../../../templates/runtime/sqlite-store.js";
import { inTransaction, StoreBusy, UniqueViolation, type ImmediateTransaction, type Store, type StoredRecord } from "../../../templates/runtime/store.js";
import { requiredOnly, testResource as resource, testSpec } from "../../helpers/stores.js";

const spec: ServiceSpec = testSpec(
  [
    resource("authors", [{ name: "name", kind: "string" }], ["name"]),
    resource("shelves", [
      { name: "label", kind: "string" },
      { name: "books", kind: "links", link: { kind: "collection", target: "authors" } },
    ]),
  ],
  "tx",
);

let clock = 0;
function rec(id: string, data: Record<string, unknown>): StoredRecord {
  const t = new Date(Date.UTC(2024, 0, 1) + clock++ * 1000).toISOString();
  return { id, createdAt: t, modifiedAt: t, data };
}

/** A store over a fresh file (or in memory), closed and removed after `fn`. */
async function withStore(fn: (store: ReturnType<typeof openSqliteStore>, file: string) => Promise<void>, options: { memory?: boolean; busyTimeoutMs?: number } = {}): Promise<void> {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), "rsc-tx-"));
  const file = options.memory ? ":memory:" : path.join(dir, "db.sqlite");
  const store = openSqliteStore(spec, file, { busyTimeoutMs: options.busyTimeoutMs ?? 5000 });
  try {
    await fn(store, file);
  } finally {
    await store.close();
    fs.rmSync(dir, { recursive: true, force: true });
  }
}

async function rejects(p: Promise<unknown>): Promise<unknown> {
  try {
    await p;
  } catch (error) {
    return error;
  }
  assert.unreachable("expected a rejection");
  return undefined;
}

const tick = () => new Promise((resolve) => setTimeout(resolve, 5));
const ids = async (store: Store) => (await store.list("authors", { offset: 0, limit: 100 })).items.map((r) => r.id);

test("a transaction commits what its work wrote, across awaits, and answers the work's result", () =>
  withStore(async (store) => {
    assert.type(store.transaction, "function");
    const result = await store.transaction!(async (tx) => {
      await tx.insert("authors", rec("a1", { name: "Ann" }));
      await tick();
      await tx.insert("authors", rec("a2", { name: "Bob" }));
      assert.is((await tx.get("authors", "a1"))?.data.name, "Ann", "the transaction reads its own writes");
      assert.is(tx.immediate?.get("authors", "a2")?.data.name, "Bob");
      assert.is((await tx.list("authors", { offset: 0, limit: 10 })).size, 2);
      assert.equal([...(await tx.existing("authors", ["a1", "a2", "zz"]))].sort(), ["a1", "a2"]);
      return 42;
    });
    assert.is(result, 42);
    assert.equal(await ids(store), ["a1", "a2"]);
  }));

test("a work that throws rolls back every write of it; the error passes through as it is", () =>
  withStore(async (store) => {
    await store.insert("authors", rec("a0", { name: "Kept" }));
    const failure = new Error("hook said no");
    const error = await rejects(
      store.transaction!(async (tx) => {
        await tx.insert("authors", rec("a1", { name: "Ann" }));
        await tx.update("authors", { ...rec("a0", { name: "Changed" }) });
        await tx.delete("authors", "a0");
        await tick();
        throw failure;
      }),
    );
    assert.is(error, failure);
    assert.equal(await ids(store), ["a0"]);
    assert.is(store.immediate.get("authors", "a0")?.data.name, "Kept");
  }));

test("other requests' reads never see a transaction's writes before its commit (file: a second connection), and sizes follow the commit", () =>
  withStore(async (store) => {
    await store.insert("authors", rec("a0", { name: "Zero" }));
    const size = async () => (await store.list("authors", { offset: 0, limit: 10 })).size;
    assert.is(await size(), 1);
    let release!: () => void;
    const gate = new Promise<void>((resolve) => (release = resolve));
    let inside!: () => void;
    const started = new Promise<void>((resolve) => (inside = resolve));
    const done = store.transaction!(async (tx) => {
      await tx.insert("authors", rec("a1", { name: "Ann" }));
      await tx.update("authors", rec("a0", { name: "Renamed" }));
      inside();
      await gate;
    });
    await started;
    assert.is(store.immediate.get("authors", "a1"), undefined, "immediate.get");
    assert.is(await store.get("authors", "a1"), undefined, "get");
    assert.is(store.immediate.get("authors", "a0")?.data.name, "Zero", "an uncommitted update is not seen");
    assert.equal([...(await store.existing("authors", ["a0", "a1"]))], ["a0"]);
    assert.is(await size(), 1, "the size counted meanwhile is of committed rows");
    release();
    await done;
    assert.is(store.immediate.get("authors", "a1")?.data.name, "Ann");
    assert.is(store.immediate.get("authors", "a0")?.data.name, "Renamed");
    assert.is(await size(), 2, "the remembered size was forgotten at the commit");
  }));

test("writes of the process take turns: a plain write waits for a running transaction and is not part of it", () =>
  withStore(async (store) => {
    const order: string[] = [];
    let release!: () => void;
    const gate = new Promise<void>((resolve) => (release = resolve));
    const tx = store.transaction!(async (t) => {
      await t.insert("authors", rec("t1", { name: "In the transaction" }));
      order.push("tx wrote");
      await gate;
      throw new Error("undo");
    });
    await tick();
    const plain = store.insert("authors", rec("p1", { name: "Plain" })).then(() => order.push("plain wrote"));
    const second = store.transaction!(async (t) => {
      order.push(store.immediate.get("authors", "p1") ? "second began after the plain write" : "second began first");
      await t.insert("authors", rec("t2", { name: "Second" }));
    });
    await tick();
    assert.equal(order, ["tx wrote"], "nothing else wrote while the transaction ran");
    release();
    await rejects(tx);
    await plain;
    await second;
    assert.equal(order.slice(0, 2), ["tx wrote", "second began after the plain write"], "in the order they asked");
    assert.equal((await ids(store)).sort(), ["p1", "t2"], "the rollback undid only the transaction's write");
  }));

test("a nested transaction is a savepoint: an inner failure the outer work catches undoes the inner writes only", () =>
  withStore(async (store) => {
    await store.transaction!(async (tx) => {
      await tx.insert("authors", rec("o1", { name: "Outer" }));
      const inner = await rejects(
        tx.transaction!(async (t) => {
          await t.insert("authors", rec("i1", { name: "Inner" }));
          throw new Error("inner");
        }),
      );
      assert.match(String(inner), /inner/);
      await tx.transaction!(async (t) => t.insert("authors", rec("i2", { name: "Inner kept" })));
      await tx.insert("authors", rec("o2", { name: "Outer again" }));
    });
    assert.equal(await ids(store), ["o1", "i2", "o2"]);
  }));

test("a unique violation in a transaction is a UniqueViolation; the work may go on or let it roll everything back", () =>
  withStore(async (store) => {
    await store.insert("authors", rec("a0", { name: "Ann" }));
    await store.transaction!(async (tx) => {
      const e = await rejects(tx.insert("authors", rec("a1", { name: "Ann" })));
      assert.instance(e, UniqueViolation);
      assert.is((e as UniqueViolation).property, "name");
      await tx.insert("authors", rec("a2", { name: "Bob" }));
    });
    assert.equal(await ids(store), ["a0", "a2"]);
    const e = await rejects(store.transaction!(async (tx) => {
      await tx.insert("authors", rec("a3", { name: "Cid" }));
      await tx.insert("authors", rec("a4", { name: "Bob" }));
    }));
    assert.instance(e, UniqueViolation);
    assert.equal(await ids(store), ["a0", "a2"]);
  }));

test("a transaction's store refuses every call once the transaction has ended, and cannot close the store", () =>
  withStore(async (store) => {
    let kept: Store | undefined;
    await store.transaction!(async (tx) => {
      kept = tx;
      assert.not.throws(() => tx.immediate?.get("authors", "x"));
      assert.match(String(await rejects(tx.close())), /not closed/);
    });
    assert.match(String(await rejects(kept!.insert("authors", rec("late", { name: "Late" })))), /transaction has ended/);
    assert.match(String(await rejects(kept!.get("authors", "late"))), /transaction has ended/);
    assert.throws(() => kept!.immediate?.get("authors", "late"), /transaction has ended/);
    assert.equal(await ids(store), []);
  }));

test("a write through the service's store from inside a transaction waits for itself: StoreBusy at the deadline, never a hang", () =>
  withStore(
    async (store) => {
      const started = performance.now();
      const e = await rejects(
        store.transaction!(async (tx) => {
          await tx.insert("authors", rec("a1", { name: "Ann" }));
          await store.insert("authors", rec("a2", { name: "Bob" }));
        }),
      );
      assert.instance(e, StoreBusy);
      const took = performance.now() - started;
      assert.ok(took >= 100 && took < 2000, `gave up after ${Math.round(took)} ms`);
      assert.equal(await ids(store), [], "the transaction rolled back");
      await store.insert("authors", rec("a3", { name: "Cid" }));
      assert.equal(await ids(store), ["a3"], "the turn was handed on");
    },
    { busyTimeoutMs: 150 },
  ));

test("a transaction waits for another process's write lock, and is StoreBusy when it is held past the deadline", () =>
  withStore(
    async (store, file) => {
      const other = new Database(file);
      other.exec("BEGIN IMMEDIATE");
      let ran = false;
      const e = await rejects(store.transaction!(async () => void (ran = true)));
      assert.instance(e, StoreBusy);
      assert.not.ok(ran, "the work never started");
      const later = store.transaction!(async (tx) => tx.insert("authors", rec("a1", { name: "Ann" })));
      setTimeout(() => other.exec("COMMIT"), 100);
      await later;
      assert.equal(await ids(store), ["a1"]);
      other.close();
    },
    { busyTimeoutMs: 300 },
  ));

test("in memory there is one connection: a transaction commits and rolls back, and sizes counted meanwhile are forgotten at its end", () =>
  withStore(
    async (store) => {
      const size = async () => (await store.list("authors", { offset: 0, limit: 10 })).size;
      assert.is(await size(), 0);
      let release!: () => void;
      const gate = new Promise<void>((resolve) => (release = resolve));
      const done = store.transaction!(async (tx) => {
        await tx.insert("authors", rec("a1", { name: "Ann" }));
        await gate;
        throw new Error("undo");
      });
      await tick();
      // The documented caveat: the one connection shows the uncommitted row to a read made meanwhile.
      assert.is(await size(), 1);
      release();
      await rejects(done);
      assert.is(await size(), 0, "the size counted during the transaction was forgotten");
      assert.is(store.immediate.get("authors", "a1"), undefined);
      await store.transaction!(async (tx) => tx.insert("authors", rec("a2", { name: "Bob" })));
      assert.is(await size(), 1);
    },
    { memory: true },
  ));

test("transactionNow commits at once what its work wrote, answers the work's result, and sizes follow", () =>
  withStore(async (store) => {
    const now = store.immediateWrites!;
    assert.is((await store.list("authors", { offset: 0, limit: 10 })).size, 0);
    const done = now.transactionNow((tx) => {
      tx.insert("authors", rec("a1", { name: "Ann" }));
      assert.is(tx.get("authors", "a1")?.data.name, "Ann", "the transaction reads its own writes");
      assert.equal([...tx.existing("authors", ["a1", "zz"])], ["a1"]);
      return 7;
    });
    assert.equal(done, { value: 7 });
    assert.is(store.immediate.get("authors", "a1")?.data.name, "Ann", "committed when the work returned");
    assert.is((await store.list("authors", { offset: 0, limit: 10 })).size, 1);
  }));

test("transactionNow: a work that throws rolls back; a UniqueViolation passes through as it is", () =>
  withStore(async (store) => {
    await store.insert("authors", rec("a0", { name: "Taken" }));
    const now = store.immediateWrites!;
    let error: unknown;
    try {
      now.transactionNow((tx) => {
        tx.insert("authors", rec("a1", { name: "Ann" }));
        tx.insert("authors", rec("a2", { name: "Taken" }));
      });
    } catch (e) {
      error = e;
    }
    assert.instance(error, UniqueViolation);
    assert.equal(await ids(store), ["a0"], "a1 was rolled back with the failed insert");
    assert.equal(now.transactionNow(() => "free again"), { value: "free again" }, "the turn was released");
  }));

test("transactionNow runs nothing while the process's write turn is taken or another process holds the lock; the turn is free afterwards", () =>
  withStore(
    async (store, file) => {
      const now = store.immediateWrites!;
      let release!: () => void;
      const gate = new Promise<void>((resolve) => (release = resolve));
      const running = store.transaction!(async (tx) => {
        await tx.insert("authors", rec("t1", { name: "Async" }));
        await gate;
      });
      await tick();
      let ran = false;
      assert.is(now.transactionNow(() => (ran = true)), undefined, "an async transaction holds the turn");
      assert.not.ok(ran);
      release();
      await running;
      const other = new Database(file);
      other.exec("BEGIN IMMEDIATE");
      assert.is(now.transactionNow(() => (ran = true)), undefined, "another process holds the file's write lock");
      assert.not.ok(ran);
      other.exec("COMMIT");
      other.close();
      assert.equal(now.transactionNow((tx) => (tx.insert("authors", rec("n1", { name: "Now" })), "ran")), { value: "ran" });
      await store.insert("authors", rec("p1", { name: "Plain" }));
      assert.equal((await ids(store)).sort(), ["n1", "p1", "t1"]);
    },
    { busyTimeoutMs: 300 },
  ));

test("a transaction's statements end with it: the store of a transactionNow refuses calls after it returned", () =>
  withStore(async (store) => {
    let kept: ImmediateTransaction | undefined;
    store.immediateWrites!.transactionNow((tx) => void (kept = tx));
    assert.throws(() => kept!.get("authors", "a1"), /this transaction has ended/);
  }));

test("inTransaction runs the work in a transaction when the store has them, else with the store itself", async () => {
  await withStore(async (store) => {
    await rejects(inTransaction(store, async (tx) => {
      assert.is.not(tx, store);
      await tx.insert("authors", rec("a1", { name: "Ann" }));
      throw new Error("undo");
    }));
    assert.equal(await ids(store), []);
    const bare = requiredOnly(store, { keepOpen: true });
    assert.is(await inTransaction(bare, async (s) => (assert.is(s, bare), "ran")), "ran");
  });
});

test("list narrowed by `contains`: the records whose stored list holds the id, counted and paged", () =>
  withStore(async (store) => {
    await store.insert("shelves", rec("s1", { label: "one", books: ["a1", "a2"] }));
    await store.insert("shelves", rec("s2", { label: "two", books: ["a2"] }));
    await store.insert("shelves", rec("s3", { label: "three" }));
    await store.insert("shelves", rec("s4", { label: "four", books: "a2" }));
    const holding = async (id: string, offset = 0, limit = 10) => {
      const page = await store.list("shelves", { offset, limit, where: { field: "books", contains: id } });
      return [page.size, page.items.map((r) => r.id)];
    };
    assert.equal(await holding("a2"), [2, ["s1", "s2"]], "a string equal to the id is no list");
    assert.equal(await holding("a1"), [1, ["s1"]]);
    assert.equal(await holding("a2", 1, 1), [2, ["s2"]]);
    assert.equal(await holding("zz"), [0, []]);
    await store.update("shelves", rec("s1", { label: "one", books: ["a1"] }));
    assert.equal(await holding("a2"), [1, ["s2"]], "the remembered size followed the update");
    await store.transaction!(async (tx) => {
      const page = await tx.list("shelves", { offset: 0, limit: 10, where: { field: "books", contains: "a1" } });
      assert.equal(page.items.map((r) => r.id), ["s1"]);
    });
  }));

test.run();
