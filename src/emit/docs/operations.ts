/**
 * Every operation of a service, described once from the model, for the OpenAPI document and the
 * HTML and Markdown references: method, path, parameters, bodies, examples and possible error codes.
 */
import { withArticle } from "../../model/names.js";
import type { Action, Field, Model, Resource } from "../../model/types.js";
import { sampleOf, sharedSchemasKey } from "../samples.js";
import { PAGING } from "../spec.js";
import { exampleBody } from "../contract-samples.js";
import { exampleIdOf, exampleTimeOf } from "../shared/server-fields.js";
import { keyOf } from "../keys.js";

export type OperationKind = "list" | "create" | "get" | "update" | "replace" | "delete" | "sub-collection" | "add-member" | "remove-member" | "action";

export interface Operation {
  readonly id: string;
  readonly kind: OperationKind;
  readonly method: "GET" | "POST" | "PUT" | "PATCH" | "DELETE";
  /** Path relative to the base URL, with {id} for the instance id (and {memberId} for a member of a stored list). */
  readonly path: string;
  readonly summary: string;
  readonly description: string;
  /** The collection (tag) or action the operation belongs to. */
  readonly tag: string;
  readonly resource?: Resource;
  readonly field?: Field;
  readonly action?: Action;
  /** Resource whose representation (or page) the success answer carries. */
  readonly answers?: Resource;
  readonly status: 200 | 201 | 204;
  /** A second success status: 200 of a member POST whose link already is a member. */
  readonly alsoStatus?: 200;
  /** Error keys of the catalog this operation can answer with, by status. */
  readonly errors: readonly string[];
  /**
   * Example request body and success body (undefined when there is none). For a resource's operations they are
   * made when first read (not enumerable): what they are made of is `exampleKey`.
   */
  readonly exampleBody?: unknown;
  readonly exampleAnswer?: unknown;
  /** The digest of what a resource operation's examples are made of (see examplesKey), which its key takes instead of them. */
  readonly exampleKey?: string;
  /** Example query string (without "?"). */
  readonly exampleQuery?: string;
}

const AUTH = ["unauthenticated", "basicNeedsTls", "forbidden", "notAcceptable", "unknownVersion", "tooManyRequests", "internal"];
const READ = ["unknownField", "unknownExpand", ...AUTH];
const WRITE = ["malformedJson", "missingProperty", "unknownProperty", "invalidProperty", "readOnlyProperty", "invalidLink", "payloadTooLarge", "unsupportedMediaType", ...AUTH];

/** The errors of a body that is one link (a member POST). */
const LINK_BODY = ["malformedJson", "missingProperty", "invalidProperty", "invalidLink", "payloadTooLarge", "unsupportedMediaType"];

const cap = (s: string) => s.charAt(0).toUpperCase() + s.slice(1);

/** The minItems and maxItems a stored list of links declares. */
function listBounds(f: Field): { min?: number; max?: number } {
  const s = f.schema as Record<string, unknown>;
  return {
    ...(typeof s.minItems === "number" && s.minItems > 0 ? { min: s.minItems } : {}),
    ...(typeof s.maxItems === "number" ? { max: s.maxItems } : {}),
  };
}

/** The links stored elsewhere to instances of `r`: each linking resource and field (inverse collections are not stored). */
export function referrersOf(model: Model, r: Resource): readonly { resource: Resource; field: Field }[] {
  let index = referrersCache.get(model);
  if (!index) {
    // Built once per model: a scan of every field per resource was quadratic (a quarter of the docs at 500 resources).
    index = new Map();
    for (const resource of model.resources) {
      for (const field of resource.fields) {
        if (field.link === undefined || field.link.inverse !== undefined) continue;
        let list = index.get(field.link.target);
        if (!list) index.set(field.link.target, (list = []));
        list.push({ resource, field });
      }
    }
    referrersCache.set(model, index);
  }
  return index.get(r.collection) ?? [];
}

