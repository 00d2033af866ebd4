/**
 * The hand-written Fastify 5 baseline: the library's books served from the same SQLite file with the
 * same conventions as the generated service (meta links, fields, expand, paging, vendor Accept, Bearer
 * key check with a cache, JSON Schema validation of bodies, 409 on unique values, an ETag on every instance
 * answered with 304 to If-None-Match, X-Request-Id on every answer: CONTRACT §10; the answers' Content-Type,
 * Cache-Control and Vary as the generated service sends them: server.ts checks that both answer every measured
 * request alike before timing it). Written the way a careful developer would write it by hand, without
 * resourcery's runtime.
 */
import { createHash, createHmac, randomUUID, timingSafeEqual } from "node:crypto";
import fs from "node:fs";
import http from "node:http";
import { Ajv } from "ajv";
import Database from "better-sqlite3";
import Fastify from "fastify";

export interface BaselineOptions {
  readonly db: string;
  readonly keysFile: string;
  readonly baseUrl: string;
  readonly port: number;
}

type Row = { id: string; created_at: string; modified_at: string; data: string };

export const BOOK = "application/vnd.library.v2.book+json";
export const BOOKS = "application/vnd.library.v2.books+json";
export const AUTHOR = "application/vnd.library.v2.author+json";

/** Fastify's genReqId of the baselines: the client's X-Request-Id when it looks sane, else a UUID. */
export function requestIdOf(req: http.IncomingMessage): string {
  const sent = req.headers["x-request-id"];
  return typeof sent === "string" && /^[\w.:/+=@~-]{1,128}$/.test(sent) ? sent : randomUUID();
}

/** The ETag of a book as a hand-written service would make it: a digest of the stored row and of what shaped its representation. */
export function entityTag(row: { id: string; modified_at: string; data: string }, shape: string): string {
  return `"${createHash("sha1").update(row.id).update(row.modified_at).update(row.data).update(shape).digest("base64url")}"`;
}

/** The Bearer check of the baseline: HMAC-SHA256 of the secret under the server secret against the stored hashes, with a 30 s cache of good secrets. */
export function keyChecker(hmac: string, storedHashes: readonly string[]): (auth: string | undefined) => boolean {
  const hashes = storedHashes.map((h) => Buffer.from(h, "hex"));
  const cache = new Map<string, number>();
  return (auth) => {
    if (!auth?.startsWith("Bearer ")) return false;
    const secret = auth.slice(7);
    const until = cache.get(secret);
    if (until !== undefined && until > Date.now()) return true;
    const digest = createHmac("sha256", hmac).update(secret).digest();
    const ok = hashes.some((h) => h.length === digest.length && timingSafeEqual(h, digest));
    if (ok) cache.set(secret, Date.now() + 30_000);
    return ok;
  };
}

/** keyChecker of a keys file (and its .hmac beside it), as the generated service keeps them on SQLite. */
function fileKeyChecker(keysFile: string): (auth: string | undefined) => boolean {
  const hmac = fs.readFileSync(`${keysFile}.hmac`, "utf8").trim();
  return keyChecker(hmac, (JSON.parse(fs.readFileSync(keysFile, "utf8")).keys as { hash: string }[]).map((k) => k.hash));
}

/** The JSON Schema of a book's create body, as the baseline validates it. */
export const BOOK_BODY = {
  type: "object",
  additionalProperties: false,
  required: ["title", "author"],
  properties: {
    title: { type: "string", minLength: 1, maxLength: 500 },
    isbn: { type: "string", pattern: "^(97[89])?\\d{9}[\\dX]$" },
    pages: { type: "integer", minimum: 1 },
    published: { type: "integer", minimum: -3000, maximum: 2100 },
    genres: { type: "array", uniqueItems: true, items: { type: "string", enum: ["fiction", "poetry", "history", "science", "children"] } },
    author: { type: "object", required: ["meta"], properties: { meta: { type: "object", required: ["href"], properties: { href: { type: "string" } } } } },
  },
} as const;

/** The properties `fields` may name. */
export const BOOK_FIELDS = ["id", "createdAt", "modifiedAt", "title", "isbn", "pages", "published", "genres", "author"];

/** An error body of the baseline's. */
export const fail = (status: number, code: number, property = "") => ({ status, code, property, message: "error", dev: "error", info: `http://localhost:3000/docs/errors/${code}` });

export function accepts(accept: string | undefined, type: string): boolean {
  return !accept || accept.includes("*/*") || accept.includes("application/json") || accept.includes(type);
}

/**
 * The Content-Type of an answer, as the generated service sends it: the vendor type when Accept names it (no
 * charset parameter: RFC 6839 defines none for +json), else JSON with its charset. Sent with
 * `reply.serializer(JSON.stringify)`, which Fastify leaves as it is (its default serializer adds a charset).
 */
export function answerType(accept: string | undefined, type: string): string {
  return accept?.includes(type) ? type : "application/json; charset=utf-8";
}

/** Starts the baseline; resolves with a function that stops it. */
export async function startBaseline(o: BaselineOptions): Promise<() => Promise<void>> {
  const { app, close } = baselineApp(o);
  await app.listen({ port: o.port, host: "127.0.0.1" });
  return close;
}

