/**
 * The hand-written Fastify 5 + `pg` baseline: the library's books served from the same PostgreSQL database
 * as the generated service, with the same conventions as baseline.ts (meta links, fields, expand, paging,
 * vendor Accept, Bearer key check with a cache, JSON Schema validation of bodies, 409 on unique values) and
 * the same guarantees on PostgreSQL: a pool of the same size, named prepared statements, and a create whose
 * author is checked `FOR SHARE` in the insert's transaction (so that a concurrent delete of the author cannot
 * leave the book linking to nothing). Written the way a careful developer would write it by hand.
 */
import { randomUUID } from "node:crypto";
import { Ajv } from "ajv";
import Fastify from "fastify";
import pg from "pg";
import { accepts, answerType, AUTHOR, BOOK, BOOK_BODY, BOOK_FIELDS, BOOKS, entityTag, fail, keyChecker, requestIdOf } from "./baseline.js";

export interface PgBaselineOptions {
  readonly url: string;
  readonly baseUrl: string;
  readonly port: number;
  /** The pool size (the generated service's DATABASE_POOL_SIZE default: 10). */
  readonly poolSize?: number;
}

type Row = { id: string; created_at: string; modified_at: string; data: Record<string, unknown> };

const COLUMNS = "id, created_at, modified_at, data";
const GET_BOOK = { name: "book", text: `SELECT ${COLUMNS} FROM "books" WHERE id = $1` };
const GET_AUTHOR = { name: "author", text: `SELECT ${COLUMNS} FROM "authors" WHERE id = $1` };
const PAGE = { name: "page", text: `SELECT ${COLUMNS} FROM "books" ORDER BY created_at, id LIMIT $1 OFFSET $2` };
const COUNT = { name: "count", text: 'SELECT count(*) AS n FROM "books"' };
const AUTHOR_SHARED = { name: "author-share", text: 'SELECT id FROM "authors" WHERE id = $1 FOR SHARE' };
const INSERT = { name: "insert", text: 'INSERT INTO "books" (id, created_at, modified_at, owner, data) VALUES ($1, $2, $3, NULL, $4)' };