const referrersCache = new WeakMap<Model, Map<string, { resource: Resource; field: Field }[]>>();

/** What deleting an instance of `r` does to the instances that link to it, one sentence per link (CONTRACT §6). */
export function deleteEffects(model: Model, r: Resource): string[] {
  return referrersOf(model, r).map(({ resource: o, field: f }) => {
    if (f.link!.kind === "collection") return `It is dropped from the \`${f.name}\` of every ${o.name} that lists it.`;
    if (f.link!.onDelete === "cascade") return `The ${o.collection} whose \`${f.name}\` links to it are deleted with it (and what their own links ask for).`;
    if (f.link!.onDelete === "clear") return `The ${o.collection} whose \`${f.name}\` links to it lose that link.`;
    return `While ${withArticle(o.name)} links to it through \`${f.name}\`, the delete is refused: 409 with \`property\` \`${o.collection}.${f.name}\`.`;
  });
}

/** True when a delete of an instance of `r` can be refused: a link without x-on-delete to it, or to what it cascades to. */
export function deleteCanBeRefused(model: Model, r: Resource, seen = new Set<string>()): boolean {
  if (seen.has(r.collection)) return false;
  seen.add(r.collection);
  return referrersOf(model, r).some(({ resource: o, field: f }) => f.link!.kind === "instance" && (f.link!.onDelete === undefined || (f.link!.onDelete === "cascade" && deleteCanBeRefused(model, o, seen))));
}

const byCollectionCache = new WeakMap<Model, Map<string, Resource>>();

/** The resource of a collection name (link targets), by a map built once per model rather than a scan per link. */
export function resourceOf(model: Model, collection: string): Resource | undefined {
  let map = byCollectionCache.get(model);
  if (!map) byCollectionCache.set(model, (map = new Map(model.resources.map((r) => [r.collection, r]))));
  return map.get(collection);
}

/** An example representation of a resource: server fields, sample values, links as { meta }. */
export function exampleInstance(model: Model, r: Resource, id = exampleIdOf(model, r)): Record<string, unknown> {
  const href = `${model.service.baseUrl}/${r.collection}/${id}`;
  const body = (exampleBody(r) ?? {}) as Record<string, unknown>;
  const out: Record<string, unknown> = { meta: { href, mediaType: r.mediaType }, id, createdAt: exampleTimeOf(model, r, "createdAt"), modifiedAt: exampleTimeOf(model, r, "modifiedAt") };
  for (const f of r.fields) {
    if (f.link?.kind === "instance") {
      const target = resourceOf(model, f.link!.target)!;
      out[f.name] = { meta: { href: `${model.service.baseUrl}/${target.collection}/${exampleIdOf(model, target, 1)}`, mediaType: target.mediaType } };
    } else if (f.link?.kind === "collection") {
      const target = resourceOf(model, f.link!.target)!;
      out[f.name] = { meta: { href: `${href}/${f.name}`, mediaType: target.collectionMediaType } };
    } else if (f.name === r.owner) {
      out[f.name] = "Fc-IYyGjhCzJi9xTwCPBNw";
    } else if (Object.hasOwn(body, f.name)) {
      out[f.name] = body[f.name];
    }
  }
  return out;
}

/** An example request body: the sample values, with links written as { meta: { href } }. */
export function exampleInput(model: Model, r: Resource): Record<string, unknown> {
  const body = { ...((exampleBody(r) ?? {}) as Record<string, unknown>) };
  for (const f of r.fields) {
    if (f.link?.kind === "instance") {
      body[f.name] = { meta: { href: `${model.service.baseUrl}/${f.link.target}/${exampleIdOf(model, resourceOf(model, f.link.target)!, 1)}` } };
    }
  }
  return body;
}

function page(model: Model, r: Resource, href: string, instance = exampleInstance(model, r)): Record<string, unknown> {
  return { meta: { href, mediaType: r.collectionMediaType }, offset: 0, limit: PAGING.defaultLimit, size: 1, items: [instance] };
}

