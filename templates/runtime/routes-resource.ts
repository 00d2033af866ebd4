/** The routes of one collection: list, create, get, update (POST/PATCH merge patch, PUT replace), delete, sub-collections. */
import { randomFillSync } from "node:crypto";
import type { FastifyInstance, FastifyRequest } from "fastify";
import { canSee, requireOwner, requireRole, isAdmin, rolesFor, type Caller } from "./authenticate.js";
import { sendJson, type ResourceHooks, type ServiceContext } from "./context.js";
import { ApiError, entry } from "./errors.js";
import { hrefOf, hrefOfLink, idFromHref } from "./links.js";
import { representInstance, representNow, representPage, subCollection, subCollectionHref, type RepresentContext } from "./represent.js";
import { isJsonContentType } from "./negotiate.js";
import { checkSelection, EMPTY_SELECTION, expansionOf, parseSelection, type Selection } from "./select.js";
import type { ResourceSpec } from "./spec.js";
import { andThen, readRecord, UniqueViolation, type StoredRecord } from "./store.js";

type Json = Record<string, unknown>;
type Query = Record<string, string | string[] | undefined>;

/** Registers every route of `resource` under `prefix` (other methods on their paths answer 405: methods.ts). */
export function registerResource(app: FastifyInstance, svc: ServiceContext, resource: ResourceSpec, prefix: string, hooks: ResourceHooks = {}): void {
  const base = `${prefix}/${resource.collection}`;
  const rep = (caller: Caller): RepresentContext => ({ spec: svc.spec, resources: svc.resources, store: svc.store, baseUrl: svc.baseUrl, caller, expandLimit: svc.expandLimit });

  /** The instance the path names, as the store returned it: 404 when there is none, 403 when it is not the caller's to see. */
  const found = (req: FastifyRequest, caller: Caller, record: StoredRecord | undefined): StoredRecord => {
    if (!record) throw svc.error("notFound", "", `There is no ${resource.name} with id "${(req.params as { id: string }).id}".`);
    requireOwner(caller, resource, record, svc.catalog);
    return record;
  };
  const load = async (req: FastifyRequest, caller: Caller): Promise<StoredRecord> =>
    found(req, caller, await svc.store.get(resource.collection, (req.params as { id: string }).id));

  // The caller is authenticated, and its roles checked against config.access, by the onRequest hook (access.ts).
  const read = { config: { access: rolesFor(resource, "read") } };
  app.get(base, read, async (req, reply) => {
    const caller = req.caller!;
    const type = svc.negotiate(req, svc.offers(resource.collectionMediaType));
    const { offset, limit } = paging(svc, req.query as Query);
    const { expand, fields } = shaping(svc, resource, req.query as Query);
    const owner = resource.owner !== undefined && !isAdmin(caller, resource) ? caller.id : undefined;
    const page = await svc.store.list(resource.collection, { offset, limit, owner });
    const body = await representPage(rep(caller), resource, page, { href: hrefOf(svc.baseUrl, resource.collection), offset, limit }, expand, fields);
    return sendJson(reply, 200, type, body);
  });

  app.post(base, { config: { access: rolesFor(resource, "create") } }, async (req, reply) => {
    const caller = req.caller!;
    const type = svc.negotiate(req, svc.offers(resource.mediaType));
    requireBody(svc, req, resource);
    svc.validators.body(resource.collection, req.body, svc.readOnly.get(resource.collection)!);
    const ctx = svc.handlerContext(req, caller);
    const input = ((await hooks.beforeCreate?.(req.body as Json, ctx)) ?? req.body) as Json;
    const now = new Date().toISOString();
    const record: StoredRecord = { id: newId(), createdAt: now, modifiedAt: now, owner: resource.owner ? caller.id : undefined, data: await toStored(svc, caller, resource, input) };
    await unique(svc, resource, () => svc.store.insert(resource.collection, record));
    const body = await representInstance(rep(caller), resource, record);
    await hooks.afterCreate?.(body, ctx);
    reply.header("location", hrefOf(svc.baseUrl, resource.collection, record.id));
    return sendJson(reply, 201, type, body);
  });

  app.get(`${base}/:id`, read, (req, reply) => {
    const caller = req.caller!;
    const type = svc.negotiate(req, svc.offers(resource.mediaType));
    const { expand, fields } = shaping(svc, resource, req.query as Query);
    // A GET is the commonest request: with a store that reads at once (ImmediateReads) it is answered
    // without a promise (Fastify takes the thrown errors of a handler that is not async alike).
    return andThen(readRecord(svc.store, resource.collection, (req.params as { id: string }).id), (record) =>
      andThen(representNow(rep(caller), resource, found(req, caller, record), expand, fields), (body) => void sendJson(reply, 200, type, body)),
    );
  });

  const update = (mode: "merge" | "replace") => async (req: FastifyRequest, reply: import("fastify").FastifyReply) => {
    const caller = req.caller!;
    const type = svc.negotiate(req, svc.offers(resource.mediaType));
    requireBody(svc, req, resource);
    const current = await load(req, caller);
    const readOnly = svc.readOnly.get(resource.collection)!;
    let input = req.body as Json;
    if (mode === "merge") {
      if (input === null || typeof input !== "object" || Array.isArray(input)) throw svc.error("invalidProperty", "", "A merge patch is a JSON object.");
      for (const key of Object.keys(input)) if (readOnly.has(key) || ["id", "meta", "createdAt", "modifiedAt"].includes(key)) throw svc.error("readOnlyProperty", key);
      input = mergePatch(toWire(svc, resource, current), input);
    }
    svc.validators.body(resource.collection, input, readOnly);
    const ctx = svc.handlerContext(req, caller);
    const before = await representInstance(rep(caller), resource, current);
    input = ((await hooks.beforeUpdate?.(input, before, ctx)) ?? input) as Json;
    const record: StoredRecord = { ...current, modifiedAt: new Date().toISOString(), data: await toStored(svc, caller, resource, input, current) };
    await unique(svc, resource, () => svc.store.update(resource.collection, record));
    const body = await representInstance(rep(caller), resource, record);
    await hooks.afterUpdate?.(body, ctx);
    return sendJson(reply, 200, type, body);
  };
  const write = { config: { access: rolesFor(resource, "update") } };
  app.post(`${base}/:id`, write, update("merge"));
  app.patch(`${base}/:id`, write, update("merge"));
  app.put(`${base}/:id`, write, update("replace"));

  app.delete(`${base}/:id`, { config: { access: rolesFor(resource, "delete") } }, async (req, reply) => {
    const caller = req.caller!;
    const current = await load(req, caller);
    const ctx = svc.handlerContext(req, caller);
    const before = await representInstance(rep(caller), resource, current);
    await hooks.beforeDelete?.(before, ctx);
    await svc.store.delete(resource.collection, current.id);
    await hooks.afterDelete?.(before, ctx);
    return reply.code(204).send();
  });

  for (const field of resource.fields.filter((f) => f.kind === "links")) {
    const path = `${base}/:id/${field.name}`;
    const target = svc.resources.get(field.link!.target)!;
    app.get(path, read, async (req, reply) => {
      const caller = req.caller!;
      requireRole(caller, target, "read", svc.catalog);
      const type = svc.negotiate(req, svc.offers(target.collectionMediaType));
      const { offset, limit } = paging(svc, req.query as Query);
      const { expand, fields } = shaping(svc, target, req.query as Query);
      const record = await load(req, caller);
      const page = await subCollection(rep(caller), resource, record, field, offset, limit);
      const href = subCollectionHref(rep(caller), resource, record.id, field.name);
      return sendJson(reply, 200, type, await representPage(rep(caller), target, page, { href, offset, limit }, expand, fields));
    });
  }
}

