/**
 * The routes of one collection: list, create, get, update (POST/PATCH merge patch, PUT replace), delete,
 * sub-collections, and the members of a stored list of links (POST adds one, DELETE removes one). A write
 * runs in one transaction of the store when it has them: its hooks, its link checks, and for a delete the
 * cascades and cleared links it causes, commit together or not at all.
 */
import type { FastifyInstance, FastifyReply, FastifyRequest } from "fastify";
import { canSee, requireOwner, requireRole, isAdmin, rolesFor, type Caller } from "./authenticate.js";
import { sendJson, sendJsonText, type HandlerContext, type ResourceHooks, type ServiceContext } from "./context.js";
import { ApiError, entry } from "./errors.js";
import { etagOf, noneMatch, preconditionsHold, selectionTag, stateOf, typeMark } from "./etag.js";
import { makeId, mayName } from "./ids.js";
import { hrefOf, hrefOfLink, matchLink, noInstance, type HrefMatch } from "./links.js";
import {
  buildPlain, canRead, copyOtherProperties, instanceLink, listShown, representNow, representPage, representShown, subCollection, subCollectionHref,
  type RepresentContext,
} from "./represent.js";
import { isJsonContentType } from "./negotiate.js";
import { checkSelection, EMPTY_SELECTION, expansionOf, isEmptySelection, parseSelection, SERVER_FIELDS, type Selection } from "./select.js";
import type { FieldSpec, ResourceSpec } from "./spec.js";
import { andThen, inTransaction, readRecord, UniqueViolation, type ImmediateTransaction, type Store, type StoredRecord } from "./store.js";
import { IN_CURRENT_NAMES, type ServedVersion } from "./versions.js";

type Json = Record<string, unknown>;
type Query = Record<string, string | string[] | undefined>;
type Params = { id: string; member?: string };