const operationCache = new WeakMap<Model, Operation[]>();

/** Every operation of the service, in route order (computed once per model). */
export function operationsOf(model: Model): Operation[] {
  let ops = operationCache.get(model);
  if (!ops) operationCache.set(model, (ops = computeOperations(model)));
  return ops;
}

function computeOperations(model: Model): Operation[] {
  const ops: Operation[] = [];
  for (const r of model.resources) {
    const T = cap(r.typeName);
    const base = `/${r.collection}`;
    const one = `${base}/{id}`;
    const unique = r.unique.length > 0 ? ["conflict"] : [];
    // One example instance and input per resource, shared by its operations and made when one is read (read-only:
    // the docs print them); the operations' keys take what they are made of instead.
    let made: { readonly instance: Record<string, unknown>; readonly input: Record<string, unknown> } | undefined;
    const own = () => (made ??= { instance: exampleInstance(model, r), input: exampleInput(model, r) });
    const ownKey = examplesKey(model, r);
    ops.push(
      withExamples({ id: `list${cap(r.collection)}`, kind: "list", method: "GET", path: base, tag: r.collection, resource: r, answers: r, status: 200, summary: `List ${r.collection}`, description: `A page of the ${r.collection} collection${r.owner ? " (only the caller's own, unless it has an admin role)" : ""}.`, errors: ["invalidPaging", ...READ], exampleQuery: "offset=0&limit=10" }, ownKey, () => ({ answer: page(model, r, `${model.service.baseUrl}${base}`, own().instance) })),
      withExamples({ id: `create${T}`, kind: "create", method: "POST", path: base, tag: r.collection, resource: r, answers: r, status: 201, summary: `Create ${withArticle(r.name)}`, description: `Creates ${withArticle(r.name)}; the answer's Location header is its href.`, errors: [...WRITE, ...unique] }, ownKey, () => ({ body: own().input, answer: own().instance })),
      withExamples({ id: `get${T}`, kind: "get", method: "GET", path: one, tag: r.collection, resource: r, answers: r, status: 200, summary: `Get ${withArticle(r.name)}`, description: `One ${r.name}; \`expand\` inlines links and \`fields\` selects what comes back.`, errors: ["notFound", ...READ] }, ownKey, () => ({ answer: own().instance })),
      withExamples({ id: `update${T}`, kind: "update", method: "PATCH", path: one, tag: r.collection, resource: r, answers: r, status: 200, summary: `Update ${withArticle(r.name)}`, description: "A partial update: a JSON merge patch (RFC 7396). The fields it names are set and nested objects merged; `null` sets a nullable field to null (it stays, with the value null) and removes any other optional field; `null` for a required field that is not nullable is a 400 naming it. `POST` to the same path does the same.", errors: ["notFound", ...WRITE, ...unique, "preconditionFailed"] }, ownKey, () => ({ body: firstPlain(own().input), answer: own().instance })),
      withExamples({ id: `replace${T}`, kind: "replace", method: "PUT", path: one, tag: r.collection, resource: r, answers: r, status: 200, summary: `Replace ${withArticle(r.name)}`, description: `Replaces the whole ${r.name}.`, errors: ["notFound", ...WRITE, ...unique, "preconditionFailed"] }, ownKey, () => ({ body: own().input, answer: own().instance })),
      {
        id: `delete${T}`,
        kind: "delete",
        method: "DELETE",
        path: one,
        tag: r.collection,
        resource: r,
        status: 204,
        summary: `Delete ${withArticle(r.name)}`,
        description: [`Deletes the ${r.name}.`, ...deleteEffects(model, r)].join(" "),
        errors: ["notFound", ...(deleteCanBeRefused(model, r) ? ["stillLinked"] : []), "preconditionFailed", ...AUTH.filter((k) => k !== "notAcceptable" && k !== "unknownVersion")],
      },
    );
    for (const f of r.fields.filter((x) => x.link?.kind === "collection")) {
      const target = resourceOf(model, f.link!.target)!;
      const targetKey = examplesKey(model, target);
      ops.push(withExamples({
        id: `list${T}${cap(f.name)}`,
        kind: "sub-collection",
        method: "GET",
        path: `${one}/${f.name}`,
        tag: r.collection,
        resource: r,
        field: f,
        answers: target,
        status: 200,
        summary: `List the ${f.name} of ${withArticle(r.name)}`,
        description: f.link!.inverse ? `The ${target.collection} whose ${f.link!.inverse} is this ${r.name} (read-only here: set the ${f.link!.inverse} of a ${target.name}).` : `The ${target.collection} this ${r.name} links to.`,
        errors: ["notFound", "invalidPaging", ...READ],
      }, targetKey, () => ({ answer: page(model, target, `${model.service.baseUrl}/${r.collection}/${exampleIdOf(model, r)}/${f.name}`) })));
      if (f.link!.inverse) continue;
      const bounds = listBounds(f);
      ops.push(
        withExamples({
          id: `add${cap(f.name)}To${T}`,
          kind: "add-member",
          method: "POST",
          path: `${one}/${f.name}`,
          tag: r.collection,
          resource: r,
          field: f,
          answers: target,
          status: 201,
          alsoStatus: 200,
          summary: `Add one of the ${f.name} of ${withArticle(r.name)}`,
          description:
            `Adds the ${target.name} the body links to at the end of the ${r.name}'s \`${f.name}\`: 201 with the ${target.name} and \`Location\` its href; 200 when it already is one of them (nothing changes). ` +
            `It is an update of the ${r.name}: the same access applies${bounds.max !== undefined ? `, and it holds at most ${bounds.max} ${f.name}` : ""}. The link must name an existing ${target.name} of this service (400 otherwise).`,
          errors: ["notFound", ...LINK_BODY, ...AUTH],
        }, targetKey, () => ({ body: { meta: { href: `${model.service.baseUrl}/${target.collection}/${exampleIdOf(model, target, 1)}` } }, answer: exampleInstance(model, target, exampleIdOf(model, target, 1)) })),
        {
          id: `remove${cap(f.name)}From${T}`,
          kind: "remove-member",
          method: "DELETE",
          path: `${one}/${f.name}/{memberId}`,
          tag: r.collection,
          resource: r,
          field: f,
          status: 204,
          summary: `Remove one of the ${f.name} of ${withArticle(r.name)}`,
          description:
            `Removes the ${target.name} with id \`memberId\` from the ${r.name}'s \`${f.name}\` (the ${target.name} itself stays); 404 when it is not one of them. ` +
            `It is an update of the ${r.name}: the same access applies${bounds.min !== undefined ? `, and it keeps at least ${bounds.min} ${f.name}` : ""}.`,
          errors: ["notFound", ...(bounds.min !== undefined ? ["invalidProperty"] : []), ...AUTH.filter((k) => k !== "notAcceptable" && k !== "unknownVersion")],
        },
      );
    }
  }
  for (const a of model.actions) {
    const params = sampleOf(a.query) as Record<string, unknown> | undefined;
    ops.push({
      id: a.name.replace(/-([a-z])/g, (_, c: string) => c.toUpperCase()),
      kind: "action",
      method: a.method,
      path: `/${a.name}`,
      tag: "actions",
      action: a,
      status: 200,
      summary: cap(a.name),
      description: a.description || `The ${a.name} action.`,
      errors: ["invalidParameter", "notImplemented", ...AUTH],
      exampleQuery: params ? new URLSearchParams(Object.entries(params).map(([k, v]) => [k, String(v)])).toString() : "",
      exampleAnswer: sampleOf(a.response),
    });
  }
  return ops;
}