let lastMs = 0;
let counter = 0;

/** Random bytes drawn from a pool refilled 4 KiB at a time: one call into the CSPRNG per 256 ids, not one per id. */
const pool = Buffer.alloc(4096);
let poolAt = pool.length;

/** `n` fresh random bytes (a copy: the pool is reused). */
function random(n: number): Buffer {
  if (poolAt + n > pool.length) {
    randomFillSync(pool);
    poolAt = 0;
  }
  const out = Buffer.from(pool.subarray(poolAt, poolAt + n));
  poolAt += n;
  return out;
}

/**
 * A new instance id: a UUIDv7 (RFC 9562) whose 12-bit rand_a is a counter, so ids made by this process
 * increase strictly. Lists order by (createdAt, id); with random ids, instances created within one
 * millisecond would come back in random order rather than in the order they were created.
 */
export function newId(now: number = Date.now()): string {
  const bytes = random(16);
  if (now > lastMs) {
    lastMs = now;
    counter = ((bytes[6]! << 8) | bytes[7]!) & 0x3ff; // leaves room for at least 3,072 more ids in this millisecond
  } else if (++counter > 0xfff) {
    lastMs++; // the counter overflowed: borrow the next millisecond
    counter = 0;
  }
  bytes.writeUIntBE(lastMs, 0, 6);
  bytes.writeUInt16BE(0x7000 | counter, 6);
  bytes[8] = (bytes[8]! & 0x3f) | 0x80;
  const hex = bytes.toString("hex");
  return `${hex.slice(0, 8)}-${hex.slice(8, 12)}-${hex.slice(12, 16)}-${hex.slice(16, 20)}-${hex.slice(20)}`;
}

