/**
 * The PostgreSQL store's two storage choices, measured on a throwaway cluster (`npm run pg-storage`; writes
 * nothing): the document column as `json` (kept as written, what the store does) or `jsonb`, and statements
 * named (prepared once per connection, what the store does) or unnamed (parsed and planned on every call).
 * Each case runs on a pool of 10 connections with 20 requests in flight, in alternating rounds; the table
 * gives the median time per operation and the ratio to the store's choice.
 *   --rows N     documents inserted per round (default 5000)
 *   --rounds R   rounds (default 5)
 */
import { randomUUID } from "node:crypto";
import pg from "pg";
import { startPostgres } from "../test/helpers/postgres.js";
import { commandLine } from "./args.js";
import { median } from "./stats.js";

const USAGE = `usage: npm run pg-storage [-- --rows N --rounds R]
json vs jsonb documents and named vs unnamed statements on a throwaway PostgreSQL cluster; writes nothing.`;
const args = commandLine(USAGE);
const rows = Number(args.last("--rows") ?? 5000);
const rounds = Number(args.last("--rounds") ?? 5);

/** A book as the library stores it (about 200 bytes of JSON). */
function book(i: number, author: string): string {
  return JSON.stringify({ title: `Book number ${i} of the bench`, isbn: String(9780000000000 + i), pages: 100 + (i % 900), published: 1900 + (i % 120), genres: ["fiction", "history"], author });
}

async function inFlight(count: number, concurrency: number, work: (i: number) => Promise<unknown>): Promise<number> {
  let next = 0;
  const started = performance.now();
  await Promise.all(Array.from({ length: concurrency }, async () => {
    while (next < count) await work(next++);
  }));
  return ((performance.now() - started) * 1000) / count; // µs per operation
}

const cluster = await startPostgres();
const pool = new pg.Pool({ connectionString: cluster.database("storage"), max: 10 });
try {
  const results = new Map<string, number[]>();
  const record = (name: string, us: number) => (results.get(name) ?? results.set(name, []).get(name)!).push(us);
  for (const type of ["json", "jsonb"]) {
    const t = `books_${type}`;
    const cast = type === "json" ? "(data)::jsonb" : "data";
    await pool.query(`CREATE TABLE authors_${type} (id text PRIMARY KEY)`);
    await pool.query(`INSERT INTO authors_${type} VALUES ('a1')`);
    await pool.query(`CREATE TABLE ${t} (id text PRIMARY KEY, created_at text NOT NULL, modified_at text NOT NULL, owner text, data ${type} NOT NULL, ` +
      `rsc_l text GENERATED ALWAYS AS (${cast} ->> 'author') STORED REFERENCES authors_${type} (id) DEFERRABLE INITIALLY DEFERRED)`);
    await pool.query(`CREATE UNIQUE INDEX ON ${t} ((${cast} -> 'isbn')) WHERE jsonb_typeof(${cast} -> 'isbn') <> 'null'`);
    await pool.query(`CREATE INDEX ON ${t} (rsc_l, created_at, id)`);
    await pool.query(`CREATE INDEX ON ${t} (created_at, id)`);
  }
  let base = 0;
  for (let round = 0; round < rounds; round++) {
    const order = round % 2 === 0 ? ["json", "jsonb"] : ["jsonb", "json"];
    for (const type of order) {
      const t = `books_${type}`;
      const ids: string[] = [];
      const insert = `INSERT INTO ${t} (id, created_at, modified_at, owner, data) VALUES ($1, $2, $3, $4, $5)`;
      record(`insert (${type})`, await inFlight(rows, 20, async (i) => {
        const id = randomUUID();
        ids.push(id);
        const now = new Date().toISOString();
        await pool.query({ name: `ins-${type}`, text: insert, values: [id, now, now, null, book(base + i, "a1")] });
      }));
      const get = `SELECT id, created_at, modified_at, owner, data FROM ${t} WHERE id = $1`;
      record(`get (${type}, named)`, await inFlight(rows, 20, (i) => pool.query({ name: `get-${type}`, text: get, values: [ids[i]] })));
      record(`get (${type}, unnamed)`, await inFlight(rows, 20, (i) => pool.query(get, [ids[i]])));
      const page = `SELECT id, created_at, modified_at, owner, data FROM ${t} ORDER BY created_at, id LIMIT 25 OFFSET $1`;
      record(`page of 25 (${type})`, await inFlight(Math.round(rows / 5), 20, (i) => pool.query({ name: `page-${type}`, text: page, values: [i % 100] })));
    }
    base += rows;
  }
  const show = (name: string, against: string) => {
    const m = median(results.get(name)!);
    const ratio = m / median(results.get(against)!);
    console.log(`| ${name} | ${m.toFixed(0)} µs | ${name === against ? "—" : ratio.toFixed(2)} |`);
  };
  console.log(`\n${rows} rows per round, ${rounds} rounds, pool of 10, 20 in flight; per operation, median of rounds:\n`);
  console.log("| operation | time | vs the store's choice |\n|---|---|---|");
  show("insert (json)", "insert (json)");
  show("insert (jsonb)", "insert (json)");
  show("get (json, named)", "get (json, named)");
  show("get (jsonb, named)", "get (json, named)");
  show("get (json, unnamed)", "get (json, named)");
  show("page of 25 (json)", "page of 25 (json)");
  show("page of 25 (jsonb)", "page of 25 (json)");
} finally {
  await pool.end();
  cluster.stop();
}
