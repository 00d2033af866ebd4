/**
 * Representations: every instance and collection carries meta { href, mediaType }; links are
 * { meta }; `expand` inlines links (collection links inline a page); `fields` keeps only what was asked.
 */
import { canSee, isAdmin, type Caller } from "./authenticate.js";
import { hrefOf } from "./links.js";
import { EMPTY_SELECTION, isEmptySelection, type Selection } from "./select.js";
import type { FieldSpec, ResourceSpec, ServiceSpec } from "./spec.js";
import { andThen, readRecord, type ListQuery, type Page, type Store, type StoredRecord } from "./store.js";

type Json = Record<string, unknown>;

/** What building a representation needs to know about the request. */
export interface RepresentContext {
  readonly spec: ServiceSpec;
  readonly resources: ReadonlyMap<string, ResourceSpec>;
  readonly store: Store;
  readonly baseUrl: string;
  readonly caller: Caller;
}

/** The link object of an instance. @example { meta: { href: ".../books/1", mediaType: "application/vnd.acme.v1.book+json" } } */
export function instanceLink(ctx: RepresentContext, resource: ResourceSpec, id: string): Json {
  return { meta: { href: hrefOf(ctx.baseUrl, resource.collection, id), mediaType: resource.mediaType } };
}

/** The href of a sub-collection: <instance href>/<field>. */
export function subCollectionHref(ctx: RepresentContext, resource: ResourceSpec, id: string, field: string): string {
  return `${hrefOf(ctx.baseUrl, resource.collection, id)}/${field}`;
}

/** The records of a collection link of `record`: the inverse relation or the stored list, narrowed to what the caller may see. */
export async function subCollection(ctx: RepresentContext, resource: ResourceSpec, record: StoredRecord, field: FieldSpec, offset: number, limit: number): Promise<Page> {
  const target = ctx.resources.get(field.link!.target)!;
  const owner = target.owner !== undefined && !isAdmin(ctx.caller, target) ? ctx.caller.id : undefined;
  const query: ListQuery = field.link!.inverse
    ? { offset, limit, owner, where: { field: field.link!.inverse, equals: record.id } }
    : { offset, limit, owner, ids: ((record.data[field.name] as string[] | undefined) ?? []) };
  return ctx.store.list(target.collection, query);
}

/** The full representation of one instance, with `expand` applied and then `fields`. */
export async function representInstance(ctx: RepresentContext, resource: ResourceSpec, record: StoredRecord, expand: Selection = EMPTY_SELECTION, fields?: Selection): Promise<Json> {
  return representNow(ctx, resource, record, expand, fields);
}

/**
 * representInstance, at once when it can be: nothing to expand, or a store that reads without
 * waiting (ImmediateReads) and no expanded collection link; else a promise.
 */
export function representNow(ctx: RepresentContext, resource: ResourceSpec, record: StoredRecord, expand: Selection = EMPTY_SELECTION, fields?: Selection): Json | Promise<Json> {
  if (isEmptySelection(expand)) return representPlain(ctx, resource, record, fields);
  return andThen(build(ctx, resource, record, expand), (full) => (fields ? pick(full, fields) : full));
}

/** The representation of one instance with nothing to expand, then `fields`: synchronous, it needs nothing from the store. */
export function representPlain(ctx: RepresentContext, resource: ResourceSpec, record: StoredRecord, fields?: Selection): Json {
  const full = buildPlain(ctx, resource, record);
  return fields ? pick(full, fields) : full;
}

/** A page of a collection: { meta, offset, limit, size, items }. */
export async function representPage(
  ctx: RepresentContext,
  resource: ResourceSpec,
  page: Page,
  at: { href: string; offset: number; limit: number },
  expand: Selection = EMPTY_SELECTION,
  fields?: Selection,
): Promise<Json> {
  const items: Json[] = [];
  if (isEmptySelection(expand)) {
    // Nothing to expand: every item is built without touching the store, so no await per item.
    for (const record of page.items) items.push(representPlain(ctx, resource, record, fields));
  } else {
    for (const record of page.items) items.push(await representInstance(ctx, resource, record, expand, fields));
  }
  return { meta: { href: at.href, mediaType: resource.collectionMediaType }, offset: at.offset, limit: at.limit, size: page.size, items };
}