/** offset and limit from the query: integers, offset >= 0, 1 <= limit <= max. */
export function paging(svc: ServiceContext, query: Query): { offset: number; limit: number } {
  const read = (name: "offset" | "limit", fallback: number, min: number, max: number) => {
    const raw = query[name];
    if (raw === undefined || raw === "") return fallback;
    const text = Array.isArray(raw) ? raw[raw.length - 1]! : raw;
    if (!/^\d{1,9}$/.test(text)) throw svc.error("invalidPaging", name, `${name} must be an integer from ${min} to ${max}.`);
    const n = Number(text);
    if (n < min || n > max) throw svc.error("invalidPaging", name, `${name} must be an integer from ${min} to ${max}.`);
    return n;
  };
  return {
    offset: read("offset", 0, 0, 1_000_000_000),
    limit: read("limit", svc.spec.paging.defaultLimit, 1, svc.spec.paging.maxLimit),
  };
}

type Shaping = { readonly expand: Selection; readonly fields: Selection | undefined };

/** Neither fields nor expand: most requests. */
const PLAIN: Shaping = Object.freeze({ expand: EMPTY_SELECTION, fields: undefined });

/** Most shapings remembered per resource: clients send the same few fields/expand values over and over. */
const SHAPING_CACHE_LIMIT = 500;
const shapings = new WeakMap<ResourceSpec, Map<string, Shaping>>();

/** The expand and fields selections of the query, checked against the resource (parsed once per distinct value). */
function shaping(svc: ServiceContext, resource: ResourceSpec, query: Query): Shaping {
  const fieldsText = selectionText(query.fields);
  const expandText = selectionText(query.expand);
  if (fieldsText === undefined && expandText === undefined) return PLAIN;
  let cache = shapings.get(resource);
  if (cache === undefined) shapings.set(resource, (cache = new Map()));
  const key = `${fieldsText?.length ?? 0}:${fieldsText ?? ""}${expandText ?? ""}`; // the length tells where one value ends
  let shaped = cache.get(key);
  if (shaped === undefined) {
    const parse = (name: "fields" | "expand", text: string | undefined): Selection | undefined => {
      if (text === undefined) return undefined;
      const parsed = parseSelection(text);
      if (!parsed.ok) throw svc.error(name === "fields" ? "unknownField" : "unknownExpand", name, parsed.error);
      const checked = checkSelection(parsed.tree, resource, svc.resources, name);
      if (!checked.ok) throw svc.error(name === "fields" ? "unknownField" : "unknownExpand", name, `"${checked.name}" cannot be used in ${name} here.`);
      return parsed.tree;
    };
    const fields = parse("fields", fieldsText);
    const expand = parse("expand", expandText);
    shaped = { expand: expansionOf(fields, expand, resource, svc.resources), fields };
    if (cache.size >= SHAPING_CACHE_LIMIT) cache.clear(); // bounded: a client varying the values cannot grow it
    cache.set(key, shaped);
  }
  return shaped;
}

/** A fields or expand query value as one text (a repeated parameter joins with ","); undefined when absent or empty. */
function selectionText(raw: string | string[] | undefined): string | undefined {
  const text = Array.isArray(raw) ? raw.join(",") : raw;
  return text === undefined || text === "" ? undefined : text;
}

/** A write needs a JSON body; a request without one (and without a Content-Type) is a 415. */
function requireBody(svc: ServiceContext, req: FastifyRequest, resource: ResourceSpec): void {
  const accepted = svc.offers(resource.mediaType).slice(1);
  if (req.body === undefined || !isJsonContentType(req.headers["content-type"], accepted)) {
    throw svc.error("unsupportedMediaType", "", `Send the body as JSON: Content-Type application/json, application/merge-patch+json, ${accepted.join(" or ")}.`);
  }
}

