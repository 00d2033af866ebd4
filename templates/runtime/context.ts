/** Per-service state shared by every route, built once at start-up. */
import type { FastifyBaseLogger, FastifyReply, FastifyRequest } from "fastify";
import { authenticate, insufficientScope, type Caller, type OAuth1Settings } from "./authenticate.js";
import { ApiError, catalogOf, entry, type Catalog } from "./errors.js";
import type { KeyRing } from "./keys.js";
import type { OAuth2 } from "./oauth2.js";
import { negotiate, requestVersion, type VersionResult } from "./negotiate.js";
import { DEFAULT_EXPAND_LIMIT, type ReadHook } from "./represent.js";
import type { FieldSpec, ResourceSpec, ServiceSpec } from "./spec.js";
import type { Store } from "./store.js";
import { compileValidators, type PrecompiledValidators, type Validators } from "./validate.js";
import { ServedVersion, versionPrefixes, type VersionConverters } from "./versions.js";

/**
 * What a hook or action handler receives besides its data. `Key` is the catalog's keys: the generated
 * src/generated/errors.ts binds it to ErrorKey, so a key not in the catalog is a compile error.
 */
export interface HandlerContext<Key extends string = string> {
  readonly caller: Caller;
  readonly log: FastifyBaseLogger;
  readonly store: Store;
  /** An ApiError of a catalog entry, to throw: `throw ctx.error("unknownCurrency", "from")`. */
  error(key: Key, property?: string, dev?: string): ApiError;
}

/**
 * Typed hooks a user writes per resource; each may throw (`throw ctx.error(key, property)` answers that
 * catalog entry, anything else a 500). Inputs are request bodies as validated. With a store that has
 * transactions (the SQLite store has), the before and after hooks of a write run inside the write's
 * transaction and `ctx.store` is that transaction's store: a throw anywhere, after* hooks included, undoes
 * the write and whatever the hooks wrote through `ctx.store`. Write through `ctx.store`, never through the
 * service's store, which waits for the transaction to end (a hook that does waits for itself: 503).
 */
export interface ResourceHooks<Input = Record<string, unknown>, Instance = Record<string, unknown>, Key extends string = string> {
  /** Runs before an instance is created; may return a changed input. */
  beforeCreate?(input: Input, ctx: HandlerContext<Key>): Promise<Input | void> | Input | void;
  /** Runs once the instance is stored, before the answer is sent: a throw undoes the create. */
  afterCreate?(instance: Instance, ctx: HandlerContext<Key>): Promise<void> | void;
  /**
   * Runs before an update (replace, merge patch, or a member added to or removed from a stored list of
   * links) with the whole new input and the current instance; may return a changed input.
   */
  beforeUpdate?(input: Input, current: Instance, ctx: HandlerContext<Key>): Promise<Input | void> | Input | void;
  /** Runs once the update is stored, before the answer is sent: a throw undoes the update. */
  afterUpdate?(instance: Instance, ctx: HandlerContext<Key>): Promise<void> | void;
  /** Runs before a delete, also of an instance an `x-on-delete: cascade` link deletes with the one asked for. */
  beforeDelete?(current: Instance, ctx: HandlerContext<Key>): Promise<void> | void;
  /** Runs once the instance is deleted (cascades included): a throw undoes the whole delete. */
  afterDelete?(current: Instance, ctx: HandlerContext<Key>): Promise<void> | void;
  /**
   * Row-level rules beyond x-owner: runs on every instance before a caller sees it (a GET, each item of a
   * page or sub-collection, an expanded link, the answer of a write) with its full representation, links
   * unexpanded. Answer nothing to show it as it is (changed in place or not), another representation to
   * show that (its `meta` stays the service's), or `false` to hide it from this caller: then it answers as
   * another key's x-owner instance does (403 to a GET, an update, a delete, its sub-collections), it is
   * left out of pages and sub-collections (offset, limit and size count shown instances only), an
   * expansion leaves it a plain link, and no body of this caller may link to it. A resource with a read
   * hook lists by reading every instance of the narrowed collection through the hook: keep it cheap.
   */
  read?(instance: Instance, ctx: HandlerContext<Key>): Promise<Instance | false | void> | Instance | false | void;
}

/** A link that other instances store to instances of a collection: the linking resource and its field. */
export interface Referrer {
  readonly resource: ResourceSpec;
  readonly field: FieldSpec;
}

/** An action's handler: typed parameters in, response body out. */
export type ActionHandler<Params = Record<string, unknown>, Result = unknown, Key extends string = string> = (params: Params, ctx: HandlerContext<Key>) => Promise<Result> | Result;

/** Everything the routes share. */
export class ServiceContext {
  readonly catalog: Catalog;
  readonly validators: Validators;
  readonly resources: ReadonlyMap<string, ResourceSpec>;
  /** Properties a body may not set, per collection: the owner and inverse collection links. */
  readonly readOnly: ReadonlyMap<string, ReadonlySet<string>>;
  /** Per collection, the stored links to its instances elsewhere: instance links (kind "link") and stored lists (kind "links", not inverse). */
  readonly referrers: ReadonlyMap<string, readonly Referrer[]>;
  /** The hooks of each collection, as registerResource was given them. */
  readonly hooks = new Map<string, ResourceHooks>();
  /** The read hooks among them (empty: representations run no hook and cost nothing more). */
  readonly readHooks = new Map<string, ReadHook>();

