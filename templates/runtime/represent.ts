/**
 * Representations: every instance and collection carries meta { href, mediaType }; links are
 * { meta }; `expand` inlines links (collection links inline a page); `fields` keeps only what was asked.
 * writeOnly properties are never part of one. One response inlines at most `expandLimit` instances.
 */
import { canSee, isAdmin, type Caller } from "./authenticate.js";
import { DEFAULT_EXPAND_LIMIT, EXPANDED_PAGE_LIMIT } from "./conventions.js";
import { ApiError, catalogOf, entry } from "./errors.js";
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
  /** Most instances one response inlines through expand and fields (default DEFAULT_EXPAND_LIMIT). */
  readonly expandLimit?: number | undefined;
}

export { DEFAULT_EXPAND_LIMIT, EXPANDED_PAGE_LIMIT } from "./conventions.js";

/**
 * What one response has inlined so far. Every instance an expansion reads counts, whether it is there
 * or not; past the limit the whole request is a 400 expandTooLarge: a truncated answer would look complete.
 */
class ExpandBudget {
  private used = 0;

  constructor(private readonly ctx: RepresentContext) {}

  /** Counts `n` more inlined instances; throws expandTooLarge past the limit. */
  take(n: number): void {
    this.used += n;
    const limit = this.ctx.expandLimit ?? DEFAULT_EXPAND_LIMIT;
    if (this.used <= limit) return;
    throw new ApiError(entry(catalogOf(this.ctx.spec.errors), "expandTooLarge"), "expand", {
      dev:
        `This response would inline more than ${limit} instances through expand and fields. Ask for less: ` +
        `expand fewer or shallower links, a smaller limit, or follow the links (each collection link's href pages with offset and limit).`,
    });
  }
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
  return andThen(build(ctx, resource, record, expand, new ExpandBudget(ctx)), (full) => (fields ? pick(full, fields, resource, ctx.resources) : full));
}

/** The representation of one instance with nothing to expand, then `fields`: synchronous, it needs nothing from the store. */
export function representPlain(ctx: RepresentContext, resource: ResourceSpec, record: StoredRecord, fields?: Selection): Json {
  const full = buildPlain(ctx, resource, record);
  return fields ? pick(full, fields, resource, ctx.resources) : full;
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
    const budget = new ExpandBudget(ctx); // one for the whole page: it bounds the response
    for (const record of page.items) {
      const full = await build(ctx, resource, record, expand, budget);
      items.push(fields ? pick(full, fields, resource, ctx.resources) : full);
    }
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
    if (field.writeOnly) continue;
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
function build(ctx: RepresentContext, resource: ResourceSpec, record: StoredRecord, expand: Selection, budget: ExpandBudget): Json | Promise<Json> {
  const out = buildPlain(ctx, resource, record);
  const pending: Promise<void>[] = [];
  for (const field of resource.fields) {
    const nested = expand[field.name];
    if (!nested || !field.link || field.writeOnly) continue;
    const target = ctx.resources.get(field.link.target)!;
    let value: Json | Promise<Json> | undefined;
    if (field.kind === "link") {
      const id = record.data[field.name];
      if (typeof id === "string") value = expandInstance(ctx, target, id, nested, budget);
    } else if (field.kind === "links" && canRead(ctx.caller, target)) {
      value = expandPage(ctx, resource, record, field, nested, budget);
    }
    // buildPlain wrote every link already: replacing its value keeps the order of the keys.
    if (value instanceof Promise) pending.push(value.then((v) => void (out[field.name] = v)));
    else if (value !== undefined) out[field.name] = value;
  }
  return pending.length === 0 ? out : Promise.all(pending).then(() => out);
}

/** The expanded target of an instance link; a plain link when it is gone or the caller may not see it. */
function expandInstance(ctx: RepresentContext, target: ResourceSpec, id: string, nested: Selection, budget: ExpandBudget): Json | Promise<Json> {
  if (!canRead(ctx.caller, target)) return instanceLink(ctx, target, id);
  budget.take(1);
  return andThen(readRecord(ctx.store, target.collection, id), (found) => {
    if (!found || !canSee(ctx.caller, target, found)) return instanceLink(ctx, target, id);
    return isEmptySelection(nested) ? buildPlain(ctx, target, found) : build(ctx, target, found, nested, budget);
  });
}

/** An expanded collection link: its first page (EXPANDED_PAGE_LIMIT items at most), each item built with `nested`. */
async function expandPage(ctx: RepresentContext, resource: ResourceSpec, record: StoredRecord, field: FieldSpec, nested: Selection, budget: ExpandBudget): Promise<Json> {
  const target = ctx.resources.get(field.link!.target)!;
  const limit = Math.min(ctx.spec.paging.defaultLimit, EXPANDED_PAGE_LIMIT);
  const page = await subCollection(ctx, resource, record, field, 0, limit);
  budget.take(page.items.length);
  const items = [];
  for (const r of page.items) items.push(await build(ctx, target, r, nested, budget));
  const href = subCollectionHref(ctx, resource, record.id, field.name);
  return { meta: { href, mediaType: target.collectionMediaType }, offset: 0, limit, size: page.size, items };
}

function canRead(caller: Caller, resource: ResourceSpec): boolean {
  const allowed = resource.access.read;
  return allowed === undefined || isAdmin(caller, resource) || caller.roles.some((r) => allowed.includes(r));
}

/**
 * Keeps `meta` and the selected fields of a representation of `resource`; a nested selection applies
 * inside an expanded link or page (to the target's fields) and inside a plain object (to its properties).
 */
export function pick(value: Json, fields: Selection, resource: ResourceSpec, resources: ReadonlyMap<string, ResourceSpec>): Json {
  const out: Json = { meta: value.meta };
  pickInto(out, value, fields, resource.fields, resources);
  return out;
}

/** Copies the selected own keys of `value` (never `meta`) into `out`, selecting inside by `declared`. */
function pickInto(out: Json, value: Json, fields: Selection, declared: readonly FieldSpec[], resources: ReadonlyMap<string, ResourceSpec>): void {
  for (const name of Object.keys(fields)) {
    if (!Object.prototype.hasOwnProperty.call(value, name) || name === "meta") continue;
    const v = value[name];
    const nested = fields[name]!;
    // A flat selection (the common case) copies the value: the field's declaration is looked up only to select inside it.
    const field = isEmptySelection(nested) || v === null || typeof v !== "object" || Array.isArray(v) ? undefined : declared.find((f) => f.name === name);
    if (field === undefined) {
      out[name] = v;
    } else if (field.link !== undefined) {
      const target = resources.get(field.link.target);
      const inner = v as Json;
      if (target === undefined) out[name] = inner;
      else if (Array.isArray(inner.items)) out[name] = { ...inner, items: (inner.items as Json[]).map((item) => pick(item, nested, target, resources)) };
      else out[name] = pick(inner, nested, target, resources);
    } else {
      const inner: Json = {};
      pickInto(inner, v as Json, nested, field.properties ?? [], resources);
      out[name] = inner;
    }
  }
}
