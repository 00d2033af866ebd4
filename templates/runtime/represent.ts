/**
 * Representations: every instance and collection carries meta { href, mediaType }; links are
 * { meta }; `expand` inlines links (collection links inline a page); `fields` keeps only what was asked.
 * writeOnly properties are never part of one. One response inlines at most `expandLimit` instances.
 * A resource's read hook (ResourceHooks.read) sees every instance before the caller does: it may change
 * the representation or hide the instance, which is then left out of pages and not inlined.
 */
import { canSee, isAdmin, type Caller } from "./authenticate.js";
import { DEFAULT_EXPAND_LIMIT, EXPANDED_PAGE_LIMIT } from "./conventions.js";
import type { HandlerContext } from "./context.js";
import { ApiError, catalogOf, entry } from "./errors.js";
import { idValue } from "./ids.js";
import { hrefOf } from "./links.js";
import { EMPTY_SELECTION, isEmptySelection, SERVER_FIELDS, type Selection } from "./select.js";
import type { FieldSpec, ResourceSpec, ServiceSpec } from "./spec.js";
import { andThen, readPage, readRecord, type ListQuery, type Page, type Store, type StoredRecord } from "./store.js";

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
  /** The read hooks to run, when some resource of the service has one (absent: nothing to run, no cost). */
  readonly read?: ReadRules | undefined;
  /** True for a request in an older version: representations hold the properties only older versions have (FieldSpec.retired). */
  readonly withRetired?: boolean | undefined;
}

export { DEFAULT_EXPAND_LIMIT, EXPANDED_PAGE_LIMIT } from "./conventions.js";

/**
 * A resource's read hook as the runtime calls it: the representation to show (the one given, changed in
 * place or not, when it answers nothing), or false to hide the instance from this caller.
 */
export type ReadHook = (instance: Json, ctx: HandlerContext) => Json | false | void | PromiseLike<Json | false | void>;

/** The read hooks of a request: the service's, by collection, and the context they run with (made on first use). */
export interface ReadRules {
  readonly hooks: ReadonlyMap<string, ReadHook>;
  readonly context: () => HandlerContext;
}

/** A page of records and, when their resource has a read hook, the representation shown of each (same order). */
export interface ShownPage extends Page {
  readonly shown?: readonly Json[] | undefined;
}

/** How many records a list with a read hook reads from the store at a time while it walks the collection. */
const SHOWN_BATCH = 200;

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
export async function subCollection(ctx: RepresentContext, resource: ResourceSpec, record: StoredRecord, field: FieldSpec, offset: number, limit: number): Promise<ShownPage> {
  const target = ctx.resources.get(field.link!.target)!;
  const owner = target.owner !== undefined && !isAdmin(ctx.caller, target) ? ctx.caller.id : undefined;
  const query: ListQuery = field.link!.inverse
    ? { offset, limit, owner, where: { field: field.link!.inverse, equals: record.id } }
    : { offset, limit, owner, ids: ((record.data[field.name] as string[] | undefined) ?? []) };
  return listShown(ctx, target, query);
}

/**
 * A page of `resource`'s records narrowed by `query`, as the caller is shown it. Without a read hook it is
 * the store's page. With one, the hook decides what is shown, which no index knows: the narrowed records
 * are read in order, SHOWN_BATCH at a time, each through the hook, so that `offset`, `limit` and `size`
 * count shown instances only (a list then costs a hook call per instance of the narrowed collection).
 */
export function listShown(ctx: RepresentContext, resource: ResourceSpec, query: ListQuery): ShownPage | Promise<ShownPage> {
  const hook = ctx.read?.hooks.get(resource.collection);
  // Without a hook, the store's own page (at once from a store that lists without waiting): a list costs
  // nothing more than before read hooks existed.
  return hook === undefined ? readPage(ctx.store, resource.collection, query) : walkShown(ctx, resource, query, hook);
}

/** listShown through a read hook: the narrowed collection read in batches, each record through the hook. */
async function walkShown(ctx: RepresentContext, resource: ResourceSpec, query: ListQuery, hook: ReadHook): Promise<ShownPage> {
  const items: StoredRecord[] = [];
  const shownItems: Json[] = [];
  let size = 0;
  for (let at = 0; ; at += SHOWN_BATCH) {
    const batch = await ctx.store.list(resource.collection, { ...query, offset: at, limit: SHOWN_BATCH });
    for (const record of batch.items) {
      const view = await throughHook(hook, buildPlain(ctx, resource, record), ctx.read!, resource);
      if (view === undefined) continue;
      if (size >= query.offset && items.length < query.limit) {
        items.push(record);
        shownItems.push(view);
      }
      size++;
    }
    if (batch.items.length < SHOWN_BATCH) break;
  }
  return { items, size, shown: shownItems };
}

/**
 * The representation of `record` the caller is shown, with nothing expanded: through its resource's read
 * hook when it has one; undefined when the hook hides it. At once without a hook.
 */