/**
 * `op` with its examples made when first read (`exampleBody`, `exampleAnswer`: getters, not enumerable, so that
 * neither a digest nor a copy of the operation makes them) and `exampleKey`, the digest of what they are made of.
 */
function withExamples(op: Operation, key: string, make: () => { readonly body?: unknown; readonly answer?: unknown }): Operation {
  let made: { readonly body?: unknown; readonly answer?: unknown } | undefined;
  const examples = () => (made ??= make());
  Object.defineProperties(op, {
    exampleBody: { get: () => examples().body, enumerable: false },
    exampleAnswer: { get: () => examples().answer, enumerable: false },
    exampleKey: { value: key, enumerable: true },
  });
  return op;
}

const examplesKeys = new WeakMap<Resource, string>();

/**
 * What the examples of `r` (its instance, input and page: exampleInstance, exampleInput, page) are made of: the
 * resource, the base URL, the shared schemas (sample values, declared ids and times) and, of the targets of its
 * links, what the links show (collection, media types, example id). Computed once per resource.
 */
function examplesKey(model: Model, r: Resource): string {
  let key = examplesKeys.get(r);
  if (key === undefined) {
    // Of a link's target, what the link shows: its collection, media types and example id.
    const shown = (t: Resource | undefined) => (t === undefined ? null : [t.collection, t.mediaType, t.collectionMediaType, exampleIdOf(model, t, 1)]);
    examplesKeys.set(r, (key = keyOf("examples", model.service.baseUrl, sharedSchemasKey(), r, r.fields.map((f) => (f.link ? shown(resourceOf(model, f.link.target)) : null)))));
  }
  return key;
}

