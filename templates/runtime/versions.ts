/**
 * Several versions at once (CONTRACT §7): one store and one current model; a request in an older version is
 * converted up to the current one before anything else sees it, a representation down to the request's
 * version before it is sent. What a version is, per resource, comes from the spec (emitted from the model's
 * version views): the properties it has and the names it gives them, its media types, its body schema.
 * Conversions the version keywords imply (x-since, x-until, x-renamed) are made here; the user's converters
 * (src/versions/v<N>.ts) take the steps they are written for.
 */
import type { FieldSpec, JsonSchema, ResourceSpec } from "./spec.js";
import { versionedBodyKey } from "./validator-schemas.js";

export { versionedBodyKey } from "./validator-schemas.js";

type Json = Record<string, unknown>;

/** A resource as one older version sees it. */
export interface VersionedResourceSpec {
  readonly mediaType: string;
  readonly collectionMediaType: string;
  /** [current name, name in the version] of each property the version has. */
  readonly fields: readonly (readonly [current: string, wire: string])[];
  /** The version's create/replace body, when it is not the current one's: its schema and its nullable links by wire name. */
  readonly body?: { readonly bodySchema: JsonSchema; readonly fields: readonly { readonly name: string; readonly kind: string; readonly nullable?: boolean }[] } | undefined;
  /** By current name: the defaults of writable properties the version lacks (a create in the version stores them). */
  readonly defaults?: Readonly<Record<string, unknown>> | undefined;
}

/** One older version a service serves. */
export interface VersionSpec {
  readonly version: number;
  /** YYYY-MM-DD after which the version may stop being served. */
  readonly sunset?: string | undefined;
  /** YYYY-MM-DD the version was deprecated (its Deprecation header): service.json's date, else its sunset's. */
  readonly deprecated?: string | undefined;
  /** By collection: the collections the version serves. */
  readonly resources: Readonly<Record<string, VersionedResourceSpec>>;
}

/**
 * The converters a user writes for one older version N (src/versions/v<N>.ts), by collection: `up` turns a
 * version-N body (validated against version N's schema) into a version N+1 body, `down` a version N+1
 * representation of one instance into version N's (links inside it are converted on their own).
 */
export interface ResourceConverters {
  up?(body: Json): Json;
  down?(representation: Json): Json;
}
export type VersionConverters<Collection extends string = string> = { readonly [C in Collection]?: ResourceConverters | undefined };

/** Where the path's version (a version prefix, rewritten to the current one's) is kept on the raw request. */
export const PATH_VERSION: unique symbol = Symbol("resourcery.pathVersion");

/**
 * The requests whose body has been converted up: the errors from then on name current properties, which the
 * error answer renames to the request's version's names.
 */
export const IN_CURRENT_NAMES = new WeakSet<object>();

/** Properties every representation has that no version renames or drops. */
const SERVER_OWNED = new Set(["meta", "id", "createdAt", "modifiedAt"]);

/** Sets an own property, whatever its name: "__proto__" too, as data (an assignment would set the prototype). */
function put(out: Json, key: string, value: unknown): void {
  if (key === "__proto__") Object.defineProperty(out, key, { value, enumerable: true, writable: true, configurable: true });
  else out[key] = value;
}

/** The names one version gives a resource's properties. */
interface Names {
  /** current → wire, for the properties the version has. */
  readonly toWire: ReadonlyMap<string, string>;
  /** wire → current. */
  readonly toCurrent: ReadonlyMap<string, string>;
}

const CURRENT_NAMES = (resource: ResourceSpec): Names => {
  const fields = resource.fields.filter((f) => f.retired !== true).map((f) => [f.name, f.name] as const);
  return { toWire: new Map(fields), toCurrent: new Map(fields) };
};