/** Registers every route of `resource` under `prefix` (other methods on their paths answer 405: methods.ts). */
export function registerResource(app: FastifyInstance, svc: ServiceContext, resource: ResourceSpec, prefix: string, hooks: ResourceHooks = {}): void {
  svc.useHooks(resource.collection, hooks);
  const base = `${prefix}/${resource.collection}`;
  const sequence = resource.idForm?.kind === "sequence";
  if (sequence && svc.store.nextId === undefined) {
    throw new Error(`the store has no nextId(), which the ids of ${resource.collection} need ("x-id": "sequence"): implement Store.nextId`);
  }
  /** The properties a body in a version may not set (the owner, inverse links), by that version's names. */
  const readOnlyByVersion = new Map<ServedVersion, ReadonlySet<string>>();
  const readOnlyIn = (served: ServedVersion): ReadonlySet<string> => {
    let names = readOnlyByVersion.get(served);
    if (names === undefined) {
      names = new Set([...svc.readOnly.get(resource.collection)!].map((n) => served.wireName(resource.collection, n) ?? n));
      readOnlyByVersion.set(served, names);
    }
    return names;
  };
  /** The path's id when the store may be asked for it (see mayName), else undefined: it names nothing. */
  const pathId = (req: FastifyRequest): string | undefined => {
    const id = (req.params as Params).id;
    return mayName(resource.idForm, id) ? id : undefined;
  };
  /**
   * What representing needs for one request: the store to read (a transaction's inside a write), and the
   * read hooks when the service has any, with the hooks' context made on first use.
   */
  const rep = (req: FastifyRequest, caller: Caller, store: Store = svc.store, hctx?: HandlerContext): RepresentContext => {
    const served = req.served;
    const out =
      served === undefined
        ? { spec: svc.spec, resources: svc.resources, store, baseUrl: svc.baseUrl, caller, expandLimit: svc.expandLimit }
        : { spec: svc.spec, resources: svc.resources, store, baseUrl: served.baseUrl, caller, expandLimit: svc.expandLimit, withRetired: !served.current };
    if (svc.readHooks.size === 0) return out;
    let made = hctx;
    return { ...out, read: { hooks: svc.readHooks, context: () => (made ??= svc.handlerContext(req, caller, store)) } };
  };

  /** The instance the path names, as the store returned it: 404 when there is none, 403 when it is not the caller's to see (x-owner). */
  const found = (req: FastifyRequest, caller: Caller, record: StoredRecord | undefined): StoredRecord => {
    if (!record) throw svc.error("notFound", "", `There is no ${resource.name} with id "${(req.params as Params).id}".`);
    requireOwner(caller, resource, record, svc.catalog);
    return record;
  };
  /** `found` through `store`, then the read hook's verdict: 403 as for x-owner when it hides the instance. */
  const load = async (req: FastifyRequest, caller: Caller, rc: RepresentContext): Promise<StoredRecord> => {
    const id = pathId(req);
    const record = found(req, caller, id === undefined ? undefined : await rc.store.get(resource.collection, id));
    if (rc.read?.hooks.has(resource.collection) && (await representShown(rc, resource, record)) === undefined) throw hidden(svc, resource);
    return record;
  };
  /** The answer of a write: the instance as the read hook shows it to the caller (only its meta when the hook hides it). */
  const answer = async (rc: RepresentContext, record: StoredRecord, full: Json): Promise<Json> => {
    if (!rc.read?.hooks.has(resource.collection)) return full;
    return (await representShown(rc, resource, record)) ?? { meta: full.meta };
  };

  // The caller is authenticated, and its roles checked against config.access, by the onRequest hook (access.ts).
  // Accept is negotiated against config.produces by the same hook, before the body is read: req.negotiated.
  const readAccess = rolesFor(resource, "read");
  app.route({
    method: getAndHead(),
    url: base,
    config: { access: readAccess, produces: svc.offers(resource.collectionMediaType), collection: resource.collection },
    handler: (req, reply) => {
      const caller = req.caller!;
      const type = req.negotiated!;
      const { offset, limit } = paging(svc, req.query as Query);
      const { expand, fields } = shaping(svc, resource, req.query as Query, req.served);
      const owner = resource.owner !== undefined && !isAdmin(caller, resource) ? caller.id : undefined;
      const rc = rep(req, caller);
      // As a GET of an instance: with a store that lists at once, no read hook and nothing expanded, the page is
      // answered without a promise; nothing is returned once it is sent (Fastify would send a returned reply again).
      return andThen(listShown(rc, resource, { offset, limit, owner }), (page) =>
        andThen(representPage(rc, resource, page, { href: hrefOf(rc.baseUrl, resource.collection), offset, limit }, expand, fields), (body) => {
          sendJson(reply, 200, type, downPage(req.served, resource.collection, body));
        }),
      );
    },
  });

  const instanceTypes = svc.offers(resource.mediaType);
  /** A new record of `data`, with the caller as its owner (x-owner). */
  const newRecord = (caller: Caller, id: string, data: Json): StoredRecord => {
    const now = new Date().toISOString();
    return { id, createdAt: now, modifiedAt: now, owner: resource.owner ? caller.id : undefined, data };
  };
  /**
   * A create with no hook to wait for, on a store that writes at once (ImmediateWrites): checked and stored
   * in one synchronous transaction, the answer sent without a promise. Undefined, with nothing done, when
   * a hook or a link's read hook is to be awaited or the store cannot begin now: the async path then.
   */
  const createNow = (req: FastifyRequest, reply: FastifyReply, caller: Caller, type: string): FastifyReply | undefined => {
    const now = svc.store.immediateWrites;
    if (now === undefined || hooks.beforeCreate || hooks.afterCreate || svc.readHooks.has(resource.collection)) return undefined;
    const base = req.served?.baseUrl ?? svc.baseUrl;
    const plan = planStored(svc, resource, req.body as Json, CREATED, base);
    if (!plan.checks.every((c) => checkableNow(svc, c))) return undefined;
    const done = now.transactionNow((tx) => {
      verifyLinksNow(svc, caller, tx, plan.checks);
      const record = newRecord(caller, sequence ? tx.nextId(resource.collection) : makeId(resource.idForm), plan.data);
      try {
        tx.insert(resource.collection, record);
      } catch (e) {
        throw conflictOf(svc, resource, e);
      }
      return record;
    });
    if (done === undefined) return undefined;
    reply.header("location", hrefOf(base, resource.collection, done.value.id));
    answerTag(req, reply, done.value, type, base);
    return sendJson(reply, 201, type, down(req.served, resource.collection, buildPlain(rep(req, caller), resource, done.value)));
  };
  /** A create in the store's transaction (or statement by statement without one), its hooks awaited. */
  const create = async (req: FastifyRequest, reply: FastifyReply, caller: Caller, type: string): Promise<FastifyReply> => {
    const { record, body } = await inTransaction(svc.store, async (tx) => {
      const ctx = svc.handlerContext(req, caller, tx);
      const input = (hooks.beforeCreate ? ((await hooks.beforeCreate(req.body as Json, ctx)) ?? req.body) : req.body) as Json;
      const data = await toStored(svc, ctx, resource, input, CREATED, req.served?.baseUrl ?? svc.baseUrl);
      const record = newRecord(caller, sequence ? await tx.nextId!(resource.collection) : makeId(resource.idForm), data);
      await unique(svc, resource, () => tx.insert(resource.collection, record));
      const rc = rep(req, caller, tx, ctx);
      const full = buildPlain(rc, resource, record);
      await hooks.afterCreate?.(full, ctx);
      return { record, body: await answer(rc, record, full) };
    });
    const base = req.served?.baseUrl ?? svc.baseUrl;
    reply.header("location", hrefOf(base, resource.collection, record.id));
    const text = JSON.stringify(down(req.served, resource.collection, body));
    answerTag(req, reply, record, type, base, svc.readHooks.has(resource.collection) ? text : undefined);
    return sendJsonText(reply, 201, type, text);
  };
  app.post(base, { config: { access: rolesFor(resource, "create"), produces: instanceTypes, collection: resource.collection } }, (req, reply) => {
    const caller = req.caller!;
    const type = req.negotiated!;
    const served = req.served;
    requireBody(svc, req, served === undefined ? instanceTypes : served.offers(instanceTypes));
    if (served === undefined) svc.validators.body(resource.collection, req.body, svc.readOnly.get(resource.collection)!);
    else {
      svc.validators.body(served.bodyKey(resource.collection), req.body, readOnlyIn(served));
      req.body = served.up(resource.collection, req.body as Json, true);
      IN_CURRENT_NAMES.add(req);
    }
    // The synchronous path returns nothing once it has answered: Fastify would send a returned reply again
    // (and make an FST_ERR_REP_ALREADY_SENT error, with its stack, for each create).
    if (createNow(req, reply, caller, type) !== undefined) return;
    return create(req, reply, caller, type);
  });

  app.route({
    method: getAndHead(),
    url: `${base}/:id`,
    config: { access: readAccess, produces: instanceTypes, collection: resource.collection },
    handler: (req, reply) => {
      const caller = req.caller!;
      const type = req.negotiated!;
      const shaped = shaping(svc, resource, req.query as Query, req.served);
      const { expand, fields } = shaped;
      const rc = rep(req, caller);
      // A GET is the commonest request: with a store that reads at once (ImmediateReads) and no read hook it is
      // answered without a promise (Fastify takes the thrown errors of a handler that is not async alike).
      const id = pathId(req);
      return andThen(id === undefined ? undefined : readRecord(svc.store, resource.collection, id), (record) => {
        const shown = found(req, caller, record);
        // The ETag (etag.ts): of the stored state alone for the plain representation, so that a 304 is
        // answered before anything is represented; a shaped one also hashes the bytes it answers.
        const state = stateOf(shown, req.apiVersion, rc.baseUrl);
        const mark = typeMark(offersOf(req).indexOf(type));
        const plain = shaped === PLAIN && !svc.readHooks.has(resource.collection);
        // Nothing is returned once the answer is sent: a synchronous handler's return value would be sent
        // again, and Fastify makes an FST_ERR_REP_ALREADY_SENT error (with its stack) for each such request.
        if (plain) {
          const etag = etagOf(state, mark);
          reply.header("etag", etag);
          if (noneMatch(req.headers["if-none-match"], etag)) {
            reply.code(304).send();
            return;
          }
        }
        return andThen(representNow(rc, resource, shown, expand, fields), (body) => {
          if (body === undefined) throw hidden(svc, resource);
          const text = JSON.stringify(down(req.served, resource.collection, body));
          if (!plain) {
            // Shaped by fields alone: the selection's tag; expanded (other instances inside) or through a read hook: the bytes' digest.
          const etag = shaped.tag !== undefined && !svc.readHooks.has(resource.collection) ? `"${state}${mark}.${shaped.tag}"` : etagOf(state, mark, text);
            reply.header("etag", etag);
            if (noneMatch(req.headers["if-none-match"], etag)) {
              reply.code(304).send();
              return;
            }
          }
          sendJsonText(reply, 200, type, text);
        });
      });
    },
  });
  /** The instance media types a request is answered in (its version's). */
  const offersOf = (req: FastifyRequest): readonly string[] => (req.served === undefined ? instanceTypes : req.served.offers(instanceTypes));
  /** 412 unless the request's If-Match / If-None-Match hold for `current` (a write, in its transaction, the instance locked). */
  const requireConditions = (req: FastifyRequest, current: StoredRecord, rc: RepresentContext): void => {
    if (req.headers["if-match"] === undefined && req.headers["if-none-match"] === undefined) return;
    if (!preconditionsHold(req.headers, stateOf(current, req.apiVersion, rc.baseUrl))) {
      throw svc.error("preconditionFailed", "", `The ${resource.name} has changed since the ETag${req.headers["if-match"] === undefined ? " in If-None-Match" : " in If-Match"} was read; nothing was written. GET it again, reapply the change and send the new ETag.`);
    }
  };
  /** Sets the ETag of a write's answer: of the new state, plain unless a read hook shaped it (`body` then). */
  const answerTag = (req: FastifyRequest, reply: FastifyReply, record: StoredRecord, type: string, base: string, shaped?: string): void => {
    reply.header("etag", etagOf(stateOf(record, req.apiVersion, base), typeMark(offersOf(req).indexOf(type)), shaped));
  };

  /**
   * An update inside its transaction: `next` turns the current instance's request-body form into the new
   * input (throwing the request's own errors); the input is validated, given to beforeUpdate, its links
   * checked (`written` tells which fields the request wrote: links it did not write are kept as they are),
   * stored, given to afterUpdate. `loaded` is the current record when the caller has loaded it in `tx`;
   * `patch` is the merge patch the input came from, if any (its nulls explain a required property's absence).
   * Answers the stored record and its representation (before any read hook).
   */
  const updateIn = async (
    req: FastifyRequest,
    caller: Caller,
    tx: Store,
    next: (wire: Json, current: StoredRecord) => Json,
    written: (field: string) => boolean,
    loaded?: StoredRecord,
    patch?: Json,
  ): Promise<{ record: StoredRecord; full: Json; rc: RepresentContext }> => {
    const ctx = svc.handlerContext(req, caller, tx);
    const rc = rep(req, caller, tx, ctx);
    const current = loaded ?? (await load(req, caller, rc));
    requireConditions(req, current, rc);
    const served = req.served;
    let input: Json;
    if (served === undefined) {
      input = next(toWire(resource, current, svc.baseUrl), current);
      svc.validators.body(resource.collection, input, svc.readOnly.get(resource.collection)!, patch);
    } else {
      // In the version's names and hrefs, what it lacks left out; converted up once valid, what it lacks kept as stored.
      const stored = toWire(resource, current, served.baseUrl);
      input = next(served.downBody(resource.collection, stored), current);
      svc.validators.body(served.bodyKey(resource.collection), input, readOnlyIn(served), patch);
      input = served.keepAbsent(resource.collection, served.up(resource.collection, input, false), stored);
      IN_CURRENT_NAMES.add(req);
    }
    input = ((await hooks.beforeUpdate?.(input, buildPlain(rc, resource, current), ctx)) ?? input) as Json;
    const data = await toStored(svc, ctx, resource, input, { current, written }, rc.baseUrl);
    const record: StoredRecord = { ...current, modifiedAt: new Date().toISOString(), data };
    await unique(svc, resource, () => tx.update(resource.collection, record));
    const full = buildPlain(rc, resource, record);
    await hooks.afterUpdate?.(full, ctx);
    return { record, full, rc };
  };

  const update = (mode: "merge" | "replace") => async (req: FastifyRequest, reply: FastifyReply) => {
    const caller = req.caller!;
    const type = req.negotiated!;
    const served = req.served;
    requireBody(svc, req, served === undefined ? instanceTypes : served.offers(instanceTypes));
    const patch = req.body as Json;
    const readOnly = served === undefined ? svc.readOnly.get(resource.collection)! : readOnlyIn(served);
    const wireOf = (field: string) => (served === undefined ? field : (served.wireName(resource.collection, field) ?? "\0"));
    if (mode === "merge") {
      if (patch === null || typeof patch !== "object" || Array.isArray(patch)) throw svc.error("invalidProperty", "", "A merge patch is a JSON object.");
      for (const key of Object.keys(patch)) if (readOnly.has(key) || SERVER_FIELDS.has(key)) throw svc.error("readOnlyProperty", key);
    }
    const { record, body, base } = await inTransaction(svc.store, async (tx) => {
      const { record, full, rc } = await updateIn(
        req,
        caller,
        tx,
        (wire) => (mode === "merge" ? mergePatch(wire, patch, served === undefined ? resource.fields : served.fieldSpecs(resource.collection)) : patch),
        mode === "merge" ? (field) => Object.prototype.hasOwnProperty.call(patch, wireOf(field)) : () => true,
        undefined,
        mode === "merge" ? patch : undefined,
      );
      return { record, body: await answer(rc, record, full), base: rc.baseUrl };
    });
    const text = JSON.stringify(down(served, resource.collection, body));
    answerTag(req, reply, record, type, base, svc.readHooks.has(resource.collection) ? text : undefined);
    return sendJsonText(reply, 200, type, text);
  };
  const write = { config: { access: rolesFor(resource, "update"), produces: instanceTypes, collection: resource.collection } };
  // One route for both methods of a merge patch: each Fastify route costs start-up time (see getAndHead).
  app.route({ method: ["POST", "PATCH"], url: `${base}/:id`, ...write, handler: update("merge") });
  app.put(`${base}/:id`, write, update("replace"));

  app.delete(`${base}/:id`, { config: { access: rolesFor(resource, "delete"), collection: resource.collection } }, async (req, reply) => {
    const caller = req.caller!;
    await inTransaction(svc.store, async (tx) => {
      const ctx = svc.handlerContext(req, caller, tx);
      const rc = rep(req, caller, tx, ctx);
      const current = await load(req, caller, rc);
      requireConditions(req, current, rc);
      await deleteWhole(svc, tx, ctx, resource, current, new Set());
    });
    return reply.code(204).send();
  });

  for (const field of resource.fields.filter((f) => f.kind === "links")) {
    const target = svc.resources.get(field.link!.target)!;
    // An older version that named the field otherwise has its sub-collection at that name too.
    for (const segment of segmentsOf(svc, resource, field)) registerLinks(field, target, segment);
  }

  /**
   * The sub-collection of a collection link at `<instance>/<segment>` (the field's name, or an older
   * version's name for it: served to requests in a version that calls it so, 404 to the others), and for a
   * stored list its members.
   */
  function registerLinks(field: FieldSpec, target: ResourceSpec, segment: string): void {
    const path = `${base}/:id/${segment}`;
    /** 404 unless the request's version names the field `segment`. */
    const named = (req: FastifyRequest) => {
      const name = req.served === undefined ? field.name : req.served.wireName(resource.collection, field.name);
      if (name !== segment) throw svc.error("routeNotFound", "", `Version ${req.apiVersion} has no ${segment} here.`);
    };
    const renamed: [string, string] | undefined = segment === field.name ? undefined : [field.name, segment];
    app.route({
      method: getAndHead(),
      url: path,
      config: { access: readAccess, produces: svc.offers(target.collectionMediaType), collection: resource.collection },
      handler: async (req, reply) => {
        named(req);
        const caller = req.caller!;
        requireRole(caller, target, "read", svc.catalog);
        const type = req.negotiated!;
        const { offset, limit } = paging(svc, req.query as Query);
        const { expand, fields } = shaping(svc, target, req.query as Query, req.served);
        const rc = rep(req, caller);
        const record = await load(req, caller, rc);
        const page = await subCollection(rc, resource, record, field, offset, limit);
        const href = subCollectionHref(rc, resource, record.id, field.name);
        return sendJson(reply, 200, type, downPage(req.served, target.collection, await representPage(rc, target, page, { href, offset, limit }, expand, fields), renamed));
      },
    });
    if (field.link!.inverse === undefined) registerMembers(field, target, path, named);
  }

  /**
   * The members of a stored list of links, one at a time, as updates of the instance (x-access update,
   * x-owner, the read hook, beforeUpdate/afterUpdate, the body schema's maxItems and minItems):
   * POST <instance>/<field> with a link adds one at the end (201, Location = the member's href, the
   * member's representation; 200 when it already is a member, which changes nothing);
   * DELETE <instance>/<field>/<member id> removes one (204; 404 when it is not a member).
   */
  function registerMembers(field: FieldSpec, target: ResourceSpec, path: string, named: (req: FastifyRequest) => void): void {
    const memberTypes = svc.offers(target.mediaType);
    app.post(path, { config: { access: write.config.access, produces: memberTypes, collection: resource.collection } }, async (req, reply) => {
      named(req);
      const caller = req.caller!;
      const type = req.negotiated!;
      const served = req.served;
      const baseUrl = served?.baseUrl ?? svc.baseUrl;
      const key = served === undefined ? field.name : served.wireName(resource.collection, field.name)!;
      requireBody(svc, req, served === undefined ? memberTypes : served.offers(memberTypes));
      const href = memberHref(svc, target, req.body);
      const match = matchInVersions(svc, href, baseUrl, target);
      if (match.id === undefined) throw invalidLink(svc, key, target.collection, href, match.problem);
      const id = match.id;
      const { added, member } = await inTransaction(svc.store, async (tx) => {
        const rc = rep(req, caller, tx);
        const current = await load(req, caller, rc);
        const held = (current.data[field.name] as string[] | undefined) ?? [];
        let added = false;
        if (!held.includes(id)) {
          added = true;
          const add = (wire: Json) => ({ ...wire, [key]: [...((wire[key] as unknown[] | undefined) ?? []), { meta: { href } }] });
          await updateIn(req, caller, tx, add, (f) => f === field.name, current);
        }
        const stored = await tx.get(target.collection, id);
        if (stored === undefined) throw invalidLink(svc, key, target.collection, href, noInstance(target, id));
        // A member the caller may not read (x-access read of its collection) is answered as a link.
        const shown = canRead(caller, target) ? await representShown(rc, target, stored) : undefined;
        return { added, member: shown ?? instanceLink(rc, target, id) };
      });
      if (added) reply.header("location", hrefOf(baseUrl, target.collection, id));
      return sendJson(reply, added ? 201 : 200, type, down(served, target.collection, member));
    });
    app.delete(`${path}/:member`, { config: { access: write.config.access, collection: resource.collection } }, async (req, reply) => {
      named(req);
      const caller = req.caller!;
      const served = req.served;
      const key = served === undefined ? field.name : served.wireName(resource.collection, field.name)!;
      const member = (req.params as Params).member!;
      await inTransaction(svc.store, async (tx) => {
        const rc = rep(req, caller, tx);
        const current = await load(req, caller, rc);
        const held = (current.data[field.name] as string[] | undefined) ?? [];
        if (!held.includes(member)) throw svc.error("notFound", "", `"${member}" is not one of the ${key} of this ${resource.name}.`);
        const href = hrefOf(rc.baseUrl, target.collection, member);
        await updateIn(
          req,
          caller,
          tx,
          (wire) => ({ ...wire, [key]: ((wire[key] as Json[] | undefined) ?? []).filter((l) => hrefOfLink(l) !== href) }),
          (f) => f === field.name,
          current,
        );
      });
      return reply.code(204).send();
    });
  }
}