  /**
   * The served versions that need converting, by number: every older one, and the current one when a
   * resource has properties only older versions have (FieldSpec.retired). Empty: one version, nothing to do.
   */
  readonly versions = new Map<number, ServedVersion>();
  /** Every version served, ascending (the current one last). */
  readonly served: readonly number[];
  /** By version, the path prefix of its routes, when the base URL's path names a version (`/v2`); undefined otherwise. */
  readonly prefixes: ReadonlyMap<number, string> | undefined;
  /** The base URL of every served version's hrefs (the service's alone without version prefixes), the current one's first. */
  readonly bases: readonly string[];

  constructor(
    readonly spec: ServiceSpec,
    readonly store: Store,
    readonly keys: KeyRing,
    readonly baseUrl: string,
    /** The logger of a request: Fastify's, or (see buildApp) the service's own with the request id. */
    readonly logOf: (req: FastifyRequest) => FastifyBaseLogger = (req) => req.log,
    /** Most instances one response inlines through expand and fields (AppOptions.expandLimit). */
    readonly expandLimit: number = DEFAULT_EXPAND_LIMIT,
    /** The validators resourcery precompiled (AppOptions.validators): used when they are this spec's. */
    precompiled?: PrecompiledValidators,
    /** The user's converters of older versions (src/versions/v<N>.ts), by version number. */
    converters: Readonly<Record<number, VersionConverters | undefined>> = {},
  ) {
    this.catalog = catalogOf(spec.errors);
    this.validators = compileValidators(spec, this.catalog, baseUrl, precompiled);
    this.resources = new Map(spec.resources.map((r) => [r.collection, r]));
    this.readOnly = new Map(
      spec.resources.map((r) => [
        r.collection,
        new Set([...(r.owner ? [r.owner] : []), ...r.fields.filter((f) => f.link?.inverse).map((f) => f.name)]),
      ]),
    );
    const referrers = new Map<string, Referrer[]>();
    for (const resource of spec.resources) {
      for (const field of resource.fields) {
        if (field.link === undefined || field.link.inverse !== undefined) continue;
        const list = referrers.get(field.link.target) ?? [];
        list.push({ resource, field });
        referrers.set(field.link.target, list);
      }
    }
    this.referrers = referrers;
    const older = spec.versions ?? [];
    this.served = [...older.map((v) => v.version), spec.version];
    const url = new URL(baseUrl + "/");
    const basePath = url.pathname.replace(/\/+$/, "");
    this.prefixes = older.length === 0 ? undefined : versionPrefixes(basePath, this.served);
    const withConverters = older.map((v) => ({ spec: v, converters: converters[v.version] }));
    const baseOf = (version: number) => (this.prefixes === undefined ? baseUrl : url.origin + this.prefixes.get(version)!);
    this.bases = [baseUrl, ...(this.prefixes === undefined ? [] : older.map((v) => baseOf(v.version)))];
    for (const v of older) this.versions.set(v.version, new ServedVersion(v.version, v, this.resources, spec.vendor, spec.version, baseOf(v.version), withConverters));
    if (spec.resources.some((r) => r.fields.some((f) => f.retired === true))) {
      this.versions.set(spec.version, new ServedVersion(spec.version, undefined, this.resources, spec.vendor, spec.version, baseUrl, withConverters));
    }
  }

  /** Version choices by Accept header and path version: clients send the same few headers over and over. */
  private readonly chosenVersions = new Map<string, VersionResult>();

  /**
   * The version a request asks for (CONTRACT §7), from Accept and the path's version (`pathVersion`, from a
   * version prefix): 406 unknownVersion for one the service does not serve or one that disagrees with the path.
   */
  versionOfRequest(accept: string | undefined, pathVersion: number | undefined): number {
    const key = `${pathVersion ?? ""}\n${accept ?? ""}`;
    let result = this.chosenVersions.get(key);
    if (result === undefined) {
      result = requestVersion(accept, pathVersion, { vendor: this.spec.vendor, current: this.spec.version, served: this.served });
      if (this.chosenVersions.size >= 1000) this.chosenVersions.clear(); // bounded: a hostile client cannot grow it
      this.chosenVersions.set(key, result);
    }
    if (result.ok) return result.version;
    const served = this.served.join(", ");
    throw this.error(
      "unknownVersion",
      "",
      result.path !== undefined && result.named !== result.path
        ? `This path is version ${result.path}'s, and Accept asks for version ${result.named}: ask for version ${result.path} or none here, or use version ${result.named}'s path (${this.prefixes?.get(result.named) ?? "it is not served"}).`
        : `This service serves version${this.served.length > 1 ? "s" : ""} ${served}.`,
    );
  }

  /** Takes the hooks of one collection (registerResource calls it): delete cascades and read rules find them here. */
  useHooks(collection: string, hooks: ResourceHooks): void {
    this.hooks.set(collection, hooks);
    if (hooks.read) this.readHooks.set(collection, hooks.read.bind(hooks) as ReadHook);
    else this.readHooks.delete(collection);
  }