/** `value` with its declared properties renamed from `from`'s names to `to`'s; undeclared ones kept, those `to` lacks dropped. */
function rename(value: Json, declared: ReadonlySet<string>, from: Names | undefined, to: Names | undefined): Json {
  const out: Json = {};
  for (const key of Object.keys(value)) {
    if (SERVER_OWNED.has(key)) {
      put(out, key, value[key]);
      continue;
    }
    const current = from === undefined ? (declared.has(key) ? key : undefined) : from.toCurrent.get(key);
    if (current === undefined) {
      if (!declared.has(key)) put(out, key, value[key]); // an open resource's own property
      continue;
    }
    const wire = to === undefined ? current : to.toWire.get(current);
    if (wire !== undefined) put(out, wire, value[key]);
    else if (to === undefined) put(out, current, value[key]);
  }
  return out;
}

/**
 * A served version other than the service's plain current one, at run time: its base URL, media types,
 * names, body validators and conversions. The routes ask `ServiceContext.versionOf` for it; the current
 * version has none (undefined: nothing to convert) unless a resource has properties only older versions
 * have (x-until), which its representations then leave out.
 */
export class ServedVersion {
  readonly current: boolean;
  /** Response headers of the version: Deprecation for a deprecated one (a sunset deprecates it), Sunset for one with a sunset. */
  readonly headers: readonly (readonly [string, string])[];
  private readonly names = new Map<string, Names>();
  /** The names of every older version ≥ this one and below the current one, by version then collection (for the user's steps). */
  private readonly steps: readonly { readonly version: number; readonly spec: VersionSpec; readonly converters: VersionConverters | undefined }[];
  private readonly declared = new Map<string, ReadonlySet<string>>();
  private readonly currentPrefix: string;
  private readonly ownPrefix: string;
  private readonly offerLists = new Map<readonly string[], readonly string[]>();

  constructor(
    readonly version: number,
    /** The version's spec (undefined for the current version). */
    readonly spec: VersionSpec | undefined,
    readonly resources: ReadonlyMap<string, ResourceSpec>,
    /** The service's vendor token and current version number. */
    vendor: string,
    currentVersion: number,
    /** The base URL of the version's hrefs. */
    readonly baseUrl: string,
    /** Every older version's spec, ascending, with the user's converters of each. */
    older: readonly { readonly spec: VersionSpec; readonly converters: VersionConverters | undefined }[],
  ) {
    this.current = spec === undefined;
    this.currentPrefix = `.v${currentVersion}.`;
    this.ownPrefix = `.v${version}.`;
    this.vendorNames = [`application/vnd.${vendor.toLowerCase()}`, `application/${vendor.toLowerCase()}`];
    for (const [collection, resource] of resources) {
      const vr = spec?.resources[collection];
      if (spec !== undefined && vr === undefined) continue;
      this.names.set(collection, vr === undefined ? CURRENT_NAMES(resource) : { toWire: new Map(vr.fields), toCurrent: new Map(vr.fields.map(([c, w]) => [w, c])) });
      this.declared.set(collection, new Set([...resource.fields.map((f) => f.name), ...(resource.owner === undefined ? [] : [resource.owner])]));
    }
    this.steps = older.filter((o) => o.spec.version >= version).map((o) => ({ version: o.spec.version, spec: o.spec, converters: o.converters }));
    const headers: [string, string][] = [];
    // RFC 9745: a structured-field Date (seconds since the epoch); RFC 8594: an HTTP-date, the sunset day's last second.
    const deprecated = spec?.deprecated ?? spec?.sunset;
    if (deprecated !== undefined) headers.push(["deprecation", `@${Date.parse(`${deprecated}T00:00:00Z`) / 1000}`]);
    if (spec?.sunset !== undefined) headers.push(["sunset", new Date(`${spec.sunset}T23:59:59Z`).toUTCString()]);
    this.headers = headers;
  }

  private readonly vendorNames: readonly string[];

  /** True when the version serves the collection (x-since on a resource's root leaves it out of older versions). */
  has(collection: string): boolean {
    return this.names.has(collection);
  }