/** The baseline's Fastify app, not listening yet (profiles inject requests into it), and how to close it with its database. */
export function baselineApp(o: BaselineOptions): { app: ReturnType<typeof Fastify>; close: () => Promise<void> } {
  const db = new Database(o.db);
  db.pragma("journal_mode = WAL");
  // The generated service's durability: in WAL mode, NORMAL syncs at checkpoints, not at every commit.
  db.pragma("synchronous = NORMAL");
  const getBook = db.prepare<[string], Row>('SELECT id, created_at, modified_at, data FROM "books" WHERE id = ?');
  const getAuthor = db.prepare<[string], Row>('SELECT id, created_at, modified_at, data FROM "authors" WHERE id = ?');
  const page = db.prepare<[number, number], Row>('SELECT id, created_at, modified_at, data FROM "books" ORDER BY created_at, id LIMIT ? OFFSET ?');
  const count = db.prepare<[], { n: number }>('SELECT count(*) AS n FROM "books"');
  const insert = db.prepare('INSERT INTO "books" (id, created_at, modified_at, owner, data) VALUES (?, ?, ?, NULL, ?)');
  const authorExists = db.prepare<[string], { id: string }>('SELECT id FROM "authors" WHERE id = ?');
  const authorized = fileKeyChecker(o.keysFile);
  const validate = new Ajv({ strict: false }).compile(BOOK_BODY);
  const href = (c: string, id: string) => `${o.baseUrl}/${c}/${id}`;
  const author = (id: string, expand: boolean) => {
    if (!expand) return { meta: { href: href("authors", id), mediaType: AUTHOR } };
    const row = getAuthor.get(id);
    if (!row) return { meta: { href: href("authors", id), mediaType: AUTHOR } };
    const data = JSON.parse(row.data);
    return { meta: { href: href("authors", row.id), mediaType: AUTHOR }, id: row.id, createdAt: row.created_at, modifiedAt: row.modified_at, books: { meta: { href: `${href("authors", row.id)}/books`, mediaType: BOOKS } }, ...data };
  };
  const book = (row: Row, expand: boolean, fields?: string[]) => {
    const data = JSON.parse(row.data);
    const full: Record<string, unknown> = { meta: { href: href("books", row.id), mediaType: BOOK }, id: row.id, createdAt: row.created_at, modifiedAt: row.modified_at, ...data, author: author(data.author, expand) };
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
    const row = getBook.get((req.params as { id: string }).id);
    if (!row) return reply.code(404).send(fail(404, 40400));
    const etag = entityTag(row, `${req.headers.accept ?? ""}?${q.fields ?? ""}&${q.expand ?? ""}`);
    reply.header("etag", etag);
    if (req.headers["if-none-match"] === etag) return reply.code(304).send();
    return reply.header("content-type", answerType(req.headers.accept, BOOK)).serializer(JSON.stringify).send(book(row, q.expand === "author", fields));
  });
  app.get("/v2/books", async (req, reply) => {
    if (!accepts(req.headers.accept, BOOKS)) return reply.code(406).send(fail(406, 40600));
    const q = req.query as { offset?: string; limit?: string };
    const offset = Number(q.offset ?? 0);
    const limit = Number(q.limit ?? 25);
    if (!Number.isInteger(offset) || offset < 0) return reply.code(400).send(fail(400, 40008, "offset"));
    if (!Number.isInteger(limit) || limit < 1 || limit > 100) return reply.code(400).send(fail(400, 40008, "limit"));
    const items = page.all(limit, offset).map((r) => book(r, false));
    reply.header("content-type", answerType(req.headers.accept, BOOKS)).serializer(JSON.stringify);
    return { meta: { href: `${o.baseUrl}/books`, mediaType: BOOKS }, offset, limit, size: count.get()!.n, items };
  });
  app.post("/v2/books", async (req, reply) => {
    if (!validate(req.body)) return reply.code(400).send(fail(400, 40003, String(validate.errors?.[0]?.instancePath.slice(1) ?? "")));
    const body = req.body as Record<string, any>;
    const authorId = String(body.author.meta.href).split("/").pop()!;
    if (!authorExists.get(authorId)) return reply.code(400).send(fail(400, 40005, "author"));
    const id = randomUUID();
    const now = new Date().toISOString();
    const data = { ...body, author: authorId };
    try {
      insert.run(id, now, now, JSON.stringify(data));
    } catch {
      return reply.code(409).send(fail(409, 40900, "isbn"));
    }
    const row = { id, created_at: now, modified_at: now, data: JSON.stringify(data) };
    reply.code(201).header("content-type", answerType(req.headers.accept, BOOK)).serializer(JSON.stringify).header("location", href("books", id)).header("etag", entityTag(row, `${req.headers.accept ?? ""}?&`));
    return book(row, false);
  });
  const close = async () => {
    await app.close();
    db.close();
  };
  return { app, close };
}

/** The floor: raw node:http answering GET /v2/books/:id from the same file, with the key check and meta. */
export async function startFloor(o: BaselineOptions): Promise<() => Promise<void>> {
  const db = new Database(o.db, { readonly: true });
  const getBook = db.prepare<[string], Row>('SELECT id, created_at, modified_at, data FROM "books" WHERE id = ?');
  const authorized = fileKeyChecker(o.keysFile);
  const server = http.createServer((req, res) => {
    if (!authorized(req.headers.authorization)) {
      res.writeHead(401).end();
      return;
    }
    const id = (req.url ?? "").split("?")[0]!.split("/").pop()!;
    const row = getBook.get(id);
    if (!row) {
      res.writeHead(404).end();
      return;
    }
    const data = JSON.parse(row.data);
    const body = { meta: { href: `${o.baseUrl}/books/${row.id}`, mediaType: BOOK }, id: row.id, createdAt: row.created_at, modifiedAt: row.modified_at, ...data, author: { meta: { href: `${o.baseUrl}/authors/${data.author}`, mediaType: AUTHOR } } };
    res.writeHead(200, { "content-type": "application/json; charset=utf-8" }).end(JSON.stringify(body));
  });
  await new Promise<void>((r) => server.listen(o.port, "127.0.0.1", r));
  return async () => {
    await new Promise((r) => server.close(r));
    db.close();
  };
}