/**
 * Runs a write, answering 409 with the property when an x-unique value is taken.
 * @example "Another author already has this name."
 */
async function unique(svc: ServiceContext, resource: ResourceSpec, write: () => Promise<unknown>): Promise<void> {
  try {
    await write();
  } catch (e) {
    if (!(e instanceof UniqueViolation)) throw e;
    const noun = spokenName(resource.name);
    throw new ApiError(entry(svc.catalog, "conflict"), e.property, {
      message: `Another ${noun} already has this ${e.property}.`,
      dev: `Another ${noun} already has this ${e.property}: "${e.property}" is unique among ${resource.collection}. Choose another value, or update that ${noun} instead.`,
    });
  }
}

/** A resource's camelCase singular as words: "libraryBook" → "library book". */
function spokenName(name: string): string {
  return name.replace(/([a-z0-9])([A-Z])/g, "$1 $2").toLowerCase();
}

/**
 * Request body → stored data: links become ids and must name instances the caller may see. On an update,
 * a link the instance already holds is kept without that check, so a merge patch of other fields still
 * works after the linked instance was deleted.
 */
async function toStored(svc: ServiceContext, caller: Caller, resource: ResourceSpec, input: Json, current?: StoredRecord): Promise<Json> {
  const data: Json = {};
  for (const field of resource.fields) {
    if (!Object.prototype.hasOwnProperty.call(input, field.name) || field.link?.inverse || field.name === resource.owner) continue;
    const value = input[field.name];
    const held = current?.data[field.name];
    const kept = new Set(typeof held === "string" ? [held] : Array.isArray(held) ? (held as string[]) : []);
    if (field.kind === "link") {
      data[field.name] = await linkId(svc, caller, field.link!.target, value, field.name, kept);
    } else if (field.kind === "links") {
      const ids: string[] = [];
      for (const item of value as unknown[]) ids.push(await linkId(svc, caller, field.link!.target, item, field.name, kept));
      data[field.name] = [...new Set(ids)];
    } else {
      data[field.name] = value;
    }
  }
  return data;
}

async function linkId(svc: ServiceContext, caller: Caller, target: string, link: unknown, property: string, kept: ReadonlySet<string>): Promise<string> {
  const href = hrefOfLink(link);
  const id = idFromHref(href, svc.baseUrl, target);
  if (id === undefined || (!kept.has(id) && !(await linkable(svc, caller, target, id)))) {
    throw svc.error("invalidLink", property, `${JSON.stringify(href ?? null)} is not the href of an existing ${target} instance.`);
  }
  return id;
}

/**
 * True when a body may link to instance `id` of `collection`: it exists and the caller may see it. An
 * x-owner instance of another key answers exactly as a missing one, so a link never tells that it exists.
 */
async function linkable(svc: ServiceContext, caller: Caller, collection: string, id: string): Promise<boolean> {
  const target = svc.resources.get(collection)!;
  if (target.owner === undefined || isAdmin(caller, target)) return (await svc.store.existing(collection, [id])).size > 0;
  const record = await svc.store.get(collection, id);
  return record !== undefined && canSee(caller, target, record);
}

/** Stored data → the request-body shape (links as { meta: { href } }), the base of a merge patch. */
function toWire(svc: ServiceContext, resource: ResourceSpec, record: StoredRecord): Json {
  const out: Json = {};
  for (const field of resource.fields) {
    if (!Object.prototype.hasOwnProperty.call(record.data, field.name)) continue;
    const v = record.data[field.name];
    if (field.kind === "link") out[field.name] = { meta: { href: hrefOf(svc.baseUrl, field.link!.target, String(v)) } };
    else if (field.kind === "links") out[field.name] = (v as string[]).map((id) => ({ meta: { href: hrefOf(svc.baseUrl, field.link!.target, id) } }));
    else out[field.name] = v;
  }
  return out;
}

/** RFC 7396 JSON merge patch: null removes, objects merge, anything else replaces. */
export function mergePatch(target: unknown, patch: unknown): Json {
  if (patch === null || typeof patch !== "object" || Array.isArray(patch)) return patch as Json;
  const out: Json = target !== null && typeof target === "object" && !Array.isArray(target) ? { ...(target as Json) } : {};
  for (const [key, value] of Object.entries(patch as Json)) {
    if (value === null) delete out[key];
    else Object.defineProperty(out, key, { value: mergePatch(out[key], value), enumerable: true, writable: true, configurable: true });
  }
  return out;
}