  /**
   * The version's media type for one of the current version's (the vendor types of the service in either
   * shape); any other type as it is.
   * @example typeOf("application/vnd.acme.v2.book+json") === "application/vnd.acme.v1.book+json" // in version 1
   */
  typeOf(type: string): string {
    if (this.current) return type;
    const known = this.types.get(type);
    if (known !== undefined) return known;
    const mapped = this.mapType(type);
    // Bounded: the types are the service's own, but a read hook could answer others.
    if (this.types.size < 1000) this.types.set(type, mapped);
    return mapped;
  }
  private readonly types = new Map<string, string>();

  private mapType(type: string): string {
    for (const vendor of this.vendorNames) {
      const head = vendor + this.currentPrefix;
      if (type.startsWith(head)) return vendor + this.ownPrefix + type.slice(head.length);
    }
    return type;
  }

  /** The version's offers for a route's (the current version's) offers: same order, its media types. */
  offers(offers: readonly string[]): readonly string[] {
    let list = this.offerLists.get(offers);
    if (list === undefined) this.offerLists.set(offers, (list = offers.map((o) => this.typeOf(o))));
    return list;
  }

  /** The key of the body validator of a collection in this version (Validators.body): its own when its body differs from the current one's. */
  bodyKey(collection: string): string {
    return this.spec?.resources[collection]?.body === undefined ? collection : versionedBodyKey(collection, this.version);
  }

  private readonly specsByCollection = new Map<string, readonly FieldSpec[]>();

  /** The fields of a collection as the version has them, under its names (a merge patch's nullable properties). */
  fieldSpecs(collection: string): readonly FieldSpec[] {
    let specs = this.specsByCollection.get(collection);
    if (specs === undefined) {
      const names = this.names.get(collection)!;
      specs = this.resources.get(collection)!.fields.flatMap((f) => {
        const wire = names.toWire.get(f.name);
        return wire === undefined ? [] : [{ ...f, name: wire }];
      });
      this.specsByCollection.set(collection, specs);
    }
    return specs;
  }

  /** The version's name of a current property of a collection; undefined when the version lacks it. */
  wireName(collection: string, current: string): string | undefined {
    return this.names.get(collection)?.toWire.get(current);
  }

  /** The current name of a property of the collection as the version names it; undefined when the version has no such property. */
  currentName(collection: string, wire: string): string | undefined {
    return this.names.get(collection)?.toCurrent.get(wire);
  }

  /**
   * A version body (validated against the version's schema) as a current-version body: the user's `up`
   * steps where written, the version keywords' renames otherwise; on a create, the defaults of what the
   * version lacks. A current version without older-only properties gets it back as it is.
   */
  up(collection: string, body: Json, creating: boolean): Json {
    const declared = this.declared.get(collection)!;
    let at = this.version;
    let value = body;
    for (const step of this.steps) {
      const converter = step.converters?.[collection]?.up;
      if (converter === undefined || step.version < at) continue;
      // Renamed from `at`'s names to `step.version`'s, then the user's step to the next version's names.
      value = rename(value, declared, this.namesOf(collection, at), this.namesOf(collection, step.version));
      value = converter(value);
      at = step.version + 1;
    }
    value = rename(value, declared, this.namesOf(collection, at), undefined);
    const defaults = this.spec?.resources[collection]?.defaults;
    if (creating && defaults !== undefined) for (const [key, v] of Object.entries(defaults)) if (!Object.prototype.hasOwnProperty.call(value, key)) put(value, key, structuredClone(v));
    return value;
  }

  /**
   * A current-version body (links as { meta: { href } }: what a merge patch applies to) as the version's:
   * renamed, what the version lacks left out.
   */
  downBody(collection: string, body: Json): Json {
    return rename(body, this.declared.get(collection)!, undefined, this.names.get(collection));
  }

