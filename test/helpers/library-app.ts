/**
 * The small library service of the runtime's unit tests (authors, books, shelves, notes, the convert
 * action), its spec built the way src/emit/spec.ts builds one, and a harness that builds the Fastify app
 * over an in-memory SQLite store and key ring and sends requests through inject().
 */
import * as assert from "uvu/assert";
import type { FastifyInstance, LightMyRequestResponse } from "fastify";
import { BUILTIN_ERRORS } from "../../src/model/builtin-errors.js";
import { buildApp, type AppOptions } from "../../templates/runtime/app.js";
import { KeyRing, type NewKey } from "../../templates/runtime/keys.js";
import type { ErrorSpec, FieldSpec, JsonSchema, MediaTypeSpec, ResourceSpec, ServiceSpec } from "../../templates/runtime/spec.js";
import { openSqliteStore } from "../../templates/runtime/sqlite-store.js";
import type { Store } from "../../templates/runtime/store.js";

export type Json = Record<string, any>;

export const BASE = "https://api.example.com/v1";
export const P = "/v1";
export const DOCS = "https://docs.example.com/errors";
export const REALM = "Library API";
export const ERROR_KEYS = ["code", "dev", "info", "message", "property", "status"];

// ---------------------------------------------------------------------------------------------------
// The spec: built the way src/emit/spec.ts builds it (bodySchemaOf, media types, error catalog).
// ---------------------------------------------------------------------------------------------------

/** A link written in a body: { meta: { href } } (as LINK_INPUT_SCHEMA in src/emit/spec.ts). */
export const LINK_INPUT_SCHEMA = {
  type: "object",
  required: ["meta"],
  properties: {
    meta: { type: "object", required: ["href"], properties: { href: { type: "string", minLength: 1 }, mediaType: { type: "string" } } },
  },
} as const;
export const SERVER_OWNED = new Set(["id", "meta", "createdAt", "modifiedAt"]);

export interface FieldDef {
  readonly spec: FieldSpec;
  readonly schema: JsonSchema;
}

export interface ResourceDef {
  readonly name: string;
  readonly collection: string;
  readonly fields: readonly FieldDef[];
  readonly required?: readonly string[];
  readonly unique?: readonly string[];
  readonly access?: ResourceSpec["access"];
  readonly owner?: string;
}

export const plain = (name: string, schema: Json): FieldDef => ({ spec: { name, kind: schema.type, ...(schema.writeOnly === true ? { writeOnly: true } : {}) }, schema });
export const instanceLink = (name: string, target: string): FieldDef => ({ spec: { name, kind: "link", link: { kind: "instance", target } }, schema: {} });
export const collectionLink = (name: string, target: string, inverse?: string): FieldDef => ({
  spec: { name, kind: "links", link: inverse ? { kind: "collection", target, inverse } : { kind: "collection", target } },
  schema: { type: "array" },
});

/** As bodySchemaOf: writable fields only (no server-owned, owner or inverse), links as { meta: { href } }. */
export function bodySchemaOf(def: ResourceDef): JsonSchema {
  const writable = def.fields.filter((f) => !SERVER_OWNED.has(f.spec.name) && f.spec.name !== def.owner && !f.spec.link?.inverse);
  const properties: Json = {};
  for (const f of writable) {
    properties[f.spec.name] =
      f.spec.kind === "link" ? LINK_INPUT_SCHEMA : f.spec.kind === "links" ? { type: "array", items: LINK_INPUT_SCHEMA } : f.schema;
  }
  const required = (def.required ?? []).filter((r) => writable.some((f) => f.spec.name === r));
  return { type: "object", additionalProperties: false, ...(required.length ? { required } : {}), properties };
}

export const typeName = (subject: string) => `application/vnd.acme.v1.${subject}+json`;
export const aliasName = (subject: string) => `application/acme.v1.${subject}.json`;

export function resourceOf(def: ResourceDef): ResourceSpec {
  return {
    name: def.name,
    collection: def.collection,
    fields: def.fields.map((f) => f.spec),
    required: def.required ?? [],
    unique: def.unique ?? [],
    access: def.access ?? {},
    owner: def.owner,
    mediaType: typeName(def.name),
    collectionMediaType: typeName(def.collection),
    bodySchema: bodySchemaOf(def),
  };
}

export const DEFS: ResourceDef[] = [
  {
    name: "author",
    collection: "authors",
    fields: [
      plain("name", { type: "string", minLength: 1 }),
      plain("born", { type: "integer" }),
      plain("pin", { type: "string", writeOnly: true }),
      collectionLink("books", "books", "author"),
      {
        spec: { name: "address", kind: "object", properties: [{ name: "city", kind: "string" }, { name: "street", kind: "string" }, { name: "geo", kind: "object", properties: [{ name: "lat", kind: "number" }] }] },
        schema: { type: "object", properties: { city: { type: "string" }, street: { type: "string" }, geo: { type: "object", properties: { lat: { type: "number" } } } } },
      },
    ],
    required: ["name"],
    unique: ["name"],
  },
  {
    name: "book",
    collection: "books",
    fields: [
      plain("title", { type: "string", minLength: 1 }),
      plain("isbn", { type: "string", pattern: "^[0-9]{3}-[0-9]{10}$" }),
      plain("pages", { type: "integer", minimum: 1 }),
      instanceLink("author", "authors"),
    ],
    required: ["title", "author"],
    unique: ["isbn"],
  },
  {
    name: "shelf",
    collection: "shelves",
    fields: [plain("label", { type: "string" }), collectionLink("books", "books")],
    required: ["label"],
    access: { create: ["librarian"], update: ["librarian"], delete: ["librarian"], admin: ["admin"] },
  },
  {
    name: "note",
    collection: "notes",
    fields: [plain("text", { type: "string" }), plain("owner", { type: "string" }), instanceLink("replyTo", "notes")],
    required: ["text"],
    access: { admin: ["admin"] },
    owner: "owner",
  },
];