/** The representation of an instance with no link expanded (synchronous: it needs nothing from the store). */
function buildPlain(ctx: RepresentContext, resource: ResourceSpec, record: StoredRecord): Json {
  const out: Json = {
    meta: { href: hrefOf(ctx.baseUrl, resource.collection, record.id), mediaType: resource.mediaType },
    id: record.id,
    createdAt: record.createdAt,
    modifiedAt: record.modifiedAt,
  };
  for (const field of resource.fields) {
    if (field.kind === "link") {
      const id = record.data[field.name];
      if (typeof id === "string") out[field.name] = instanceLink(ctx, ctx.resources.get(field.link!.target)!, id);
    } else if (field.kind === "links") {
      const target = ctx.resources.get(field.link!.target)!;
      out[field.name] = { meta: { href: subCollectionHref(ctx, resource, record.id, field.name), mediaType: target.collectionMediaType } };
    } else if (Object.prototype.hasOwnProperty.call(record.data, field.name)) {
      out[field.name] = record.data[field.name];
    }
  }
  if (resource.owner !== undefined && record.owner !== undefined) out[resource.owner] = record.owner;
  return out;
}

/**
 * The representation with the links named in `expand` inlined (the rest as buildPlain writes them):
 * at once when every expansion is (see representNow), else a promise of it.
 */
function build(ctx: RepresentContext, resource: ResourceSpec, record: StoredRecord, expand: Selection): Json | Promise<Json> {
  const out = buildPlain(ctx, resource, record);
  const pending: Promise<void>[] = [];
  for (const field of resource.fields) {
    const nested = expand[field.name];
    if (!nested || !field.link) continue;
    const target = ctx.resources.get(field.link.target)!;
    let value: Json | Promise<Json> | undefined;
    if (field.kind === "link") {
      const id = record.data[field.name];
      if (typeof id === "string") value = expandInstance(ctx, target, id, nested);
    } else if (field.kind === "links" && canRead(ctx.caller, target)) {
      value = expandPage(ctx, resource, record, field, nested);
    }
    // buildPlain wrote every link already: replacing its value keeps the order of the keys.
    if (value instanceof Promise) pending.push(value.then((v) => void (out[field.name] = v)));
    else if (value !== undefined) out[field.name] = value;
  }
  return pending.length === 0 ? out : Promise.all(pending).then(() => out);
}

/** The expanded target of an instance link; a plain link when it is gone or the caller may not see it. */
function expandInstance(ctx: RepresentContext, target: ResourceSpec, id: string, nested: Selection): Json | Promise<Json> {
  if (!canRead(ctx.caller, target)) return instanceLink(ctx, target, id);
  return andThen(readRecord(ctx.store, target.collection, id), (found) => {
    if (!found || !canSee(ctx.caller, target, found)) return instanceLink(ctx, target, id);
    return isEmptySelection(nested) ? buildPlain(ctx, target, found) : build(ctx, target, found, nested);
  });
}

/** An expanded collection link: its first page, each item built with `nested`. */
async function expandPage(ctx: RepresentContext, resource: ResourceSpec, record: StoredRecord, field: FieldSpec, nested: Selection): Promise<Json> {
  const target = ctx.resources.get(field.link!.target)!;
  const limit = ctx.spec.paging.defaultLimit;
  const page = await subCollection(ctx, resource, record, field, 0, limit);
  const items = [];
  for (const r of page.items) items.push(await build(ctx, target, r, nested));
  const href = subCollectionHref(ctx, resource, record.id, field.name);
  return { meta: { href, mediaType: target.collectionMediaType }, offset: 0, limit, size: page.size, items };
}

function canRead(caller: Caller, resource: ResourceSpec): boolean {
  const allowed = resource.access.read;
  return allowed === undefined || isAdmin(caller, resource) || caller.roles.some((r) => allowed.includes(r));
}

/** Keeps `meta` and the selected fields; a nested selection applies inside an expanded link or page. */
export function pick(value: Json, fields: Selection): Json {
  const out: Json = { meta: value.meta };
  for (const name of Object.keys(fields)) {
    if (!Object.prototype.hasOwnProperty.call(value, name) || name === "meta") continue;
    const v = value[name];
    const nested = fields[name]!;
    if (Object.keys(nested).length > 0 && v !== null && typeof v === "object") {
      const inner = v as Json;
      out[name] = Array.isArray(inner.items)
        ? { ...inner, items: (inner.items as Json[]).map((item) => pick(item, nested)) }
        : pick(inner, nested);
    } else {
      out[name] = v;
    }
  }
  return out;
}