  /**
   * Properties of the stored instance (`stored`, in the current body form) that the version has no name
   * for, kept in `input` (a write in a version replaces only what the version has: what it lacks stays).
   */
  keepAbsent(collection: string, input: Json, stored: Json): Json {
    const names = this.names.get(collection)!;
    const resource = this.resources.get(collection)!;
    for (const field of resource.fields) {
      if (names.toWire.has(field.name) || !Object.prototype.hasOwnProperty.call(stored, field.name) || Object.prototype.hasOwnProperty.call(input, field.name)) continue;
      put(input, field.name, stored[field.name]);
    }
    return input;
  }

  /** An instance's representation (current names, hrefs already the version's) as the version's: renamed, dropped, media types, links inside converted. */
  downInstance(collection: string, representation: Json): Json {
    const resource = this.resources.get(collection);
    if (resource === undefined) return representation;
    if (!this.userDowns) return this.downDirect(collection, representation);
    const declared = this.declared.get(collection)!;
    let value = representation;
    let at: number | undefined; // undefined: current names
    for (let i = this.steps.length - 1; i >= 0; i--) {
      const step = this.steps[i]!;
      const converter = step.converters?.[collection]?.down;
      if (converter === undefined) continue;
      // Renamed to the names of the version above the step's, then the user's step to the step's own names.
      value = rename(value, declared, at === undefined ? undefined : this.namesOf(collection, at), this.namesOf(collection, step.version + 1));
      value = converter(value);
      at = step.version;
    }
    const names = this.names.get(collection)!;
    value = rename(value, declared, at === undefined ? undefined : this.namesOf(collection, at), names);
    const links = this.linksOf(collection);
    const out: Json = {};
    for (const key of Object.keys(value)) {
      const v = value[key];
      if (key === "meta") put(out, key, this.meta(v));
      else {
        const current = names.toCurrent.get(key);
        const field = current === undefined ? undefined : links.get(current);
        if (field === undefined || v === null || typeof v !== "object" || Array.isArray(v)) put(out, key, v);
        else if (field.kind === "links") put(out, key, this.downPage(field.link!.target, v as Json, current !== key ? [current!, key] : undefined));
        else put(out, key, this.downInstance(field.link!.target, v as Json));
      }
    }
    return out;
  }

  /** True when a user converter of this version or a later older one has a `down` (else one pass converts). */
  private get userDowns(): boolean {
    return (this.hasUserDowns ??= this.steps.some((s) => Object.values(s.converters ?? {}).some((c) => c?.down !== undefined)));
  }
  private hasUserDowns: boolean | undefined;

  /** The link fields of a collection, by current name. */
  private linksOf(collection: string): ReadonlyMap<string, FieldSpec> {
    let links = this.links.get(collection);
    if (links === undefined) this.links.set(collection, (links = new Map(this.resources.get(collection)!.fields.filter((f) => f.link !== undefined).map((f) => [f.name, f]))));
    return links;
  }
  private readonly links = new Map<string, ReadonlyMap<string, FieldSpec>>();

  /** downInstance without user converters: one pass over the representation, renaming, dropping and converting links as it goes. */
  private downDirect(collection: string, value: Json): Json {
    const names = this.names.get(collection)!;
    const declared = this.declared.get(collection)!;
    const links = this.linksOf(collection);
    const out: Json = {};
    for (const key of Object.keys(value)) {
      const v = value[key];
      if (key === "meta") {
        out.meta = this.meta(v);
        continue;
      }
      if (SERVER_OWNED.has(key)) {
        out[key] = v;
        continue;
      }
      const wire = names.toWire.get(key);
      if (wire === undefined) {
        if (!declared.has(key)) put(out, key, v); // an open resource's own property
        continue;
      }
      const field = links.get(key);
      if (field === undefined || v === null || typeof v !== "object" || Array.isArray(v)) put(out, wire, v);
      else if (field.kind === "links") put(out, wire, this.downPage(field.link!.target, v as Json, wire !== key ? [key, wire] : undefined));
      else put(out, wire, this.downDirect(field.link!.target, v as Json));
    }
    return out;
  }