export const ERRORS: ErrorSpec[] = [
  ...BUILTIN_ERRORS.map((e) => ({ ...e, info: `${DOCS}/${e.code}` })),
  { code: 1001, status: 400, key: "unknownCurrency", title: "Unknown currency", message: "The currency is not known.", dev: "Use an ISO 4217 code.", info: `${DOCS}/1001` },
];

export const MEDIA_TYPES: MediaTypeSpec[] = [
  { subject: "error", kind: "error" as const },
  ...DEFS.flatMap((d) => [
    { subject: d.name, kind: "instance" as const },
    { subject: d.collection, kind: "collection" as const },
  ]),
  { subject: "convert", kind: "action" as const },
].map((t) => ({ name: typeName(t.subject), alias: aliasName(t.subject), subject: t.subject, kind: t.kind, version: 1 }));

export const spec: ServiceSpec = {
  name: "library",
  title: "Library",
  vendor: "acme",
  version: 1,
  baseUrl: BASE,
  errorDocsUrl: DOCS,
  auth: { schemes: ["apiKey", "bearer", "basic"], realm: REALM },
  paging: { defaultLimit: 25, maxLimit: 100 },
  bodyLimit: 1_048_576,
  resources: DEFS.map(resourceOf),
  actions: [
    {
      name: "convert",
      method: "GET",
      query: {
        type: "object",
        required: ["from", "to", "amount"],
        properties: { from: { type: "string" }, to: { type: "string" }, amount: { type: "number" } },
      },
      roles: [],
      mediaType: typeName("convert"),
    },
  ],
  errors: ERRORS,
  mediaTypes: MEDIA_TYPES,
};

// ---------------------------------------------------------------------------------------------------
// Harness
// ---------------------------------------------------------------------------------------------------

export interface Harness {
  readonly app: FastifyInstance;
  readonly store: Store;
  readonly keys: KeyRing;
  /** No roles. */
  readonly reader: NewKey;
  /** Another key without roles. */
  readonly other: NewKey;
  readonly librarian: NewKey;
  readonly admin: NewKey;
}

export async function withApp(fn: (h: Harness) => Promise<void>, options: Partial<AppOptions> = {}): Promise<void> {
  const store = openSqliteStore(spec, ":memory:");
  const keys = KeyRing.memory();
  const h = {
    store,
    keys,
    reader: keys.create([]),
    other: keys.create([]),
    librarian: keys.create(["librarian"]),
    admin: keys.create(["admin"]),
    app: await buildApp({ spec, store, keys, ...options }),
  };
  try {
    await fn(h);
  } finally {
    await h.app.close();
    await store.close();
  }
}

export interface Call {
  readonly key?: NewKey | null;
  readonly body?: unknown;
  /** A raw payload, sent as is (with the given Content-Type, default application/json). */
  readonly raw?: string | Buffer;
  readonly headers?: Record<string, string>;
}

/** One request to P + path, with a Bearer key (the reader's unless `key` says otherwise; null for none). */
export async function call(h: Harness, method: string, path: string, c: Call = {}): Promise<LightMyRequestResponse> {
  const headers: Record<string, string> = {};
  const key = c.key === undefined ? h.reader : c.key;
  if (key) headers.authorization = `Bearer ${key.secret}`;
  let payload: string | Buffer | undefined;
  if (c.raw !== undefined) {
    payload = c.raw;
    headers["content-type"] = "application/json";
  } else if (c.body !== undefined) {
    payload = JSON.stringify(c.body);
    headers["content-type"] = "application/json";
  }
  Object.assign(headers, c.headers ?? {});
  return h.app.inject({ method: method as "GET", url: P + path, headers, ...(payload !== undefined ? { payload } : {}) });
}

export const json = (res: LightMyRequestResponse): Json => JSON.parse(res.body) as Json;
export const href = (...segments: string[]) => [BASE, ...segments].join("/");
export const link = (collection: string, id: string) => ({ meta: { href: href(collection, id) } });

/** Asserts the catalog error `key` with its status, exact body keys, info URL, JSON Content-Type and property. */
export function assertError(res: LightMyRequestResponse, key: string, property = "", contentType = "application/json"): Json {
  const entry = ERRORS.find((e) => e.key === key);
  if (!entry) throw new Error(`no catalog entry ${key}`);
  const body = json(res);
  assert.is(res.statusCode, entry.status, `status of ${key}: ${res.body}`);
  assert.ok(String(res.headers["content-type"]).startsWith(contentType), `content-type ${res.headers["content-type"]}`);
  assert.equal(Object.keys(body).sort(), ERROR_KEYS);
  assert.is(body.status, entry.status);
  assert.is(body.code, entry.code, `code of ${key}: ${res.body}`);
  assert.is(body.property, property, `property of ${key}: ${res.body}`);
  assert.type(body.message, "string");
  assert.type(body.dev, "string");
  assert.ok(body.dev.length > 0);
  assert.is(body.info, `${DOCS}/${entry.code}`);
  return body;
}

export async function createAuthor(h: Harness, name: string, extra: Json = {}): Promise<Json> {
  const res = await call(h, "POST", "/authors", { body: { name, ...extra } });
  assert.is(res.statusCode, 201, res.body);
  return json(res);
}

export async function createBook(h: Harness, title: string, authorId: string, extra: Json = {}): Promise<Json> {
  const res = await call(h, "POST", "/books", { body: { title, author: link("authors", authorId), ...extra } });
  assert.is(res.statusCode, 201, res.body);
  return json(res);
}