export function representShown(ctx: RepresentContext, resource: ResourceSpec, record: StoredRecord): Json | undefined | Promise<Json | undefined> {
  const full = buildPlain(ctx, resource, record);
  const hook = ctx.read?.hooks.get(resource.collection);
  return hook === undefined ? full : throughHook(hook, full, ctx.read!, resource);
}

/** `full` through a read hook: what it answers, `full` when it answers nothing, undefined when it hides the instance; meta is kept. */
function throughHook(hook: ReadHook, full: Json, rules: ReadRules, resource: ResourceSpec): Json | undefined | Promise<Json | undefined> {
  const settle = (out: Json | false | void): Json | undefined => {
    if (out === false) return undefined;
    if (out === undefined || out === null || out === full) return full;
    if (typeof out !== "object" || Array.isArray(out)) throw new TypeError(`the read hook of ${resource.collection} answered ${typeof out}: answer the representation, false to hide it, or nothing`);
    if (out.meta === full.meta) return out;
    const kept: Json = { meta: full.meta, ...out };
    kept.meta = full.meta; // the href and media type are the service's, whatever the hook answered
    return kept;
  };
  const out = hook(full, rules.context());
  return isThenable(out) ? Promise.resolve(out).then(settle) : settle(out);
}

function isThenable<T>(value: unknown): value is PromiseLike<T> {
  return value !== null && (typeof value === "object" || typeof value === "function") && typeof (value as { then?: unknown }).then === "function";
}

/** The full representation of one instance, with `expand` applied and then `fields` (undefined: hidden by a read hook). */
export async function representInstance(ctx: RepresentContext, resource: ResourceSpec, record: StoredRecord, expand: Selection = EMPTY_SELECTION, fields?: Selection): Promise<Json | undefined> {
  return representNow(ctx, resource, record, expand, fields);
}

/**
 * representInstance, at once when it can be: nothing to expand (and no read hook that answers later), or
 * a store that reads without waiting (ImmediateReads) and no expanded collection link; else a promise.
 */
export function representNow(ctx: RepresentContext, resource: ResourceSpec, record: StoredRecord, expand: Selection = EMPTY_SELECTION, fields?: Selection): Json | undefined | Promise<Json | undefined> {
  const shape = (full: Json) => (fields ? pick(full, fields, resource, ctx.resources) : full);
  if (ctx.read === undefined) {
    if (isEmptySelection(expand)) return shape(buildPlain(ctx, resource, record));
    return andThen(build(ctx, resource, record, expand, new ExpandBudget(ctx)), shape);
  }
  return andThen(representShown(ctx, resource, record), (base) => {
    if (base === undefined) return undefined;
    if (isEmptySelection(expand)) return shape(base);
    return andThen(build(ctx, resource, record, expand, new ExpandBudget(ctx), base), shape);
  });
}

/**
 * A page of a collection: { meta, offset, limit, size, items }. At once when nothing is expanded (every item is
 * built without the store), else once the expanded instances are read.
 */
export function representPage(
  ctx: RepresentContext,
  resource: ResourceSpec,
  page: ShownPage,
  at: { href: string; offset: number; limit: number },
  expand: Selection = EMPTY_SELECTION,
  fields?: Selection,
): Json | Promise<Json> {
  const shown = page.shown;
  if (!isEmptySelection(expand)) return representExpandedPage(ctx, resource, page, at, expand, fields);
  const items: Json[] = [];
  for (let i = 0; i < page.items.length; i++) {
    const full = shown?.[i] ?? buildPlain(ctx, resource, page.items[i]!);
    items.push(fields ? pick(full, fields, resource, ctx.resources) : full);
  }
  return { meta: { href: at.href, mediaType: resource.collectionMediaType }, offset: at.offset, limit: at.limit, size: page.size, items };
}

async function representExpandedPage(
  ctx: RepresentContext,
  resource: ResourceSpec,
  page: ShownPage,
  at: { href: string; offset: number; limit: number },
  expand: Selection,
  fields?: Selection,
): Promise<Json> {
  const items: Json[] = [];
  const shown = page.shown;
  const budget = new ExpandBudget(ctx); // one for the whole page: it bounds the response
  for (let i = 0; i < page.items.length; i++) {
    const full = await build(ctx, resource, page.items[i]!, expand, budget, shown?.[i]);
    items.push(fields ? pick(full, fields, resource, ctx.resources) : full);
  }
  return { meta: { href: at.href, mediaType: resource.collectionMediaType }, offset: at.offset, limit: at.limit, size: page.size, items };
}