/**
 * The path segments of a collection link's sub-collection: its name, and each other name an older version
 * gave it (x-renamed) that is no other field's current name.
 */
function segmentsOf(svc: ServiceContext, resource: ResourceSpec, field: FieldSpec): string[] {
  const out = [field.name];
  for (const served of svc.versions.values()) {
    const wire = served.wireName(resource.collection, field.name);
    if (wire !== undefined && !out.includes(wire) && !resource.fields.some((f) => f.name === wire)) out.push(wire);
  }
  return out;
}

/**
 * matchLink under the request's version's base URL, else under another served version's (a client of one
 * version may hold an href another version gave it: both name the same instance); the first problem when none.
 */
function matchInVersions(svc: ServiceContext, href: unknown, baseUrl: string, target: ResourceSpec): HrefMatch {
  const match = matchLink(href, baseUrl, target);
  if (match.id !== undefined || svc.bases.length < 2) return match;
  for (const other of svc.bases) {
    if (other === baseUrl) continue;
    const found = matchLink(href, other, target);
    if (found.id !== undefined) return found;
  }
  return match;
}

/** A representation of an instance of `collection` as the request's version has it (as it is for the current version). */
function down(served: ServedVersion | undefined, collection: string, body: Json): Json {
  return served === undefined || served.current ? body : served.downInstance(collection, body);
}