/** Starts the baseline on the database the generated service made (its tables and its keys); resolves with a function that stops it. */
export async function startPgBaseline(o: PgBaselineOptions): Promise<() => Promise<void>> {
  const pool = new pg.Pool({ connectionString: o.url, max: o.poolSize ?? 10 });
  const state = await pool.query<{ hmac: string }>("SELECT hmac FROM rsc_keys_state");
  const hmac = process.env.KEYS_HMAC_SECRET || state.rows[0]!.hmac;
  const hashes = (await pool.query<{ hash: string }>("SELECT hash FROM rsc_keys")).rows.map((r) => r.hash);
  const authorized = keyChecker(hmac, hashes);
  const validate = new Ajv({ strict: false }).compile(BOOK_BODY);
  const href = (c: string, id: string) => `${o.baseUrl}/${c}/${id}`;
  const author = async (id: string, expand: boolean) => {
    if (!expand) return { meta: { href: href("authors", id), mediaType: AUTHOR } };
    const row = (await pool.query<Row>({ ...GET_AUTHOR, values: [id] })).rows[0];
    if (!row) return { meta: { href: href("authors", id), mediaType: AUTHOR } };
    return { meta: { href: href("authors", row.id), mediaType: AUTHOR }, id: row.id, createdAt: row.created_at, modifiedAt: row.modified_at, books: { meta: { href: `${href("authors", row.id)}/books`, mediaType: BOOKS } }, ...row.data };
  };
  const book = async (row: Row, expand: boolean, fields?: string[]) => {
    const data = row.data;
    const full: Record<string, unknown> = { meta: { href: href("books", row.id), mediaType: BOOK }, id: row.id, createdAt: row.created_at, modifiedAt: row.modified_at, ...data, author: await author(String(data.author), expand) };
    if (!fields) return full;
    const out: Record<string, unknown> = { meta: full.meta };
    for (const f of fields) if (f in full) out[f] = full[f];
    return out;
  };

  const app = Fastify({ logger: false, genReqId: requestIdOf });
  app.addHook("onRequest", async (req, reply) => {
    reply.header("x-request-id", req.id);
    // As the generated service answers every authenticated route: no cache keeps an answer made for one key.
    reply.header("cache-control", "no-store").header("vary", "Authorization");
    if (!authorized(req.headers.authorization)) return reply.code(401).header("www-authenticate", 'Bearer realm="Library API"').send(fail(401, 40100));
  });
  app.get("/v2/books/:id", async (req, reply) => {
    if (!accepts(req.headers.accept, BOOK)) return reply.code(406).send(fail(406, 40600));
    const q = req.query as { fields?: string; expand?: string };
    const fields = q.fields?.split(",");
    if (fields?.some((f) => !BOOK_FIELDS.includes(f))) return reply.code(400).send(fail(400, 40006, "fields"));
    if (q.expand !== undefined && q.expand !== "author") return reply.code(400).send(fail(400, 40007, "expand"));
    const row = (await pool.query<Row>({ ...GET_BOOK, values: [(req.params as { id: string }).id] })).rows[0];
    if (!row) return reply.code(404).send(fail(404, 40400));
    const etag = entityTag({ ...row, data: JSON.stringify(row.data) }, `${req.headers.accept ?? ""}?${q.fields ?? ""}&${q.expand ?? ""}`);
    reply.header("etag", etag);
    if (req.headers["if-none-match"] === etag) return reply.code(304).send();
    return reply.header("content-type", answerType(req.headers.accept, BOOK)).serializer(JSON.stringify).send(await book(row, q.expand === "author", fields));
  });
  app.get("/v2/books", async (req, reply) => {
    if (!accepts(req.headers.accept, BOOKS)) return reply.code(406).send(fail(406, 40600));
    const q = req.query as { offset?: string; limit?: string };
    const offset = Number(q.offset ?? 0);
    const limit = Number(q.limit ?? 25);
    if (!Number.isInteger(offset) || offset < 0) return reply.code(400).send(fail(400, 40008, "offset"));
    if (!Number.isInteger(limit) || limit < 1 || limit > 100) return reply.code(400).send(fail(400, 40008, "limit"));
    const [rows, count] = await Promise.all([pool.query<Row>({ ...PAGE, values: [limit, offset] }), pool.query<{ n: string }>(COUNT)]);
    const items = await Promise.all(rows.rows.map((r) => book(r, false)));
    reply.header("content-type", answerType(req.headers.accept, BOOKS)).serializer(JSON.stringify);
    return { meta: { href: `${o.baseUrl}/books`, mediaType: BOOKS }, offset, limit, size: Number(count.rows[0]!.n), items };
  });
  app.post("/v2/books", async (req, reply) => {
    if (!validate(req.body)) return reply.code(400).send(fail(400, 40003, String(validate.errors?.[0]?.instancePath.slice(1) ?? "")));
    const body = req.body as Record<string, any>;
    const authorId = String(body.author.meta.href).split("/").pop()!;
    const id = randomUUID();
    const now = new Date().toISOString();
    const data = { ...body, author: authorId };
    const client = await pool.connect();
    try {
      await client.query("BEGIN");
      if ((await client.query({ ...AUTHOR_SHARED, values: [authorId] })).rowCount === 0) {
        await client.query("ROLLBACK");
        return reply.code(400).send(fail(400, 40005, "author"));
      }
      await client.query({ ...INSERT, values: [id, now, now, JSON.stringify(data)] });
      await client.query("COMMIT");
    } catch (error) {
      await client.query("ROLLBACK").catch(() => undefined);
      if ((error as { code?: string }).code === "23505") return reply.code(409).send(fail(409, 40900, "isbn"));
      throw error;
    } finally {
      client.release();
    }
    const row = { id, created_at: now, modified_at: now, data };
    reply.code(201).header("content-type", answerType(req.headers.accept, BOOK)).serializer(JSON.stringify).header("location", href("books", id)).header("etag", entityTag({ ...row, data: JSON.stringify(data) }, `${req.headers.accept ?? ""}?&`));
    return await book(row, false);
  });
  await app.listen({ port: o.port, host: "127.0.0.1" });
  return async () => {
    await app.close();
    await pool.end();
  };
}