/** By the first operation of the list (the reference and openapi.json list a resource's operations apart, alike). */
const operationsKeys = new WeakMap<Operation, { readonly ops: readonly Operation[]; readonly key: string }>();

/**
 * The digest of everything a list of operations (a resource's, as the docs group them) is made of (emit/keys.ts):
 * their own data (what their examples are made of), their resources, the resources they answer with, their
 * actions and the targets of their link fields — what the docs made of them read of them. One digest for the
 * list, not one per operation (thousands at 500 resources); computed once per list.
 */
export function operationsKey(model: Model, ops: readonly Operation[]): string {
  if (ops.length === 0) return keyOf("operations");
  const cached = operationsKeys.get(ops[0]!);
  if (cached !== undefined && cached.ops.length === ops.length && cached.ops.every((op, i) => op === ops[i])) return cached.key;
  // Each operation's enumerable members as JSON (a resource operation's examples are not enumerable, their
  // exampleKey is; an action's are), the objects it names by name, digested apart once each. (A text built
  // member by member: copying each operation without those objects cost more than the digest.)
  const named = new Set<object>();
  const data: string[] = [];
  for (const op of ops) {
    for (const k of Object.keys(op)) {
      const v = (op as unknown as Record<string, unknown>)[k];
      if (k === "resource" || k === "answers" || k === "action") {
        named.add(v as object);
        data.push(k, JSON.stringify((v as { name: string }).name));
      } else if (k === "field") {
        const field = v as Field;
        const target = field.link ? resourceOf(model, field.link.target) : undefined;
        if (target !== undefined) named.add(target);
        data.push(k, JSON.stringify(field.name), JSON.stringify(target?.collection ?? null));
      } else data.push(k, JSON.stringify(v) ?? "undefined");
    }
    data.push("");
  }
  const key = keyOf("operations", data.join("\n"), ...named);
  operationsKeys.set(ops[0]!, { ops, key });
  return key;
}

function firstPlain(body: Record<string, unknown>): Record<string, unknown> {
  const entry = Object.entries(body).find(([, v]) => v === null || typeof v !== "object");
  return entry ? { [entry[0]]: entry[1] } : {};
}


/** The names `fields` accepts on a resource (server fields, plain fields and links). */
export function fieldNames(r: Resource): string[] {
  return ["id", "createdAt", "modifiedAt", ...r.fields.map((f) => f.name)];
}

/** The names `expand` accepts on a resource (its links). */
export function expandNames(r: Resource): string[] {
  return r.fields.filter((f) => f.link).map((f) => f.name);
}