/** A page of `collection` as the request's version has it; `renamed` names a sub-collection's segment in that version. */
function downPage(served: ServedVersion | undefined, collection: string, page: Json, renamed?: readonly [string, string]): Json {
  return served === undefined || served.current ? page : served.downPage(collection, page, renamed);
}

/**
 * The methods of a GET route registered with its HEAD as one Fastify route. Fastify would add the HEAD as a
 * second route, and every route costs start-up time (its context, a boot step, and a 'preReady' listener
 * whose removal is linear in their number: quadratic in all). The answer is the same: Fastify sets
 * Content-Length from the body, as its HEAD twin does, and Node's HTTP server sends no body to a HEAD.
 * A new array each time: Fastify writes the normalised methods into it.
 */
function getAndHead(): ("GET" | "HEAD")[] {
  return ["GET", "HEAD"];
}

/** The 403 of an instance a read hook hides from the caller: what another key's x-owner instance answers. */
function hidden(svc: ServiceContext, resource: ResourceSpec): ApiError {
  return svc.error("forbidden", "", `This ${resource.name} is not visible to this key.`);
}

/**
 * The href of the link a member POST sends: `{ "meta": { "href": "<href>" } }`, else a 400 naming what is
 * missing and showing the link's form with the href form of `target`'s instances.
 */