/** The representation of an instance with no link expanded (synchronous: it needs nothing from the store), before any read hook. */
export function buildPlain(ctx: RepresentContext, resource: ResourceSpec, record: StoredRecord): Json {
  const out: Json = {
    meta: { href: hrefOf(ctx.baseUrl, resource.collection, record.id), mediaType: resource.mediaType },
    id: idValue(resource.idForm, record.id),
    createdAt: record.createdAt,
    modifiedAt: record.modifiedAt,
  };
  for (const field of resource.fields) {
    if (field.writeOnly || (field.retired && ctx.withRetired !== true)) continue;
    if (field.kind === "link") {
      const id = record.data[field.name];
      if (typeof id === "string") out[field.name] = instanceLink(ctx, ctx.resources.get(field.link!.target)!, id);
      else if (id === null) out[field.name] = null;
    } else if (field.kind === "links") {
      const target = ctx.resources.get(field.link!.target)!;
      out[field.name] = { meta: { href: subCollectionHref(ctx, resource, record.id, field.name), mediaType: target.collectionMediaType } };
    } else if (Object.prototype.hasOwnProperty.call(record.data, field.name)) {
      out[field.name] = record.data[field.name];
    }
  }
  if (resource.owner !== undefined && record.owner !== undefined) out[resource.owner] = record.owner;
  copyOtherProperties(resource, record.data, out);
  return out;
}

/**
 * Copies into `to` the properties of `from` that an open resource (ResourceSpec.open) holds besides its
 * declared ones (see extraKeys): into what is stored, its representation, the base of a merge patch.
 * Nothing for a closed resource.
 */
export function copyOtherProperties(resource: ResourceSpec, from: Json, to: Json): void {
  if (resource.open !== true) return;
  for (const key of extraKeys(resource, from)) setOwn(to, key, from[key]);
}

/** The names a resource's representation holds of its own: its fields, the server's, its owner's. */
const declaredOf = new WeakMap<ResourceSpec, ReadonlySet<string>>();

/**
 * The keys of `value` that are none of the resource's own names (see declaredOf): the properties an open
 * resource (ResourceSpec.open) stores and represents besides its declared ones.
 * @example extraKeys(notes, { title: "a", colour: "red" }) → ["colour"]
 */
export function extraKeys(resource: ResourceSpec, value: Json): string[] {
  let declared = declaredOf.get(resource);
  if (declared === undefined) {
    declared = new Set([...resource.fields.map((f) => f.name), ...SERVER_FIELDS, ...(resource.owner === undefined ? [] : [resource.owner])]);
    declaredOf.set(resource, declared);
  }
  return Object.keys(value).filter((key) => !declared.has(key));
}

/** Sets an own property, whatever its name ("__proto__" included). */
function setOwn(target: Json, key: string, value: unknown): void {
  Object.defineProperty(target, key, { value, enumerable: true, writable: true, configurable: true });
}

/**
 * The representation with the links named in `expand` inlined (the rest as buildPlain writes them, or as
 * `shown`, what a read hook answered, has them): at once when every expansion is (see representNow), else
 * a promise of it. A link the read hook left out stays out.
 */
function build(ctx: RepresentContext, resource: ResourceSpec, record: StoredRecord, expand: Selection, budget: ExpandBudget, shown?: Json): Json | Promise<Json> {
  // What a hook answered may be an object it keeps: the expansions go into a copy.
  const out = shown === undefined ? buildPlain(ctx, resource, record) : { ...shown };
  const pending: Promise<void>[] = [];
  for (const field of resource.fields) {
    const nested = expand[field.name];
    if (!nested || !field.link || field.writeOnly || !Object.prototype.hasOwnProperty.call(out, field.name)) continue;
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

/** The expanded target of an instance link; a plain link when it is gone or the caller may not see it (x-owner, a read hook). */
function expandInstance(ctx: RepresentContext, target: ResourceSpec, id: string, nested: Selection, budget: ExpandBudget): Json | Promise<Json> {
  if (!canRead(ctx.caller, target)) return instanceLink(ctx, target, id);
  budget.take(1);
  return andThen(readRecord(ctx.store, target.collection, id), (found) => {
    if (!found || !canSee(ctx.caller, target, found)) return instanceLink(ctx, target, id);
    if (ctx.read === undefined) return isEmptySelection(nested) ? buildPlain(ctx, target, found) : build(ctx, target, found, nested, budget);
    return andThen(representShown(ctx, target, found), (base) => {
      if (base === undefined) return instanceLink(ctx, target, id);
      return isEmptySelection(nested) ? base : build(ctx, target, found, nested, budget, base);
    });
  });
}

/** An expanded collection link: its first page (EXPANDED_PAGE_LIMIT items at most), each item built with `nested`. */
async function expandPage(ctx: RepresentContext, resource: ResourceSpec, record: StoredRecord, field: FieldSpec, nested: Selection, budget: ExpandBudget): Promise<Json> {
  const target = ctx.resources.get(field.link!.target)!;
  const limit = Math.min(ctx.spec.paging.defaultLimit, EXPANDED_PAGE_LIMIT);
  const page = await subCollection(ctx, resource, record, field, 0, limit);
  budget.take(page.items.length);
  const items = [];
  for (const [i, r] of page.items.entries()) items.push(await build(ctx, target, r, nested, budget, page.shown?.[i]));
  const href = subCollectionHref(ctx, resource, record.id, field.name);
  return { meta: { href, mediaType: target.collectionMediaType }, offset: 0, limit, size: page.size, items };
}

/** True when x-access lets the caller read the collection (admin roles pass). */
export function canRead(caller: Caller, resource: ResourceSpec): boolean {
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