  /** An ApiError of a catalog entry by key. */
  error(key: string, property = "", dev?: string): ApiError {
    return new ApiError(entry(this.catalog, key), property, dev === undefined ? {} : { dev });
  }

  /** OAuth 2.0 access tokens, when the service accepts them (auth.schemes has oauth2): set by buildApp. */
  oauth: OAuth2 | undefined;
  /** OAuth 1.0a signed requests, when the service accepts them (auth.schemes has oauth1): set by buildApp. */
  oauth1: OAuth1Settings | undefined;
  /**
   * With a rate limit (RATE_LIMIT): counts a request whose credentials failed (a 401) against its client
   * address, and answers the 429 to give instead once the address is over the limit (production.ts); the
   * error handler asks it for every 401.
   */
  authFailed: ((req: FastifyRequest) => Promise<ApiError | undefined>) | undefined;

  /** The caller of a request (a promise while an access token not seen before is verified); throws a 401 ApiError. */
  authenticate(req: FastifyRequest): Caller | Promise<Caller> {
    return authenticate(req, this.spec, this.keys, this.catalog, this.oauth, this.oauth1);
  }

  /** The 403 of a caller lacking `roles` (insufficient_scope to a Bearer token). */
  insufficientScope(caller: Caller, roles: readonly string[], dev: string): ApiError {
    return insufficientScope(this.spec, this.catalog, caller, roles, dev);
  }

  /** The context of a request's hooks or action handler; `store` is a transaction's store inside a write's transaction. */
  handlerContext(req: FastifyRequest, caller: Caller, store: Store = this.store): HandlerContext {
    const logOf = this.logOf;
    let log: FastifyBaseLogger | undefined;
    return {
      caller,
      get log() {
        return (log ??= logOf(req)); // made on first use: most requests log nothing
      },
      store,
      error: (key, property, dev) => this.error(key, property, dev),
    };
  }

  /** Negotiation results by Accept header and offers: clients send the same few headers over and over. */
  private readonly negotiated = new Map<string, ReturnType<typeof negotiate>>();

  /** The response media type for `offers` (server preference order, the current version's types); 406 when none is acceptable. */
  negotiate(req: FastifyRequest, currentOffers: readonly string[]): string {
    const accept = req.headers.accept;
    const served = req.served;
    const offers = served === undefined ? currentOffers : served.offers(currentOffers);
    const key = `${accept ?? ""}\n${offers[1] ?? ""}`;
    let result = this.negotiated.get(key);
    if (!result) {
      result = negotiate(accept, offers, { vendor: this.spec.vendor, version: served?.version ?? this.spec.version });
      if (this.negotiated.size >= 1000) this.negotiated.clear(); // bounded: a hostile client cannot grow it
      this.negotiated.set(key, result);
    }
    if (result.ok) return result.type;
    throw this.error(result.reason, "", result.reason === "unknownVersion" ? `This service serves version${this.served.length > 1 ? "s" : ""} ${this.served.join(", ")}.` : `Acceptable types here: ${offers.join(", ")}.`);
  }

  private offerLists: Map<string, readonly string[]> | undefined;

  /** Offers for a vendor media type: plain JSON first, then both vendor shapes. */
  offers(mediaType: string): readonly string[] {
    // Made for every media type at once: a search of spec.mediaTypes per route would be quadratic in the collections.
    if (this.offerLists === undefined) {
      this.offerLists = new Map();
      for (const t of this.spec.mediaTypes) if (!this.offerLists.has(t.name)) this.offerLists.set(t.name, ["application/json", t.name, t.alias]);
    }
    let list = this.offerLists.get(mediaType);
    if (!list) {
      list = ["application/json", mediaType];
      this.offerLists.set(mediaType, list);
    }
    return list;
  }
}

const asIs = (payload: string): string => payload;

/**
 * Adds `names` to the answer's Vary header, keeping what is there (CORS adds Origin, authentication Authorization).
 * @example addVary(reply, "Authorization") // Vary: Origin, Authorization
 */
export function addVary(reply: FastifyReply, names: string): void {
  const now = reply.getHeader("vary");
  reply.header("vary", now === undefined || now === "" ? names : `${String(now)}, ${names}`);
}

/**
 * Sends a JSON body with the negotiated type. Vendor types go out exactly as negotiated: a reply
 * serializer keeps Fastify from appending a charset, and a string body goes out in one write with the
 * headers (a Buffer costs a second, vectored write). JSON is UTF-8 either way.
 */
export function sendJson(reply: FastifyReply, status: number, type: string, body: unknown): FastifyReply {
  return sendJsonText(reply, status, type, JSON.stringify(body));
}

/** sendJson of a body already serialized (`text`: JSON). */
export function sendJsonText(reply: FastifyReply, status: number, type: string, text: string): FastifyReply {
  const contentType = type === "application/json" ? "application/json; charset=utf-8" : type;
  return reply.code(status).header("content-type", contentType).serializer(asIs).send(text);
}