function memberHref(svc: ServiceContext, target: ResourceSpec, body: unknown): string {
  const form = linkForm(svc, target.collection);
  if (body === null || typeof body !== "object" || Array.isArray(body)) throw svc.error("invalidProperty", "", `Send the member as a link: ${form}.`);
  const meta = (body as Json).meta;
  if (meta === undefined) throw svc.error("missingProperty", "meta", `Send the member as a link: ${form}.`);
  if (meta === null || typeof meta !== "object" || Array.isArray(meta)) throw svc.error("invalidProperty", "meta", `meta is an object: send the member as a link, ${form}.`);
  const href = (meta as Json).href;
  if (href === undefined) throw svc.error("missingProperty", "meta.href", `Send the member as a link: ${form}.`);
  if (typeof href !== "string" || href === "") throw svc.error("invalidProperty", "meta.href", `meta.href is the href of an instance, a non-empty string: ${form}.`);
  return href;
}

/**
 * A link to an instance of `collection` as a body writes it.
 * @example linkForm(svc, "authors") === '{ "meta": { "href": "https://api.example.com/v1/authors/<id>" } }'
 */
function linkForm(svc: ServiceContext, collection: string): string {
  return `{ "meta": { "href": "${hrefOf(svc.baseUrl, collection)}/<id>" } }`;
}

/**
 * Deletes `record` in the transaction `tx`, keeping links whole (CONTRACT §6): an instance link to it
 * without x-on-delete refuses the delete (409 stillLinked, `property` = "<linking collection>.<field>");
 * "cascade" deletes the linking instances the same way, first (their beforeDelete and afterDelete hooks
 * run; no access check, the definitions asked for it); "clear" removes the link from them; a stored list
 * drops the member. `deleting` holds the instances this delete already takes (so cycles end, and an
 * instance that links to itself or to one being deleted does not refuse it).
 */