  /**
   * A page of a collection (or a link to one: { meta }) as the version's: its media type and items.
   * `renamed` [current, wire] rewrites the last segment of a sub-collection's href under the version's name.
   */
  downPage(collection: string, page: Json, renamed?: readonly [string, string]): Json {
    const out: Json = {};
    for (const key of Object.keys(page)) {
      const v = page[key];
      if (key === "meta") put(out, key, this.meta(v, renamed));
      else if (key === "items" && Array.isArray(v)) put(out, key, v.map((item) => (item !== null && typeof item === "object" ? this.downInstance(collection, item as Json) : item)));
      else put(out, key, v);
    }
    return out;
  }

  /**
   * A selection (fields or expand) in the version's names as the current names; { unknown } names the
   * first name the version does not have. Names inside a plain object are kept; inside a link, the target's.
   */
  selection(collection: string, tree: Readonly<Record<string, unknown>>, prefix = ""): { tree: Record<string, unknown> } | { unknown: string } {
    const names = this.names.get(collection);
    const resource = this.resources.get(collection);
    const out: Record<string, unknown> = Object.create(null) as Record<string, unknown>;
    for (const key of Object.keys(tree)) {
      const nested = tree[key] as Readonly<Record<string, unknown>>;
      if (SERVER_OWNED.has(key)) {
        out[key] = nested;
        continue;
      }
      const current = names?.toCurrent.get(key);
      if (current === undefined || resource === undefined) return { unknown: prefix + key };
      const field = resource.fields.find((f) => f.name === current);
      if (field?.link !== undefined && Object.keys(nested).length > 0) {
        const inner = this.selection(field.link.target, nested, `${prefix}${key}.`);
        if ("unknown" in inner) return inner;
        out[current] = inner.tree;
      } else {
        out[current] = nested;
      }
    }
    return { tree: out };
  }

  private meta(value: unknown, renamed?: readonly [string, string]): unknown {
    if (value === null || typeof value !== "object") return value;
    const meta = value as Json;
    // The service's own meta, { href, mediaType }: made at once.
    if (renamed === undefined && typeof meta.mediaType === "string" && Object.keys(meta).length === 2 && "href" in meta) return { href: meta.href, mediaType: this.typeOf(meta.mediaType) };
    const out: Json = {};
    for (const key of Object.keys(meta)) {
      const v = meta[key];
      if (key === "mediaType" && typeof v === "string") put(out, key, this.typeOf(v));
      else if (key === "href" && typeof v === "string" && renamed !== undefined && v.endsWith(`/${renamed[0]}`)) put(out, key, v.slice(0, v.length - renamed[0].length) + renamed[1]);
      else put(out, key, v);
    }
    return out;
  }

  /** The names of `collection` in version `version` (the current one's above the older ones). */
  private namesOf(collection: string, version: number): Names | undefined {
    const spec = this.steps.find((s) => s.version === version)?.spec.resources[collection];
    if (spec === undefined) return undefined;
    return { toWire: new Map(spec.fields), toCurrent: new Map(spec.fields.map(([c, w]) => [w, c])) };
  }
}

/**
 * The path prefix of each served version when the base URL's path has a `v<N>` segment (its last one):
 * that segment names the current version, and version K is served with `v<K>` in its place. Undefined when
 * the path has none (every version is then served at the same paths, told apart by Accept).
 * @example versionPrefixes("/api/v2", [1, 2]) → Map { 1 => "/api/v1", 2 => "/api/v2" }
 */
export function versionPrefixes(basePath: string, served: readonly number[]): Map<number, string> | undefined {
  const segments = basePath.split("/");
  let at = -1;
  for (let i = segments.length - 1; i > 0; i--) {
    if (/^v\d{1,9}$/.test(segments[i]!)) {
      at = i;
      break;
    }
  }
  if (at < 0) return undefined;
  const out = new Map<number, string>();
  const current = served[served.length - 1]!;
  for (const version of served) {
    const copy = [...segments];
    if (version !== current) copy[at] = `v${version}`;
    out.set(version, copy.join("/"));
  }
  return out;
}
