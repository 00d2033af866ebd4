/** Per-service state shared by every route, built once at start-up. */
import type { FastifyBaseLogger, FastifyReply, FastifyRequest } from "fastify";
import { authenticate, type Caller } from "./authenticate.js";
import { ApiError, catalogOf, entry, type Catalog } from "./errors.js";
import type { KeyRing } from "./keys.js";
import { negotiate } from "./negotiate.js";
import { DEFAULT_EXPAND_LIMIT } from "./represent.js";
import type { ResourceSpec, ServiceSpec } from "./spec.js";
import type { Store } from "./store.js";
import { compileValidators, type Validators } from "./validate.js";

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

/** Typed hooks a user writes per resource; each may throw an ApiError. Inputs are request bodies as validated. */
export interface ResourceHooks<Input = Record<string, unknown>, Instance = Record<string, unknown>, Key extends string = string> {
  /** Runs before an instance is created; may return a changed input. */
  beforeCreate?(input: Input, ctx: HandlerContext<Key>): Promise<Input | void> | Input | void;
  afterCreate?(instance: Instance, ctx: HandlerContext<Key>): Promise<void> | void;
  /** Runs before an update (replace or merge patch) with the whole new input and the current instance. */
  beforeUpdate?(input: Input, current: Instance, ctx: HandlerContext<Key>): Promise<Input | void> | Input | void;
  afterUpdate?(instance: Instance, ctx: HandlerContext<Key>): Promise<void> | void;
  beforeDelete?(current: Instance, ctx: HandlerContext<Key>): Promise<void> | void;
  afterDelete?(current: Instance, ctx: HandlerContext<Key>): Promise<void> | void;
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

  constructor(
    readonly spec: ServiceSpec,
    readonly store: Store,
    readonly keys: KeyRing,
    readonly baseUrl: string,
    /** The logger of a request: Fastify's, or (see buildApp) the service's own with the request id. */
    readonly logOf: (req: FastifyRequest) => FastifyBaseLogger = (req) => req.log,
    /** Most instances one response inlines through expand and fields (AppOptions.expandLimit). */
    readonly expandLimit: number = DEFAULT_EXPAND_LIMIT,
  ) {
    this.catalog = catalogOf(spec.errors);
    this.validators = compileValidators(spec, this.catalog);
    this.resources = new Map(spec.resources.map((r) => [r.collection, r]));
    this.readOnly = new Map(
      spec.resources.map((r) => [
        r.collection,
        new Set([...(r.owner ? [r.owner] : []), ...r.fields.filter((f) => f.link?.inverse).map((f) => f.name)]),
      ]),
    );
  }

  /** An ApiError of a catalog entry by key. */
  error(key: string, property = "", dev?: string): ApiError {
    return new ApiError(entry(this.catalog, key), property, dev === undefined ? {} : { dev });
  }

  authenticate(req: FastifyRequest): Caller {
    return authenticate(req.raw, this.spec, this.keys, this.catalog);
  }

  handlerContext(req: FastifyRequest, caller: Caller): HandlerContext {
    const logOf = this.logOf;
    let log: FastifyBaseLogger | undefined;
    return {
      caller,
      get log() {
        return (log ??= logOf(req)); // made on first use: most requests log nothing
      },
      store: this.store,
      error: (key, property, dev) => this.error(key, property, dev),
    };
  }

  /** Negotiation results by Accept header and offers: clients send the same few headers over and over. */
  private readonly negotiated = new Map<string, ReturnType<typeof negotiate>>();

  /** The response media type for `offers` (server preference order); 406 when none is acceptable. */
  negotiate(req: FastifyRequest, offers: readonly string[]): string {
    const accept = req.headers.accept;
    const key = `${accept ?? ""}\n${offers[1] ?? ""}`;
    let result = this.negotiated.get(key);
    if (!result) {
      result = negotiate(accept, offers, { vendor: this.spec.vendor, version: this.spec.version });
      if (this.negotiated.size >= 1000) this.negotiated.clear(); // bounded: a hostile client cannot grow it
      this.negotiated.set(key, result);
    }
    if (result.ok) return result.type;
    throw this.error(result.reason, "", result.reason === "unknownVersion" ? `This service serves version ${this.spec.version}.` : `Acceptable types here: ${offers.join(", ")}.`);
  }

  private readonly offerLists = new Map<string, readonly string[]>();

  /** Offers for a vendor media type: plain JSON first, then both vendor shapes. */
  offers(mediaType: string): readonly string[] {
    let list = this.offerLists.get(mediaType);
    if (!list) {
      const t = this.spec.mediaTypes.find((m) => m.name === mediaType);
      list = t ? ["application/json", t.name, t.alias] : ["application/json", mediaType];
      this.offerLists.set(mediaType, list);
    }
    return list;
  }
}

const asIs = (payload: string): string => payload;

/**
 * Sends a JSON body with the negotiated type. Vendor types go out exactly as negotiated: a reply
 * serializer keeps Fastify from appending a charset, and a string body goes out in one write with the
 * headers (a Buffer costs a second, vectored write). JSON is UTF-8 either way.
 */
export function sendJson(reply: FastifyReply, status: number, type: string, body: unknown): FastifyReply {
  const contentType = type === "application/json" ? "application/json; charset=utf-8" : type;
  return reply.code(status).header("content-type", contentType).serializer(asIs).send(JSON.stringify(body));
}