async function deleteWhole(svc: ServiceContext, tx: Store, ctx: HandlerContext, resource: ResourceSpec, record: StoredRecord, deleting: Set<string>): Promise<void> {
  const key = `${resource.collection}/${record.id}`;
  deleting.add(key);
  const hooks = svc.hooks.get(resource.collection) ?? {};
  const rc: RepresentContext = { spec: svc.spec, resources: svc.resources, store: tx, baseUrl: svc.baseUrl, caller: ctx.caller };
  const before = buildPlain(rc, resource, record);
  await hooks.beforeDelete?.(before, ctx);
  const referrers = svc.referrers.get(resource.collection) ?? [];
  const now = new Date().toISOString();
  // Refusals first: nothing is cascaded or cleared for a delete that is refused anyway.
  for (const { resource: linking, field } of referrers) {
    if (field.kind !== "link" || field.link!.onDelete !== undefined) continue;
    // At most deleting.size of the linking instances are being deleted already: one page one longer than that
    // holds another linking instance whenever there is one, without reading every linking instance.
    const page = await tx.list(linking.collection, { offset: 0, limit: deleting.size + 1, where: { field: field.name, equals: record.id } });
    if (page.items.some((r) => !deleting.has(`${linking.collection}/${r.id}`))) throw stillLinked(svc, resource, linking, field);
  }
  for (const { resource: linking, field } of referrers) {
    if (field.kind === "link" && field.link!.onDelete === undefined) continue;
    const where = field.kind === "link" ? { field: field.name, equals: record.id } : { field: field.name, contains: record.id };
    for (const other of await linkingRecords(tx, linking, where)) {
      if (deleting.has(`${linking.collection}/${other.id}`)) continue;
      if (field.kind === "link" && field.link!.onDelete === "cascade") {
        await deleteWhole(svc, tx, ctx, linking, other, deleting);
        continue;
      }
      // A clear or a stored list's member taken out is no update by the caller: no update hooks run.
      const data: Json = { ...other.data };
      // A nullable link reads null once cleared, as a merge patch of null leaves it; any other is removed.
      if (field.kind === "link" && field.nullable === true) data[field.name] = null;
      else if (field.kind === "link") delete data[field.name];
      else data[field.name] = (other.data[field.name] as string[]).filter((id) => id !== record.id);
      await tx.update(linking.collection, { ...other, modifiedAt: now, data });
    }
  }
  await tx.delete(resource.collection, record.id);
  await hooks.afterDelete?.(before, ctx);
}

/** Every record of `resource` whose `where` matches, read whole before any of them changes (paging while changing would skip some). */
async function linkingRecords(store: Store, resource: ResourceSpec, where: { field: string; equals: string } | { field: string; contains: string }): Promise<StoredRecord[]> {
  const out: StoredRecord[] = [];
  const batch = 500;
  for (let offset = 0; ; offset += batch) {
    const page = await store.list(resource.collection, { offset, limit: batch, where });
    out.push(...page.items);
    if (page.items.length < batch) return out;
  }
}

/** The 409 of a delete that other instances' links refuse. */
function stillLinked(svc: ServiceContext, resource: ResourceSpec, linking: ResourceSpec, field: FieldSpec): ApiError {
  const noun = spokenName(resource.name);
  const them = spokenName(linking.collection);
  return new ApiError(entry(svc.catalog, "stillLinked"), `${linking.collection}.${field.name}`, {
    message: `This ${noun} cannot be deleted: ${them} link to it.`,
    dev:
      `Some ${linking.collection} link to this ${noun} through their "${field.name}", and a link never points at nothing. ` +
      `Delete those ${them} or change their ${field.name} first. (The definitions can say otherwise: "x-on-delete": "cascade" on ${linking.collection}.${field.name} deletes them with it, "clear" removes the link.)`,
  });
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

/**
 * The expand and fields selections of a request; `tag` (when nothing is expanded) names the selection in the
 * ETag: a representation shaped by `fields` alone is a function of the instance's state and the selection,
 * so its ETag needs no digest of its bytes (etag.ts).
 */
type Shaping = { readonly expand: Selection; readonly fields: Selection | undefined; readonly tag?: string | undefined };

/** Neither fields nor expand: most requests. */
const PLAIN: Shaping = Object.freeze({ expand: EMPTY_SELECTION, fields: undefined });

/** Most shapings remembered per resource: clients send the same few fields/expand values over and over. */
const SHAPING_CACHE_LIMIT = 500;
const shapings = new WeakMap<ResourceSpec, Map<string, Shaping>>();

/**
 * The expand and fields selections of the query, checked against the resource (parsed once per distinct
 * value); in an older version (`served`), in its names, answered in the current ones.
 */
function shaping(svc: ServiceContext, resource: ResourceSpec, query: Query, served?: ServedVersion): Shaping {
  const fieldsText = selectionText(query.fields);
  const expandText = selectionText(query.expand);
  if (fieldsText === undefined && expandText === undefined) return PLAIN;
  let cache = shapings.get(resource);
  if (cache === undefined) shapings.set(resource, (cache = new Map()));
  const older = served !== undefined && !served.current ? served : undefined;
  const key = `${older?.version ?? ""}:${fieldsText?.length ?? 0}:${fieldsText ?? ""}${expandText ?? ""}`; // the length tells where one value ends
  let shaped = cache.get(key);
  if (shaped === undefined) {
    const parse = (name: "fields" | "expand", text: string | undefined): Selection | undefined => {
      if (text === undefined) return undefined;
      const parsed = parseSelection(text);
      const code = name === "fields" ? "unknownField" : "unknownExpand";
      if (!parsed.ok) throw svc.error(code, name, parsed.error);
      let tree = parsed.tree;
      if (older !== undefined) {
        const current = older.selection(resource.collection, tree);
        if ("unknown" in current) throw svc.error(code, name, `"${current.unknown}" cannot be used in ${name} here (version ${older.version}).`);
        tree = current.tree as Selection;
      }
      const checked = checkSelection(tree, resource, svc.resources, name, older !== undefined);
      if (!checked.ok) throw svc.error(code, name, `"${checked.name}" cannot be used in ${name} here.`);
      return tree;
    };
    const fields = parse("fields", fieldsText);
    const expand = parse("expand", expandText);
    const expansion = expansionOf(fields, expand, resource, svc.resources);
    shaped = { expand: expansion, fields, tag: isEmptySelection(expansion) ? selectionTag(key) : undefined };
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

/** A write needs a JSON body (JSON, or one of the vendor types `offers` lists); a request without one (and without a Content-Type) is a 415. */
function requireBody(svc: ServiceContext, req: FastifyRequest, offers: readonly string[]): void {
  const accepted = offers.slice(1);
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
    throw conflictOf(svc, resource, e);
  }
}

/** A store's UniqueViolation as the 409 the client reads; any other error as it is. */
function conflictOf(svc: ServiceContext, resource: ResourceSpec, e: unknown): unknown {
  if (!(e instanceof UniqueViolation)) return e;
  const noun = spokenName(resource.name);
  return new ApiError(entry(svc.catalog, "conflict"), e.property, {
    message: `Another ${noun} already has this ${e.property}.`,
    dev: `Another ${noun} already has this ${e.property}: "${e.property}" is unique among ${resource.collection}. Choose another value, or update that ${noun} instead.`,
  });
}

/** A resource's camelCase singular as words: "libraryBook" → "library book". */
function spokenName(name: string): string {
  return name.replace(/([a-z0-9])([A-Z])/g, "$1 $2").toLowerCase();
}

/** planStored, then its links checked in the write's transaction (verifyLinks): the data to store. */
async function toStored(
  svc: ServiceContext,
  ctx: HandlerContext,
  resource: ResourceSpec,
  input: Json,
  update: { readonly current?: StoredRecord; readonly written: (field: string) => boolean },
  baseUrl: string,
): Promise<Json> {
  const plan = planStored(svc, resource, input, update, baseUrl);
  await verifyLinks(svc, ctx, plan.checks);
  return plan.data;
}

/** A link a write names that must be checked: it exists, and (unless `known`) the caller may see it. */
interface LinkCheck {
  readonly target: string;
  readonly id: string;
  /** An id the instance already holds: checked for existence only (a link someone else set stays the caller's to keep). */
  readonly known: boolean;
  readonly property: string;
  readonly href: unknown;
}

/** The stored data of a write and the links it must check before it is stored. */
interface StoredPlan {
  readonly data: Json;
  readonly checks: readonly LinkCheck[];
}

/** What a create writes: every field it sends. */
const CREATED = { written: () => true } as const;

/**
 * Request body → stored data: links become ids, and those that must name existing instances, of the right
 * collection, under the service's base URL, that the caller may see (x-owner, read hook) are listed to be
 * checked (a link that is not an href of the target's collection is a 400 at once). On an update,
 * `written` says which fields the request wrote: a link it did not write is kept as the instance holds it,
 * unchecked (a merge patch of other fields works whatever the link names); an id the instance already
 * holds is checked for existence but not for visibility.
 */
function planStored(
  svc: ServiceContext,
  resource: ResourceSpec,
  input: Json,
  update: { readonly current?: StoredRecord; readonly written: (field: string) => boolean },
  /** The base URL the body's hrefs are under: the request's version's. */
  baseUrl: string,
): StoredPlan {
  const data: Json = {};
  const checks: LinkCheck[] = [];
  const current = update.current;
  for (const field of resource.fields) {
    if (!Object.prototype.hasOwnProperty.call(input, field.name) || field.link?.inverse || field.name === resource.owner) continue;
    const value = input[field.name];
    if (field.kind !== "link" && field.kind !== "links") {
      data[field.name] = value;
      continue;
    }
    if (value === null && field.kind === "link" && field.nullable === true) {
      data[field.name] = null;
      continue;
    }
    const held = current?.data[field.name];
    const kept = new Set(typeof held === "string" ? [held] : Array.isArray(held) ? (held as string[]) : []);
    const written = update.written(field.name);
    const target = field.link!.target;
    const link = (item: unknown): string => {
      const href = hrefOfLink(item);
      const match = matchInVersions(svc, href, baseUrl, svc.resources.get(target)!);
      if (match.id === undefined) throw invalidLink(svc, field.name, target, href, match.problem);
      const id = match.id;
      if (!kept.has(id) || written) checks.push({ target, id, known: kept.has(id), property: field.name, href });
      return id;
    };
    data[field.name] = field.kind === "link" ? link(value) : [...new Set((value as unknown[]).map(link))];
  }
  // An open resource keeps what else the body held (its schema checked it: additionalProperties, patternProperties).
  copyOtherProperties(resource, input, data);
  return { data, checks };
}

/**
 * A check that is of existence alone: an id the instance holds, or a target without x-owner (or an admin
 * caller) and without a read hook. The others read the instance to ask whether the caller may see it.
 */
function existenceOnly(svc: ServiceContext, caller: Caller, check: LinkCheck): boolean {
  const target = svc.resources.get(check.target)!;
  return check.known || ((target.owner === undefined || isAdmin(caller, target)) && !svc.readHooks.has(check.target));
}

/** The 400 of the first check (in the body's order) that failed. */
function firstFailed(svc: ServiceContext, checks: readonly LinkCheck[], ok: readonly boolean[]): void {
  const at = ok.indexOf(false);
  if (at === -1) return;
  const c = checks[at]!;
  throw invalidLink(svc, c.property, c.target, c.href, noInstance(svc.resources.get(c.target)!, c.id));
}

/**
 * Checks a write's links (see planStored) through the store of its transaction: existence by one query per
 * target collection, visibility by reading the instance (and asking its read hook). 400 invalidLink for the
 * first that fails: an x-owner instance of another key, or one a read hook hides, answers exactly as a
 * missing one, so a link never tells that it exists.
 */
async function verifyLinks(svc: ServiceContext, ctx: HandlerContext, checks: readonly LinkCheck[]): Promise<void> {
  if (checks.length === 0) return;
  const { only, byTarget } = existenceChecks(svc, ctx.caller, checks);
  const found = new Map<string, Set<string>>();
  for (const [target, ids] of byTarget) found.set(target, await ctx.store.existing(target, ids));
  const ok: boolean[] = [];
  for (const [i, c] of checks.entries()) ok.push(only[i] ? found.get(c.target)!.has(c.id) : await visible(svc, ctx, c));
  firstFailed(svc, checks, ok);
}

/** verifyLinks in a synchronous transaction (ImmediateWrites), for checks that ask no read hook (checkableNow). */
function verifyLinksNow(svc: ServiceContext, caller: Caller, tx: ImmediateTransaction, checks: readonly LinkCheck[]): void {
  if (checks.length === 0) return;
  const { only, byTarget } = existenceChecks(svc, caller, checks);
  const found = new Map([...byTarget].map(([target, ids]) => [target, tx.existing(target, ids)]));
  const ok = checks.map((c, i) => {
    if (only[i]) return found.get(c.target)!.has(c.id);
    const record = tx.get(c.target, c.id);
    return record !== undefined && canSee(caller, svc.resources.get(c.target)!, record);
  });
  firstFailed(svc, checks, ok);
}

/** Which checks are of existence alone (existenceOnly), and their ids by target collection: one query each. */
function existenceChecks(svc: ServiceContext, caller: Caller, checks: readonly LinkCheck[]): { only: boolean[]; byTarget: Map<string, string[]> } {
  const only = checks.map((c) => existenceOnly(svc, caller, c));
  const byTarget = new Map<string, string[]>();
  for (const [i, c] of checks.entries()) {
    if (!only[i]) continue;
    const ids = byTarget.get(c.target);
    if (ids === undefined) byTarget.set(c.target, [c.id]);
    else ids.push(c.id);
  }
  return { only, byTarget };
}

/** True when a check can be made in a synchronous transaction: it asks no read hook. */
function checkableNow(svc: ServiceContext, check: LinkCheck): boolean {
  return check.known || !svc.readHooks.has(check.target);
}

/** The 400 of a link that names no instance of `target` it may: why, with the href as written and the link's form. */
function invalidLink(svc: ServiceContext, property: string, target: string, href: unknown, problem: string): ApiError {
  const shown = typeof href === "string" ? JSON.stringify(href.length > 300 ? `${href.slice(0, 300)}…` : href) : JSON.stringify(href ?? null);
  return svc.error("invalidLink", property, `The link ${shown} ${problem}. A link to an existing instance is written ${linkForm(svc, target)}, with the href as this service gives it.`);
}

/** True when the caller may see instance `check.id` (x-owner, then the target's read hook). */
async function visible(svc: ServiceContext, ctx: HandlerContext, check: LinkCheck): Promise<boolean> {
  const { store, caller } = ctx;
  const target = svc.resources.get(check.target)!;
  const record = await store.get(check.target, check.id);
  if (record === undefined || !canSee(caller, target, record)) return false;
  if (!svc.readHooks.has(check.target)) return true;
  const rc: RepresentContext = { spec: svc.spec, resources: svc.resources, store, baseUrl: svc.baseUrl, caller, read: { hooks: svc.readHooks, context: () => ctx } };
  return (await representShown(rc, target, record)) !== undefined;
}

/** Stored data → the request-body shape (links as { meta: { href } } under `baseUrl`), the base of a merge patch. */
function toWire(resource: ResourceSpec, record: StoredRecord, baseUrl: string): Json {
  const out: Json = {};
  for (const field of resource.fields) {
    if (!Object.prototype.hasOwnProperty.call(record.data, field.name)) continue;
    const v = record.data[field.name];
    if (field.kind === "link") out[field.name] = v === null ? null : { meta: { href: hrefOf(baseUrl, field.link!.target, String(v)) } };
    else if (field.kind === "links") out[field.name] = (v as string[]).map((id) => ({ meta: { href: hrefOf(baseUrl, field.link!.target, id) } }));
    else out[field.name] = v;
  }
  copyOtherProperties(resource, record.data, out);
  return out;
}

/**
 * RFC 7396 JSON merge patch, objects merged and anything else replacing, where null removes a member
 * unless `fields` (the declared fields at this level, with their properties below) call it nullable:
 * then null is its value. A stored list of links is never null.
 * @example mergePatch({ a: 1, b: 2 }, { a: null, b: null }, [{ name: "a", kind: "integer", nullable: true }]) → { a: null }
 */
export function mergePatch(target: unknown, patch: unknown, fields?: readonly FieldSpec[]): Json {
  if (patch === null || typeof patch !== "object" || Array.isArray(patch)) return patch as Json;
  const out: Json = target !== null && typeof target === "object" && !Array.isArray(target) ? { ...(target as Json) } : {};
  for (const [key, value] of Object.entries(patch as Json)) {
    const field = fields?.find((f) => f.name === key);
    let merged: unknown;
    if (value !== null) merged = mergePatch(out[key], value, field?.properties);
    else if (field?.nullable === true && field.kind !== "links") merged = null;
    else {
      delete out[key];
      continue;
    }
    Object.defineProperty(out, key, { value: merged, enumerable: true, writable: true, configurable: true });
  }
  return out;
}
