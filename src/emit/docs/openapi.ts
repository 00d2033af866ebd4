/**
 * openapi.json: the OpenAPI 3.1 description of a generated service, a pure function of the model.
 * Every route and method the runtime answers, its parameters, bodies and answers under every media type
 * it negotiates, each error status with the catalog codes that can come with it, and the auth schemes.
 */
import { setOwn, SHARED_REF_PREFIX } from "../../model/build-schema.js";
import type { Action, AuthScheme, ErrorDef, Field, JsonSchema, Model, Resource } from "../../model/types.js";
import { modelOfVersion, versionDates, type VersionDates } from "../../model/version-model.js";
import { servedVersions } from "../../model/versions.js";
import { deprecationNote, openApiFile } from "./versions.js";
import { renderAll, type EmittedFile, type LazyFile } from "../emitted-file.js";
import { sampleOf, useSharedSchemas } from "../samples.js";
import { BODY_LIMIT, LINK_INPUT_SCHEMA, PAGING, bodySchemaOf, isWritable } from "../spec.js";
import { serverFieldSchema } from "../shared/server-fields.js";
import { issuesTokens } from "../shared/auth.js";
import { expandNames, fieldNames, operationsKey, operationsOf, resourceOf, type Operation } from "./operations.js";
import { keyOf } from "../keys.js";
import { memo } from "../memo.js";

type Json = Record<string, unknown>;

const OPENAPI_VERSION = "3.1.0";
/** Largest offset the runtime reads (routes-resource.ts `paging`). */
const MAX_OFFSET = 1_000_000_000;
/** Characters of a name `fields` and `expand` can select (runtime select.ts). */
const SELECTABLE = /^[A-Za-z0-9_$-]+$/;
const MERGE_PATCH = "application/merge-patch+json";
/** The tags of the service's own endpoints (OpenApiBuilder.serviceTags). */
const HEALTH_TAG = "Service health";
const OAUTH_TAG = "OAuth 2.0";
/** What every request body's description says of its size. */
const BODY_LIMIT_TEXT = `The body is at most ${BODY_LIMIT} bytes (413 beyond).`;

const REASONS: Readonly<Record<number, string>> = {
  400: "Bad Request",
  401: "Unauthorized",
  403: "Forbidden",
  404: "Not Found",
  405: "Method Not Allowed",
  406: "Not Acceptable",
  409: "Conflict",
  410: "Gone",
  412: "Precondition Failed",
  413: "Content Too Large",
  415: "Unsupported Media Type",
  422: "Unprocessable Content",
  423: "Locked",
  428: "Precondition Required",
  429: "Too Many Requests",
  500: "Internal Server Error",
  501: "Not Implemented",
  502: "Bad Gateway",
  503: "Service Unavailable",
  504: "Gateway Timeout",
};

/** Access action that guards each kind of operation (x-access). */
const GUARD = { list: "read", get: "read", "sub-collection": "read", create: "create", update: "update", replace: "update", delete: "delete", "add-member": "update", "remove-member": "update" } as const;

/** The OpenAPI 3.1 document of the service, or of one of its older versions (`model` is then modelOfVersion's). */
export function openApiOf(model: Model): Json {
  return new OpenApiBuilder(model).document();
}

/**
 * The bytes of a docs file as the last generation wrote it, when the file is still as written (its size and
 * mtime as the stat cache recorded them: write/manifest.ts knownKeys), by its path in the docs; else undefined.
 */
export type PreviousDocs = (path: string) => Buffer | undefined;

/** openapi.json, and openapi.v<N>.json of each older version served (2-space JSON with a trailing newline). */
export function emitOpenApi(model: Model): EmittedFile[] {
  return renderAll(openApiFiles(model));
}

/**
 * openapi.json (without the properties the current version no longer has) and each older version's
 * openapi.v<N>.json, rendered when asked. With `previous` (a regeneration), the path items of each resource
 * whose operations are made of what they were last time are taken from the file as printed then (see
 * OpenApiBuilder.paths), and the file is left unrendered when nothing it is made of changed (its key).
 */
export function openApiFiles(model: Model, previous?: PreviousDocs): LazyFile[] {
  useSharedSchemas(model.schemas);
  const current = model.service.version;
  const older = servedVersions(model.service).filter((v) => v !== current);
  // Each version's document is built once, whichever of its files asks first.
  const documents = new Map<number, Json>();
  const documentOf = (v: number): Json => {
    let doc = documents.get(v);
    if (doc === undefined) documents.set(v, (doc = new OpenApiBuilder(modelOfVersion(model, v), previous?.(v === current ? "openapi.json" : openApiFile(v, current))).document()));
    return doc;
  };
  const document = (path: string, v: number): LazyFile => ({
    path,
    owner: "generated",
    // What the document is made of: the whole model but its sources and the client's and package's type names.
    key: () => keyOf("openapi document", path, v, model.service, model.errors, model.mediaTypes, model.schemas, model.actions, ...model.resources),
    render: () => printedText(documentOf(v)),
    bytes: () => printedBytes(documentOf(v)),
  });
  return [
    document("openapi.json", current),
    ...older.map((v) => document(openApiFile(v, current), v)),
    // V2: the JSON Schemas a link's media type may name with its `schema` parameter, per version served.
    ...(older.length === 0 ? [] : [...older, current].map((v): LazyFile => ({ path: `schemas/v${v}.json`, owner: "generated", render: () => JSON.stringify(jsonSchemasOf(documentOf(v), v), null, 2) + "\n" }))),
  ];
}

/**
 * The JSON Schemas of one version's OpenAPI document (its components) as one JSON Schema 2020-12 document:
 * each under `$defs`, references between them rewritten (`#/components/schemas/Book` → `#/$defs/Book`). The
 * schema of version 2's book is `<docs>/schemas/v2.json#/$defs/Book`.
 */
export function jsonSchemasOf(document: Json, version: number): Json {
  const components = ((document.components as Json | undefined)?.schemas ?? {}) as Json;
  const rewrite = (value: unknown): unknown => {
    if (Array.isArray(value)) return value.map(rewrite);
    if (value === null || typeof value !== "object") return value;
    const out: Json = {};
    for (const [key, v] of Object.entries(value as Json)) {
      const next = key === "$ref" && typeof v === "string" && v.startsWith("#/components/schemas/") ? `#/$defs/${v.slice("#/components/schemas/".length)}` : rewrite(v);
      Object.defineProperty(out, key, { value: next, enumerable: true, writable: true, configurable: true });
    }
    return out;
  };
  const info = (document.info ?? {}) as Json;
  return { $schema: "https://json-schema.org/draft/2020-12/schema", title: `${String(info.title ?? "")}, version ${version}: representations and bodies`, $defs: rewrite(components) };
}

/** Component names of one resource. */
interface ResourceNames {
  readonly full: string;
  readonly partial: string;
  readonly input: string;
  readonly patch: string;
  readonly page: string;
  readonly fields: string;
  readonly expand: string;
}

class OpenApiBuilder {
  private readonly names = new Map<string, ResourceNames>();
  private readonly results = new Map<string, string>();
  private readonly taken = new Set(["Meta", "Link", "LinkInput", "CollectionLink", "Error"]);
  private readonly schemas: Json = {};
  private readonly parameters: Json = {};
  /** Response headers, each written once and referred to (Location, WWW-Authenticate). */
  private readonly headers: Json = {};
  /** Components shared by operations, named once per distinct object (see `shared`). */
  private readonly components: Record<SharedKind, Json> = { responses: {}, requestBodies: {}, examples: {} };
  /** Error responses by name: the name (status and codes) decides the object, built once; with what building it did (see `record`). */
  private readonly errorResponses = new Map<string, { readonly ref: Json; readonly effects: readonly string[] }>();
  /** Answers of HEAD operations by their JSON text (see withoutBody), likewise. */
  private readonly headResponses = new Map<string, { readonly ref: Json; readonly effects: readonly string[] }>();
  /**
   * What the operations being built do to the document beyond their path items (see `record`), in order,
   * once each; undefined when nothing records.
   */
  private effects: Set<string> | undefined;
  /**
   * The effects replayed so far that come out the same whenever replayed again (all but operationIds): a shared
   * component's name taken by the same printed value, a header, a link schema, an id parameter. Most groups'
   * effects are the same error answers: replayed once.
   */
  private readonly settled = new Set<string>();
  /** True when an effect of the group being built could not be noted (see `record`). */
  private unremembered = false;
  /** The entries of paths and of the shared components' maps in the last generation's document, as printed (see `paths`). */
  private readonly printed: ReadonlyMap<string, Printed> | undefined;
  private readonly operationIds = new Set<string>();
  private ops: { op: Operation; method: string; id: string }[] = [];
  /** Lookups by key rather than scans per operation, which made the document quadratic in the resources. */
  private readonly primaryIds = new Map<Operation, string>();
  private readonly opsOfResource = new Map<Resource, Operation[]>();
  private readonly errorsByKey: Map<string, ErrorDef>;
  private readonly mediaTypesByName: Map<string, Model["mediaTypes"][number]>;
  /** Path parameters of ids that are not UUIDs, by "<id|memberId> <collection>" (see idParameter). */
  private readonly idParameters = new Map<string, string>();
  /** Shared link schemas some schema refers to; the others are left out of the document. */
  private readonly linkSchemasUsed = new Set<string>();

  /** The day this (older) version may stop being served: its operations are deprecated, its answers say so. */
  private readonly dates: VersionDates;

  /** `previous`: the bytes of this document as the last generation printed it (see `paths`). */
  constructor(
    private readonly model: Model,
    previous?: Buffer,
  ) {
    this.printed = previous === undefined ? undefined : printedEntries(previous);
    this.dates = versionDates(model.service);
    // The shared schemas' names are fixed (fields refer to them): the documents' own names go around them.
    for (const shared of model.schemas) this.taken.add(shared.name);
    this.errorsByKey = new Map(model.errors.map((e) => [e.key, e]));
    this.mediaTypesByName = new Map(model.mediaTypes.map((m) => [m.name, m]));
    for (const r of model.resources) {
      let base = componentName(r.typeName);
      const derived = (b: string) => [b, `${b}Partial`, `${b}Input`, `${b}Patch`, `${b}Page`];
      if (derived(base).some((n) => this.taken.has(n))) base = this.unique(`${base}Resource`);
      for (const n of derived(base)) this.taken.add(n);
      this.names.set(r.collection, { full: base, partial: `${base}Partial`, input: `${base}Input`, patch: `${base}Patch`, page: `${base}Page`, fields: `${base}Fields`, expand: `${base}Expand` });
    }
    for (const a of model.actions) {
      const name = this.unique(`${componentName(a.typeName)}Result`);
      this.taken.add(name);
      this.results.set(a.name, name);
    }
  }

  document(): Json {
    const { service } = this.model;
    this.ops = this.expandedOperations();
    for (const { op, method, id } of this.ops) {
      if (method !== op.method) continue;
      this.primaryIds.set(op, id);
      if (!op.resource) continue;
      const list = this.opsOfResource.get(op.resource);
      if (list) list.push(op);
      else this.opsOfResource.set(op.resource, [op]);
    }
    this.sharedComponents();
    for (const shared of this.model.schemas) setOwn(this.schemas, shared.name, clean(shared.schema));
    for (const r of this.model.resources) this.resourceComponents(r);
    for (const a of this.model.actions) setOwn(this.schemas, this.results.get(a.name)!, { ...asObject(clean(a.response)), description: describe(a.response, `The result of ${a.name}.`) });

    const paths = this.paths();
    this.serviceEndpoints(paths);

    // The link schemas of a service without links would be unused components.
    for (const shared of ["Link", "CollectionLink", "LinkInput"]) {
      if (!this.linkSchemasUsed.has(shared)) delete this.schemas[shared];
    }
    referToFirstCopies(this.schemas, new Map([...this.names.values()].map((n) => [n.full, [n.partial, n.input, n.patch, n.page]])));

    const securitySchemes = securitySchemesOf(this.model);
    return {
      openapi: OPENAPI_VERSION,
      info: {
        title: service.title,
        version: String(service.version),
        description: this.infoDescription(),
        contact: { name: `${service.title} reference`, url: service.errorDocsUrl },
      },
      servers: [{ url: service.baseUrl, description: `${service.title}, version ${service.version}${this.dates.deprecated ? ` (deprecated${this.dates.sunset ? `: served until ${this.dates.sunset}` : ""})` : ""}` }],
      externalDocs: { description: "Every error code, with its cause and fix", url: service.errorDocsUrl },
      tags: [
        ...this.model.resources.map((r) => ({ name: r.collection, description: r.description || `The ${r.collection} collection and its instances.` })),
        ...(this.model.actions.length > 0 ? [{ name: "actions", description: "Operations that are not on a resource: a verb as the path segment (E2/E3)." }] : []),
        ...this.serviceTags(),
      ],
      // Any one of the schemes: alternatives, each a requirement of its own.
      "x-media-type-aliases": this.mediaTypeAliases(),
      security: Object.keys(securitySchemes).map((s) => ({ [s]: [] })),
      paths,
      components: {
        schemas: this.schemas,
        parameters: this.parameters,
        headers: sortedKeys(this.headers),
        responses: sortedKeys(this.components.responses),
        requestBodies: sortedKeys(this.components.requestBodies),
        examples: sortedKeys(this.components.examples),
        securitySchemes,
      },
    };
  }

  // ---------------------------------------------------------------------------------------------
  // Operations

  /**
   * The path items of every resource's and action's operations, resource by resource (operations.ts lists
   * them so). A resource whose operations are made of what they were made of last time (the group's key: the
   * operations, the resources they name, and what every operation reads of the service) takes its path items
   * as the last generation printed them, when replaying what building them did to the rest of the document
   * gives it the same names as then (`replay`): the components they refer to, written as printed then. Any
   * other is built, and what building it did is remembered (emit/memo.ts) for the next generation.
   */
  private paths(): Json {
    const paths: Json = {};
    const groups: { op: Operation; method: string; id: string }[][] = [];
    for (const entry of this.ops) {
      const last = groups.at(-1);
      if (last !== undefined && last[0]!.op.resource === entry.op.resource) last.push(entry);
      else groups.push([entry]);
    }
    const global = keyOf("openapi operations", OPENAPI_VERSION, this.model.service, this.model.errors, this.model.mediaTypes, [...this.names], [...this.results], this.model.resources.map((r) => [r.collection, r.idForm]));
    const remembered = memo();
    for (const group of groups) {
      // (An update is in the group twice, as PATCH and POST: its operations once each.)
      const key = keyOf("openapi path items", global, group.map(({ method, id }) => `${method} ${id}`).join("\n"), operationsKey(this.model, [...new Set(group.map((g) => g.op))]));
      const found = this.printed === undefined ? undefined : remembered.findKey<PathItemsMemo>(key);
      if (found !== undefined && this.replay(found, paths)) {
        remembered.keep(key);
        continue;
      }
      this.effects = new Set();
      const made: string[] = [];
      for (const { op, method, id } of group) {
        const member = op.path.includes("{memberId}") ? resourceOf(this.model, op.field!.link!.target) : undefined;
        const pathParameters = [...(op.path.includes("{id}") ? [this.idParameter(op.resource!, "id")] : []), ...(member ? [this.idParameter(member, "memberId")] : [])];
        if (!Object.hasOwn(paths, op.path)) {
          setOwn(paths, op.path, pathParameters.length > 0 ? { parameters: pathParameters } : {});
          made.push(op.path);
        }
        const item = paths[op.path] as Json;
        const operation = this.operation(op, method, id);
        item[method.toLowerCase()] = operation;
        if (method === "GET") item.head = this.headOperation(operation);
      }
      const effects = [...this.effects];
      this.effects = undefined;
      if (!this.unremembered) remembered.set(key, { paths: made, effects: effects.join("\n") } satisfies PathItemsMemo);
      this.unremembered = false;
    }
    return paths;
  }

  /**
   * Replays what building a group of operations did (`record`) and sets its path items as printed, unless an
   * effect comes out other than it did then (a component's name, an operationId) or something printed is
   * missing: then everything it did is undone and false returned (the group is built).
   */
  private replay(found: PathItemsMemo, paths: Json): boolean {
    const printed = this.printed!;
    const items = found.paths.map((p) => printed.get(`paths\n${p}`));
    if (items.some((item) => item === undefined) || found.paths.some((p) => Object.hasOwn(paths, p))) return false;
    const undo: (() => void)[] = [];
    const added = (o: Json, name: string) => undo.push(() => delete o[name]);
    const ok = (): boolean => {
      for (const effect of found.effects === "" ? [] : found.effects.split("\n")) {
        if (this.settled.has(effect)) continue;
        const [wanted, name = wanted, third] = effect.slice(1).split(" ") as [string, string | undefined, string | undefined];
        if (effect[0] !== "o") {
          // Once replayed, the same effect leaves nothing to do (its name stays taken by the same value).
          this.settled.add(effect);
          undo.push(() => this.settled.delete(effect));
        }
        switch (effect[0]) {
          case "r":
          case "b":
          case "x": {
            const kind = SHARED_KINDS[effect.charAt(0)]!;
            const value = printed.get(`${kind}\n${name}`);
            if (value === undefined) return false;
            const components = this.components[kind];
            let chosen = wanted;
            for (let n = 2; Object.hasOwn(components, chosen) && !samePrinted(components[chosen], value); n++) chosen = `${wanted}${n}`;
            if (chosen !== name) return false;
            if (!Object.hasOwn(components, chosen)) {
              setOwn(components, chosen, value);
              added(components, chosen);
            }
            break;
          }
          case "h": {
            if (!RESPONSE_HEADERS.has(wanted)) return false;
            const header = wanted as Parameters<OpenApiBuilder["header"]>[0];
            if (!Object.hasOwn(this.headers, header)) added(this.headers, header);
            this.header(header);
            break;
          }
          case "l":
            if (!LINK_SCHEMAS.has(wanted)) return false;
            if (!this.linkSchemasUsed.has(wanted)) undo.push(() => this.linkSchemasUsed.delete(wanted));
            this.linkSchemasUsed.add(wanted);
            break;
          case "p": {
            // p<id|memberId> <collection> <component>
            const r = resourceOf(this.model, name);
            if (r === undefined || (wanted !== "id" && wanted !== "memberId")) return false;
            const key = `${wanted} ${r.collection}`;
            const fresh = r.idForm.kind !== "uuid" && !this.idParameters.has(key);
            if (third === undefined || this.idParameterName(r, wanted) !== third) return false;
            this.idParameter(r, wanted);
            if (fresh) {
              undo.push(() => this.idParameters.delete(key));
              added(this.parameters, third);
            }
            break;
          }
          case "o": {
            let id = wanted;
            for (let n = 2; this.operationIds.has(id); n++) id = `${wanted}${n}`;
            if (id !== name) return false;
            this.operationIds.add(id);
            undo.push(() => this.operationIds.delete(id));
            break;
          }
          default:
            return false;
        }
      }
      return true;
    };
    if (!ok()) {
      for (const u of undo.reverse()) u();
      return false;
    }
    found.paths.forEach((p, i) => setOwn(paths, p, items[i]!));
    return true;
  }

  /**
   * Notes what building an operation did to the document besides its path item (see `paths`): a letter for
   * what, then the names, space-separated. A name with white space in it cannot be noted: the group is then
   * not remembered.
   */
  private record(what: string, ...names: string[]): void {
    if (this.effects === undefined) return;
    if (names.some((n) => /\s/.test(n))) this.unremembered = true;
    this.effects.add(`${what}${names.join(" ")}`);
  }

  /** Runs `build` noting its effects apart, and adds them to the operations' (see errorResponse, withoutBody). */
  private recorded(build: () => Json): { ref: Json; effects: readonly string[] } {
    const outer = this.effects;
    this.effects = new Set();
    try {
      const ref = build();
      return { ref, effects: [...this.effects] };
    } finally {
      this.effects = outer;
    }
  }

  private replayed(cached: { ref: Json; effects: readonly string[] }): Json {
    for (const e of cached.effects) this.effects?.add(e);
    return cached.ref;
  }

  /** operations.ts's list with POST-on-instance added beside PATCH, and every operationId unique. */
  private expandedOperations(): { op: Operation; method: string; id: string }[] {
    const out: { op: Operation; method: string; id: string }[] = [];
    for (const op of operationsOf(this.model)) {
      const id = this.operationId(op.id);
      if (op.kind === "update") out.push({ op, method: "POST", id: this.operationId(`${op.id}ByPost`) });
      out.push({ op, method: op.method, id });
    }
    return out;
  }

  private operationId(wanted: string): string {
    let id = wanted;
    for (let n = 2; this.operationIds.has(id); n++) id = `${wanted}${n}`;
    this.operationIds.add(id);
    this.record("o", wanted, ...(id !== wanted ? [id] : []));
    return id;
  }

  /** The final id of an operation of operations.ts (after de-duplication), for `links`. */
  private idOf(kind: Operation["kind"], resource: Resource, field?: Field): string | undefined {
    const op = this.opsOfResource.get(resource)?.find((o) => o.kind === kind && (field === undefined || o.field === field));
    return op && this.primaryIds.get(op);
  }

  private operation(op: Operation, method: string, id: string): Json {
    const r = op.resource;
    const byPost = op.kind === "update" && method === "POST";
    const out: Json = {
      operationId: id,
      summary: byPost ? `${op.summary} (POST)` : op.summary,
      description: this.operationDescription(op, byPost),
      tags: [op.tag],
    };
    if (this.dates.deprecated) out.deprecated = true;
    const parameters = this.operationParameters(op);
    if (parameters.length > 0) out.parameters = parameters;
    if (r && (op.kind === "create" || op.kind === "replace" || op.kind === "update")) out.requestBody = this.requestBody(op, r);
    if (op.kind === "add-member") out.requestBody = this.memberBody(op);
    out.responses = this.responses(op);
    return out;
  }

  /**
   * HEAD of a GET route (Fastify answers HEAD on every GET route with the GET's status and headers, and no
   * body): the GET's parameters and statuses, each answer without `content` and `links`.
   */
  private headOperation(get: Json): Json {
    const responses: Json = {};
    for (const [status, answer] of Object.entries(get.responses as Json)) setOwn(responses, status, "$ref" in (answer as Json) ? this.withoutBody(answer as Json) : withoutContent(answer as Json));
    return {
      ...get,
      operationId: this.operationId(`${String(get.operationId)}Head`),
      summary: `${String(get.summary)} (HEAD)`,
      description: "The same as `GET` on this path (the same status and headers) without a body.",
      responses,
    };
  }

  /**
   * A $ref to the shared answer `answer` refers to, without its body: one component per distinct object (a
   * list and a sub-collection of the same resource, for one, differ only in their bodies' examples).
   */
  private withoutBody(answer: Json): Json {
    const source = String(answer.$ref);
    const name = source.slice(source.lastIndexOf("/") + 1);
    const { content: _content, links: _links, description, ...rest } = plain(this.components.responses[name]);
    const value: Json = { description: `${String(description)} No body (HEAD).`, ...rest };
    const key = JSON.stringify(value);
    let out = this.headResponses.get(key);
    if (!out) this.headResponses.set(key, (out = this.recorded(() => this.shared("responses", `${name}Head`, value))));
    return this.replayed(out);
  }

  /**
   * A $ref to a component of `kind` holding `value`, named `wanted` (or wanted2, … when a different
   * object has that name). Operations repeat the same bodies and answers (create and replace take the
   * same body, PATCH and POST the same patch, update and replace give the same answer, every answer of
   * an instance has the same example), each under several media types: identical objects are one
   * component, so that an operation is mostly $refs and the document does not repeat them.
   */
  private shared(kind: SharedKind, wanted: string, value: Json): Json {
    // Every answer of a deprecated version carries Deprecation, and Sunset when it has one (RFC 9745, RFC 8594).
    if (kind === "responses" && this.dates.deprecated) {
      value = { ...value, headers: { ...asObject(value.headers), Deprecation: this.header("Deprecation"), ...(this.dates.sunset ? { Sunset: this.header("Sunset") } : {}) } };
    }
    const components = this.components[kind];
    let name = wanted;
    // Names are chosen so that equal objects want the same one: compare with that component (not a JSON text of each).
    for (let n = 2; Object.prototype.hasOwnProperty.call(components, name) && !sameJson(plain(components[name]), value); n++) name = `${wanted}${n}`;
    if (!Object.prototype.hasOwnProperty.call(components, name)) setOwn(components, name, value);
    this.record(SHARED_LETTERS[kind], wanted, ...(name !== wanted ? [name] : []));
    return { $ref: ref(kind, name) };
  }

  /** The `examples` of a media type: one shared example. */
  private example(name: string, summary: string, value: unknown): Json {
    return { [name]: this.shared("examples", name, { summary, value }) };
  }

  private operationDescription(op: Operation, byPost: boolean): string {
    // How a merge patch applies, and the body's limit, the request body says once for every operation that takes it.
    const update = "A partial update with a JSON merge patch (RFC 7396): the request body says how it applies.";
    const parts = [op.kind !== "update" ? op.description : byPost ? `${update} The same as \`PATCH\` on this path, for clients that cannot send \`PATCH\`.` : `${update} \`POST\` to the same path does the same.`];
    const r = op.resource;
    if (r && op.kind !== "action") {
      const guard = GUARD[op.kind as keyof typeof GUARD];
      const roles = r.access[guard];
      const admin = r.access.admin ?? [];
      const otherAdmins = admin.filter((a) => !roles?.includes(a));
      if (roles) parts.push(`Needs one of the roles ${list(roles)}${otherAdmins.length ? ` (or an admin role: ${list(otherAdmins)})` : ""}.`);
      if (op.kind === "sub-collection" && op.answers && op.answers.access.read) parts.push(`Also needs read access to ${op.answers.collection}: one of the roles ${list(op.answers.access.read)}.`);
      if (r.owner && op.kind !== "list" && op.kind !== "create") parts.push(`Only the key that created it${admin.length ? " or an admin role" : ""} may use it (403 otherwise).`);
      if (r.owner && op.kind === "create") parts.push(`The server sets \`${r.owner}\` to the id of the calling key.`);
    } else if (op.action) {
      if (op.action.roles.length > 0) parts.push(`Needs one of the roles ${list(op.action.roles)}.`);
      const closed = asObject(op.action.query).additionalProperties === false;
      if (op.action.params.length > 0) parts.push(`Its parameters are read from the query string; a missing or invalid one${closed ? " (or one it does not declare)" : ""} is a 400 with \`property\` naming it.`);
      else parts.push(closed ? "It takes no parameters; any query parameter is a 400." : "It takes no parameters.");
    }
    return parts.join(" ");
  }

  private operationParameters(op: Operation): unknown[] {
    const out: unknown[] = [];
    if (op.kind === "list" || op.kind === "sub-collection") out.push({ $ref: ref("parameters", "offset") }, { $ref: ref("parameters", "limit") });
    if (op.kind === "list" || op.kind === "sub-collection" || op.kind === "get") {
      const shaped = op.answers!;
      const names = this.names.get(shaped.collection)!;
      out.push({ $ref: ref("parameters", names.fields) });
      if (selectable(expandNames(shaped)).length > 0) out.push({ $ref: ref("parameters", names.expand) });
    }
    if (op.kind === "get") out.push({ $ref: ref("parameters", "ifNoneMatch") });
    if (op.kind === "update" || op.kind === "replace" || op.kind === "delete") out.push({ $ref: ref("parameters", "ifMatch") });
    if (op.action) out.push(...this.actionParameters(op.action));
    return out;
  }

  private actionParameters(a: Action): unknown[] {
    const sample = asObject(sampleOf(a.query));
    return a.params.map((p) => {
      const schema = clean(p.schema);
      const example = Object.prototype.hasOwnProperty.call(sample, p.name) ? sample[p.name] : undefined;
      return {
        name: p.name,
        in: "query",
        required: p.required,
        description: describe(p.schema, `The ${p.name} parameter.`),
        schema,
        ...(example !== undefined ? { example } : {}),
      };
    });
  }

  /** A $ref to the request body: create and replace share one per resource, PATCH and POST another. */
  private requestBody(op: Operation, r: Resource): Json {
    const names = this.names.get(r.collection)!;
    const merge = op.kind === "update";
    const name = merge ? names.patch : names.input;
    const schema = { $ref: ref("schemas", name) };
    const summary = merge ? `A merge patch of ${article(r.name)}` : `A body that creates or replaces ${article(r.name)}`;
    const media = { schema, ...(op.exampleBody !== undefined ? { examples: this.example(name, summary, op.exampleBody) } : {}) };
    const types = merge ? [MERGE_PATCH, "application/json"] : ["application/json"];
    return this.shared("requestBodies", name, {
      required: true,
      description: merge
        ? `A JSON merge patch (RFC 7396) of the ${r.name}: the fields it names are set and nested objects merged; \`null\` sets a nullable field to null (it stays, with the value null) and removes any other optional field; \`null\` for a required field that is not nullable is a 400 naming it. Links are written as \`{ "meta": { "href": "<href>" } }\`. ${BODY_LIMIT_TEXT}`
        : `The whole ${r.name}, without the fields the server sets (id, meta, createdAt, modifiedAt${r.owner ? `, ${r.owner}` : ""}). Links are written as \`{ "meta": { "href": "<href>" } }\` and must name existing instances. ${BODY_LIMIT_TEXT}`,
      content: this.content(types, r.mediaType, media),
    });
  }

  /** The body of a member POST: one link, under JSON and the member's vendor type. */
  private memberBody(op: Operation): Json {
    const target = op.answers!;
    const media = { schema: { $ref: this.linkSchema("LinkInput") }, examples: this.example("MemberLink", "A link to the member to add", op.exampleBody) };
    return this.shared("requestBodies", "MemberLink", {
      required: true,
      description: `A link to the instance to add: \`{ "meta": { "href": "<href of an existing instance>" } }\` (a full representation is accepted too). ${BODY_LIMIT_TEXT}`,
      content: this.content(["application/json"], target.mediaType, media),
    });
  }

  private responses(op: Operation): Json {
    const out: Json = {};
    if (op.alsoStatus !== undefined) out[String(op.alsoStatus)] = this.alreadyMember(op);
    out[String(op.status)] = this.success(op);
    if (op.kind === "get") out["304"] = this.shared("responses", "NotModified", { description: "Not Modified: the ETag in If-None-Match is still the representation's; no body.", headers: { ETag: this.header("ETag") } });
    const byStatus = new Map<number, ErrorDef[]>();
    for (const key of this.errorKeys(op)) {
      const e = this.errorsByKey.get(key);
      if (!e) continue;
      const group = byStatus.get(e.status) ?? [];
      if (!group.includes(e)) group.push(e);
      byStatus.set(e.status, group);
    }
    for (const status of [...byStatus.keys()].sort((a, b) => a - b)) out[String(status)] = this.errorResponse(status, byStatus.get(status)!, false);
    const own = this.model.errors.filter((e) => !e.builtin);
    if (own.length > 0 && ["create", "update", "replace", "delete", "add-member", "remove-member", "action"].includes(op.kind)) out.default = this.errorResponse(undefined, own, true);
    return out;
  }

  /** The 200 of a member POST whose link already is a member: the member, nothing changed. */
  private alreadyMember(op: Operation): Json {
    const target = op.answers!;
    const names = this.names.get(target.collection)!;
    const schema = { $ref: ref("schemas", names.full) };
    const examples = op.exampleAnswer !== undefined ? { examples: this.example(names.full, capitalize(article(target.name)), op.exampleAnswer) } : {};
    return this.shared("responses", `${names.full}AlreadyMember`, {
      description: `OK: the ${target.name} already is one of them; nothing changed.`,
      content: this.content(["application/json"], target.mediaType, { schema, ...examples }),
    });
  }

  /**
   * The operation's error keys, less two that cannot happen: basicNeedsTls when Basic credentials are
   * not read at all, invalidParameter for an action without parameters that takes any query.
   */
  private errorKeys(op: Operation): string[] {
    const schemes = this.model.service.auth.schemes;
    const basic = schemes.includes("basic") || schemes.includes("apiKey");
    const a = op.action;
    const noParameters = a !== undefined && a.params.length === 0 && asObject(a.query).additionalProperties !== false;
    return op.errors.filter((k) => (basic || k !== "basicNeedsTls") && !(noParameters && k === "invalidParameter"));
  }

  /** A $ref to the success answer; the answers of update and replace are one component per resource. */
  private success(op: Operation): Json {
    const r = op.resource;
    if (op.kind === "remove-member") {
      return this.shared("responses", `${this.names.get(r!.collection)!.full}${capitalize(componentName(op.field!.name))}MemberRemoved`, { description: `No Content: it is no longer one of the ${op.field!.name} of the ${r!.name}.` });
    }
    if (op.status === 204) return this.shared("responses", `${this.names.get(r!.collection)!.full}Deleted`, { description: `No Content: the ${r!.name} is deleted.` });
    let schema: Json;
    let mediaType: string;
    // The answer's component name; its example's, with a summary.
    let name: string;
    let example: string;
    let summary: string;
    if (op.action) {
      schema = { $ref: ref("schemas", this.results.get(op.action.name)!) };
      mediaType = op.action.mediaType;
      name = example = this.results.get(op.action.name)!;
      summary = `A result of ${op.action.name}`;
    } else if (op.kind === "add-member") {
      const names = this.names.get(op.answers!.collection)!;
      schema = { $ref: ref("schemas", names.full) };
      mediaType = op.answers!.mediaType;
      name = `${names.full}Added`;
      example = names.full;
      summary = capitalize(article(op.answers!.name));
    } else if (op.kind === "list" || op.kind === "sub-collection") {
      const names = this.names.get(op.answers!.collection)!;
      schema = { $ref: ref("schemas", names.page) };
      mediaType = op.answers!.collectionMediaType;
      if (op.field) {
        name = example = `${this.names.get(r!.collection)!.full}${capitalize(componentName(op.field.name))}`;
        summary = `A page of the ${op.field.name} of ${article(r!.name)}`;
      } else {
        name = example = names.page;
        summary = `A page of ${op.answers!.collection}`;
      }
    } else {
      const names = this.names.get(r!.collection)!;
      schema = op.kind === "get" ? { anyOf: [{ $ref: ref("schemas", names.full) }, { $ref: ref("schemas", names.partial) }] } : { $ref: ref("schemas", names.full) };
      mediaType = r!.mediaType;
      name = op.kind === "create" ? `${names.full}Created` : op.kind === "get" ? names.full : `${names.full}Updated`;
      example = names.full;
      summary = capitalize(article(r!.name));
    }
    const examples = op.exampleAnswer !== undefined ? { examples: this.example(example, summary, op.exampleAnswer) } : {};
    const out: Json = { description: this.successDescription(op) };
    out.content = this.content(["application/json"], mediaType, { schema, ...examples });
    if (op.kind === "add-member") {
      out.headers = { Location: this.header("Location") };
    }
    if (op.kind === "get" || op.kind === "update" || op.kind === "replace") out.headers = { ETag: this.header("ETag") };
    if (op.kind === "create") {
      out.headers = { Location: this.header("Location"), ETag: this.header("ETag") };
      const get = this.idOf("get", r!);
      if (get) out.links = { [get]: { operationId: get, parameters: { id: "$response.body#/id" }, description: `Reads the ${r!.name} just created.` } };
    }
    if (op.kind === "get") {
      const links: Json = {};
      for (const f of r!.fields.filter((x) => x.link?.kind === "collection")) {
        const sub = this.idOf("sub-collection", r!, f);
        if (sub) links[sub] = { operationId: sub, parameters: { id: "$response.body#/id" }, description: `Lists the ${f.name} of this ${r!.name}.` };
      }
      if (Object.keys(links).length > 0) out.links = links;
    }
    return this.shared("responses", name, out);
  }

  private successDescription(op: Operation): string {
    switch (op.kind) {
      case "create":
        return `Created: the new ${op.resource!.name}.`;
      case "list":
      case "sub-collection":
        return `OK: a page of ${op.answers!.collection}.`;
      case "get":
        return `OK: the ${op.resource!.name} (only \`meta\` and the selected fields when \`fields\` is given).`;
      case "add-member":
        return `Created: the ${op.answers!.name} is one of the ${op.field!.name} now.`;
      case "action":
        return `OK: the result of ${op.action!.name}.`;
      default:
        return `OK: the ${op.resource!.name} as it is now.`;
    }
  }

  /** A reference to the shared response of these errors (one component per status and set of codes). */
  private errorResponse(status: number | undefined, errors: readonly ErrorDef[], own: boolean): Json {
    const name = own ? "ServiceErrors" : `Error${status}_${errors.map((e) => e.code).join("_")}`;
    let out = this.errorResponses.get(name);
    if (!out) this.errorResponses.set(name, (out = this.recorded(() => this.shared("responses", name, this.errorResponseObject(status, errors, own)))));
    return this.replayed(out);
  }

  private errorResponseObject(status: number | undefined, errors: readonly ErrorDef[], own: boolean): Json {
    const lines = errors.map((e) => `${e.code}${own ? ` (${e.status})` : ""} ${e.title}`);
    const description = own
      ? `Errors of the service's own code (its hooks and action handlers) may also come back: ${lines.join("; ")}.`
      : `${REASONS[status!] ?? "Error"}: ${lines.join("; ")}.`;
    const examples: Json = {};
    for (const e of errors) Object.assign(examples, this.example(`error${e.code}`, `${e.code} ${e.title}`, { status: e.status, code: e.code, property: "", message: e.message, dev: e.dev, info: e.info }));
    const media = { schema: { $ref: ref("schemas", "Error") }, examples };
    const out: Json = { description, content: this.content(["application/json"], this.model.mediaTypes.find((m) => m.kind === "error")?.name, media) };
    if (errors.some((e) => e.status === 401)) {
      out.headers = { "WWW-Authenticate": this.header("WWW-Authenticate") };
    }
    out["x-error-codes"] = errors.map((e) => e.code);
    return out;
  }

  /**
   * A `content` map: `media` under each of `types` and the vendor type `vendor`, and the vendor type's alias
   * (`application/<vendor>.v<N>.<resource>.json`) last, as a string holding that JSON. JSON tools (Prism,
   * client generators, Spectral's example checks) read a media type as JSON only when it is `application/json`
   * or ends in `+json`: they take a body under the alias for text, so a JSON schema there would make them
   * flag every such answer (Prism: "must be object") and generators mangle its type. Left out, an answer the
   * service gives under the alias would have an undocumented media type. As a string with `contentMediaType`
   * and `contentSchema` (JSON Schema 2020-12) it is what those tools see, and says what the text holds.
   */
  private content(types: readonly string[], vendor: string | undefined, media: Json): Json {
    const out: Json = {};
    for (const t of types) setOwn(out, t, media);
    if (vendor === undefined) return out;
    setOwn(out, vendor, media);
    const m = this.mediaTypesByName.get(vendor);
    if (m) {
      // (What an alias is, the document's description says once, and `x-media-type-aliases` maps each to its type.)
      setOwn(out, m.alias, { schema: { type: "string", contentMediaType: "application/json", contentSchema: media.schema } });
    }
    return out;
  }

  /** A $ref to the component of a response header, written on first use (the answers that carry it say what it names). */
  private header(name: "Location" | "WWW-Authenticate" | "Deprecation" | "Sunset" | "ETag"): Json {
    this.record("h", name);
    if (!Object.hasOwn(this.headers, name)) {
      const { service } = this.model;
      const headers = {
        Location: { description: "The href of the instance created or added (the same as its `meta.href`).", required: true, schema: { type: "string", format: "uri" } },
        ETag: { description: "The strong entity tag of the instance's representation: send it as If-None-Match (a 304 while it holds) or as If-Match on an update or delete (a 412 once the instance has changed).", required: true, schema: { type: "string" } },
        "WWW-Authenticate": { description: `One challenge per enabled scheme, e.g. \`Bearer realm="${service.auth.realm}"\`.`, required: true, schema: { type: "string" } },
        Deprecation: {
          description: `Version ${service.version} is deprecated as of ${this.dates.deprecated ?? ""} (RFC 9745): \`@\` and the Unix time of that day's start.`,
          required: true,
          schema: { type: "string" },
          example: `@${Date.parse(`${this.dates.deprecated ?? ""}T00:00:00Z`) / 1000}`,
        },
        Sunset: {
          description: `Version ${service.version} may stop being served after ${this.dates.sunset ?? ""} (RFC 8594): the HTTP date of that day's last second.`,
          required: true,
          schema: { type: "string" },
          example: new Date(`${this.dates.sunset ?? ""}T23:59:59Z`).toUTCString(),
        },
      };
      setOwn(this.headers, name, headers[name]);
    }
    return { $ref: `#/components/headers/${name}` };
  }

  /** Each alias media type → its canonical vendor type (the root's `x-media-type-aliases`; see content). */
  private mediaTypeAliases(): Json {
    const out: Json = {};
    for (const m of this.model.mediaTypes) setOwn(out, m.alias, m.name);
    return out;
  }

  private infoDescription(): string {
    const { service } = this.model;
    const vendor = `application/vnd.${service.vendor}.v${service.version}.<resource>+json`;
    const older =
      service.currentVersion === undefined
        ? []
        : [
            `This document describes version ${service.version}; the current version is ${service.currentVersion} (openapi.json).` +
              (this.dates.deprecated ? ` ${deprecationNote(service.version, this.dates)}` : ""),
            "",
          ];
    return [
      service.description || `The ${service.title}.`,
      "",
      ...older,
      `Every instance and page carries \`meta: { href, mediaType }\`; links are \`{ "meta": { ... } }\`. ` +
        `Answers are \`application/json\` or the vendor types \`${vendor}\`, chosen by \`Accept\` (an unknown version is a 406). ` +
        `Each vendor type has an alias, \`application/${service.vendor}.v${service.version}.<resource>.json\`, with the same body, answered when \`Accept\` asks for it and read as a request's \`Content-Type\`. ` +
        "Since JSON tools read a body as JSON only under `application/json` or a `+json` suffix, each operation lists the alias as a string whose content is that JSON (`contentMediaType`, `contentSchema`), and `x-media-type-aliases` maps each alias to its vendor type. " +
        `Pages hold at most ${PAGING.maxLimit} items (${PAGING.defaultLimit} by default). ` +
        `Every error has the body \`{ status, code, property, message, dev, info }\`, where \`info\` is \`${service.errorDocsUrl}/<code>\`.`,
    ].join("\n");
  }

  // ---------------------------------------------------------------------------------------------
  // The service's own endpoints (CONTRACT §10): health checks and, with OAuth 2.0, its authorization server

  /** A GET of the service's own (its answers written in place) and the HEAD Fastify answers beside it. */
  private getAndHead(get: Json): { get: Json; head: Json } {
    return { get, head: this.headOperation(get) };
  }


  /** The tags of the service's own endpoints (names no collection can have: they hold a space). */
  private serviceTags(): Json[] {
    return [
      { name: HEALTH_TAG, description: "Whether the service runs and can serve: outside the base path, without credentials, never rate-limited." },
      ...(this.model.service.auth.schemes.includes("oauth2") ? [{ name: OAUTH_TAG, description: "The service as an OAuth 2.0 authorization server (RFC 6749, RFC 8414): its token endpoint, its keys and its metadata." }] : []),
    ];
  }

  /**
   * The paths the service answers besides its resources and actions: `/health/live` and `/health/ready` (and,
   * with OAuth 2.0, the JWKS and the authorization server metadata) outside the base path, on the base URL's
   * origin (a `servers` of their own); the token endpoint under the base URL, in the current version's document.
   */
  private serviceEndpoints(paths: Json): void {
    const origin = [{ url: new URL(`${this.model.service.baseUrl}/`).origin, description: "The service's origin: these paths are outside the base path." }];
    const notReady = this.errorsByKey.get("notReady");
    // Answered alike whatever version a document is of: no Deprecation or Sunset (the responses are not shared with the versioned ones).
    const health = (state: "live" | "ready", summary: string, description: string): Json => {
      const responses: Json = {
        "200": { description: `OK: the service is ${state}.`, content: { "application/json": { schema: { type: "object", required: ["status"], additionalProperties: false, properties: { status: { const: state } } }, example: { status: state } } } },
      };
      if (state === "ready" && notReady) {
        responses["503"] = {
          description: `Service Unavailable: ${notReady.code} ${notReady.title} (the store does not answer).`,
          headers: { "Retry-After": { description: "Seconds to wait before asking again.", schema: { type: "string" } } },
          content: { "application/json": { schema: { $ref: ref("schemas", "Error") }, example: { status: 503, code: notReady.code, property: "", message: notReady.message, dev: notReady.dev, info: notReady.info } } },
        };
      }
      return { servers: origin, ...this.getAndHead({ operationId: this.operationId(`health${capitalize(state)}`), summary, description, tags: [HEALTH_TAG], security: [], responses }) };
    };
    setOwn(paths, "/health/live", health("live", "Liveness", "200 while the process answers: an orchestrator restarts the service when it stops answering."));
    setOwn(paths, "/health/ready", health("ready", "Readiness", "200 when the service's store answers too, else 503 with `Retry-After`: an orchestrator sends traffic only while it answers 200."));
    if (!this.model.service.auth.schemes.includes("oauth2")) return;
    const issues = issuesTokens(this.model.service.auth);
    const cacheable = "Public and cacheable for five minutes.";
    setOwn(paths, "/.well-known/jwks.json", {
      servers: origin,
      ...this.getAndHead({
        operationId: this.operationId("jwks"),
        summary: "The service's signing keys",
        description: `The public keys (a JWK Set, RFC 7517) that verify the access tokens the service issues. ${cacheable}`,
        tags: [OAUTH_TAG],
        security: [],
        responses: { "200": { description: "OK: the JWK Set.", content: { "application/json": { schema: { type: "object", required: ["keys"], properties: { keys: { type: "array", items: { type: "object", required: ["kty"], properties: { kty: { type: "string" }, kid: { type: "string" }, alg: { type: "string" }, use: { type: "string" } } } } } } } } } },
      }),
    });
    const basePath = new URL(`${this.model.service.baseUrl}/`).pathname.replace(/\/+$/, "");
    for (const url of new Set(["/.well-known/oauth-authorization-server", `/.well-known/oauth-authorization-server${basePath}`])) {
      setOwn(paths, url, {
        servers: origin,
        ...this.getAndHead({
          operationId: this.operationId(url === "/.well-known/oauth-authorization-server" ? "authorizationServerMetadata" : "authorizationServerMetadataOfPath"),
          summary: "Authorization server metadata",
          description: `The service as an OAuth 2.0 authorization server (RFC 8414): its issuer (the base URL)${issues ? ", token endpoint and keys" : ""}, the grants and the scopes (the roles) it knows. ${cacheable}`,
          tags: [OAUTH_TAG],
          security: [],
          responses: {
            "200": {
              description: "OK: the metadata.",
              content: { "application/json": { schema: { type: "object", required: ["issuer", "grant_types_supported", "response_types_supported"], properties: { issuer: { type: "string", format: "uri" }, token_endpoint: { type: "string", format: "uri" }, jwks_uri: { type: "string", format: "uri" }, grant_types_supported: { type: "array", items: { type: "string" } }, token_endpoint_auth_methods_supported: { type: "array", items: { type: "string" } }, response_types_supported: { type: "array", items: { type: "string" } }, scopes_supported: { type: "array", items: { type: "string" } } } } } },
            },
          },
        }),
      });
    }
    if (!issues || this.model.service.currentVersion !== undefined) return;
    const invalidRequest = this.errorsByKey.get("invalidTokenRequest");
    const invalidClient = this.errorsByKey.get("invalidClient");
    setOwn(this.schemas, "TokenError", {
      type: "object",
      description: "The body of a refused token request: the error body, with the OAuth 2.0 error (RFC 6749 §5.2) beside it.",
      required: ["status", "code", "property", "message", "dev", "info", "error", "error_description"],
      additionalProperties: false,
      properties: {
        ...((this.schemas.Error as Json).properties as Json),
        error: { type: "string", enum: ["invalid_request", "invalid_client", "invalid_grant", "unauthorized_client", "unsupported_grant_type", "invalid_scope"], description: "The OAuth 2.0 error code." },
        error_description: { type: "string", description: "The same as `dev`." },
      },
    });
    const refused = (status: number, e: ErrorDef | undefined): Json => ({
      description: `${REASONS[status] ?? "Error"}${e ? `: ${e.code} ${e.title}` : ""}.`,
      headers: { "Cache-Control": { description: "`no-store`: a token answer is never cached.", schema: { type: "string" } } },
      content: { "application/json": { schema: { $ref: ref("schemas", "TokenError") } } },
    });
    setOwn(paths, "/oauth/token", {
      post: {
        operationId: this.operationId("token"),
        summary: "Issue an access token",
        description:
          "The client-credentials grant (RFC 6749 §4.4): the client is an API key, authenticated with its id and secret as HTTP Basic credentials (over TLS) or as `client_id` and `client_secret` in the form. " +
          "`scope` (space-separated) narrows the token's roles to a subset of the key's. The token is then sent as `Authorization: Bearer <access_token>` until it expires.",
        tags: [OAUTH_TAG],
        security: [],
        requestBody: {
          required: true,
          content: {
            "application/x-www-form-urlencoded": {
              schema: {
                type: "object",
                required: ["grant_type"],
                properties: {
                  grant_type: { const: "client_credentials" },
                  scope: { type: "string", description: "Space-separated roles: a subset of the key's (all of them when absent)." },
                  client_id: { type: "string", description: "The key's id (unless sent as HTTP Basic credentials)." },
                  client_secret: { type: "string", description: "The key's secret (unless sent as HTTP Basic credentials)." },
                },
              },
            },
          },
        },
        responses: {
          "200": {
            description: "OK: the access token.",
            headers: { "Cache-Control": { description: "`no-store`: a token answer is never cached.", schema: { type: "string" } } },
            content: {
              "application/json": {
                schema: {
                  type: "object",
                  required: ["access_token", "token_type", "expires_in"],
                  properties: {
                    access_token: { type: "string", description: "A JWT signed with one of the keys of `/.well-known/jwks.json`." },
                    token_type: { const: "Bearer" },
                    expires_in: { type: "integer", minimum: 1, description: "Seconds until it expires." },
                    scope: { type: "string", description: "The roles it carries, space-separated." },
                  },
                },
              },
            },
          },
          "400": refused(400, invalidRequest),
          "401": { ...refused(401, invalidClient), headers: { "Cache-Control": { description: "`no-store`.", schema: { type: "string" } }, "WWW-Authenticate": { description: "`Basic` when the client sent HTTP Basic credentials.", schema: { type: "string" } } } },
        },
      },
    });
  }

  // ---------------------------------------------------------------------------------------------
  // Components

  private sharedComponents(): void {
    const meta = ref("schemas", "Meta");
    setOwn(this.schemas, "Meta", {
      type: "object",
      description: "Where a representation lives and what it is.",
      required: ["href", "mediaType"],
      additionalProperties: false,
      properties: {
        href: { type: "string", format: "uri", description: "Absolute URL of the resource." },
        mediaType: { type: "string", description: "Vendor media type of the representation, e.g. `application/vnd.<vendor>.v<N>.<resource>+json`." },
      },
    });
    setOwn(this.schemas, "Link", { type: "object", description: "A link to an instance.", required: ["meta"], additionalProperties: false, properties: { meta: { $ref: meta } } });
    setOwn(this.schemas, "CollectionLink", { type: "object", description: "A link to a collection: GET its href for a page.", required: ["meta"], additionalProperties: false, properties: { meta: { $ref: meta } } });
    setOwn(this.schemas, "LinkInput", { ...copy(LINK_INPUT_SCHEMA), description: 'A link in a request body: `{ "meta": { "href": "<absolute href of an existing instance>" } }` (a full representation is accepted too).' });
    setOwn(this.schemas, "Error", {
      type: "object",
      description: "The body of every 4xx and 5xx answer.",
      required: ["status", "code", "property", "message", "dev", "info"],
      additionalProperties: false,
      properties: {
        status: { type: "integer", minimum: 400, maximum: 599, description: "The HTTP status, repeated." },
        code: { type: "integer", description: "The service's code of this condition; the same condition always gives the same code." },
        property: { type: "string", description: 'The property, parameter or field that caused the error; "" when none did.' },
        message: { type: "string", description: "A message for the end user." },
        dev: { type: "string", description: "A longer message for the developer, with a hint on how to fix it." },
        info: { type: "string", format: "uri", description: `The page that describes this code: \`${this.model.service.errorDocsUrl}/<code>\`.` },
      },
    });
    if (this.model.resources.some((r) => r.idForm.kind === "uuid")) {
      setOwn(this.parameters, "id", { name: "id", in: "path", required: true, description: "The instance's id (as in its `id` and at the end of its `meta.href`).", schema: PATH_ID });
    }
    const members = this.model.resources.flatMap((r) => r.fields.filter((f) => f.link?.kind === "collection" && f.link.inverse === undefined).map((f) => resourceOf(this.model, f.link!.target)));
    if (members.some((t) => t?.idForm.kind === "uuid")) {
      setOwn(this.parameters, "memberId", { name: "memberId", in: "path", required: true, description: "The id of the member to remove (its `id`, the end of its `meta.href`).", schema: PATH_ID });
    }
    if (this.model.resources.length > 0) {
      setOwn(this.parameters, "ifNoneMatch", {
        name: "If-None-Match",
        in: "header",
        required: false,
        description: "The ETag of the representation the client holds: when it is still current, the answer is 304 without a body.",
        schema: { type: "string" },
      });
      setOwn(this.parameters, "ifMatch", {
        name: "If-Match",
        in: "header",
        required: false,
        description: "The ETag the client read the instance with: when the instance has changed since, the answer is 412 (code 41200) and nothing is written. Any ETag of the instance's current state matches (another media type's, a shaped read's).",
        schema: { type: "string" },
      });
    }
    setOwn(this.parameters, "offset", {
      name: "offset",
      in: "query",
      required: false,
      description: "How many items of the collection to skip.",
      schema: { type: "integer", minimum: 0, maximum: MAX_OFFSET, default: 0 },
    });
    setOwn(this.parameters, "limit", {
      name: "limit",
      in: "query",
      required: false,
      description: `Most items in the page (${PAGING.defaultLimit} by default, at most ${PAGING.maxLimit}).`,
      schema: { type: "integer", minimum: 1, maximum: PAGING.maxLimit, default: PAGING.defaultLimit },
    });
  }

  private resourceComponents(r: Resource): void {
    const names = this.names.get(r.collection)!;
    const properties = this.representationProperties(r);
    const always = ["meta", "id", "createdAt", "modifiedAt", ...r.fields.filter((f) => f.link?.kind === "collection" || (r.required.includes(f.name) && f.name !== r.owner)).map((f) => f.name)];
    // An open resource (additionalProperties, patternProperties at its root) holds other properties as written.
    const keywords = asObject(clean({ ...r.bodyKeywords }));
    const others: Json = { additionalProperties: keywords.additionalProperties ?? false };
    for (const k of ["patternProperties", "propertyNames"]) if (k in keywords) others[k] = keywords[k];
    const description = `${r.description || r.title}${r.description ? "" : "."} The full representation.`.trim();
    const partial = `A partial representation of ${article(r.name)}: \`meta\` and the fields selected with \`fields\`.`;
    // (The partial representation's fields are the full one's: written there, referred to here; see referToFirstCopies.)
    setOwn(this.schemas, names.full, { type: "object", description, required: [...new Set(always)], ...others, properties });
    setOwn(this.schemas, names.partial, { type: "object", description: partial, required: ["meta"], additionalProperties: false, properties: this.representationProperties(r) });

    // Request bodies, from the runtime's own body schema.
    const body = bodySchemaOf(r) as { properties: Json; required?: string[] };
    const input: Json = {};
    const patch: Json = {};
    for (const f of r.fields.filter((x) => isWritable(r, x) && Object.prototype.hasOwnProperty.call(body.properties, x.name))) {
      const schema = this.inputSchema(f, body.properties[f.name]);
      setOwn(input, f.name, schema);
      const patched = f.link ? schema : withDescription(patchOf(schema), f);
      setOwn(patch, f.name, body.required?.includes(f.name) ? patched : nullable(patched));
    }
    setOwn(this.schemas, names.input, {
      type: "object",
      description: `The body that creates or replaces ${article(r.name)}.`,
      ...(body.required?.length ? { required: [...body.required] } : {}),
      additionalProperties: false,
      ...keywords,
      properties: input,
    });
    setOwn(this.schemas, names.patch, {
      type: "object",
      description: `A JSON merge patch (RFC 7396) of ${article(r.name)}: every field optional; \`null\` sets a nullable field to null and removes any other optional field.`,
      // Another property of an open resource is set by its value and removed by null.
      additionalProperties: r.open,
      properties: patch,
    });
    setOwn(this.schemas, names.page, {
      type: "object",
      description: `A page of ${r.collection}.`,
      required: ["meta", "offset", "limit", "size", "items"],
      additionalProperties: false,
      properties: {
        meta: { $ref: ref("schemas", "Meta") },
        offset: { type: "integer", minimum: 0, description: "Items skipped before this page." },
        limit: { type: "integer", minimum: 1, maximum: PAGING.maxLimit, description: "Most items this page can hold." },
        size: { type: "integer", minimum: 0, description: "Number of items in the whole collection (of those the caller may see)." },
        items: { type: "array", items: { anyOf: [{ $ref: ref("schemas", names.full) }, { $ref: ref("schemas", names.partial) }] } },
      },
    });

    const fieldList = selectable(fieldNames(r));
    const linkList = selectable(expandNames(r));
    const nested = linkList.length > 0 ? { type: "string", pattern: `^(${linkList.map(escapeRegExp).join("|")})\\(.+\\)$` } : undefined;
    setOwn(this.parameters, names.fields, {
      name: "fields",
      in: "query",
      required: false,
      description:
        // (The names are the schema's enum and pattern: listed once, there.)
        `Returns only \`meta\` and the listed fields of ${article(r.name)} (the names of the enum).` +
        (linkList.length > 0 ? " `link(sub,…)` selects fields inside a link (the names of the pattern) and expands it." : "") +
        " An unknown name is a 400 (`property` = `fields`).",
      style: "form",
      explode: false,
      schema: { type: "array", items: nested ? { anyOf: [{ type: "string", enum: fieldList }, nested] } : { type: "string", enum: fieldList } },
    });
    if (linkList.length > 0) {
      setOwn(this.parameters, names.expand, {
        name: "expand",
        in: "query",
        required: false,
        description:
          `Inlines the listed links of ${article(r.name)} (the names of the enum; a collection link inlines its first page of ${PAGING.defaultLimit}); ` +
          "`link(sub,…)` expands links of the linked resource too. An unknown name is a 400 (`property` = `expand`).",
        style: "form",
        explode: false,
        schema: { type: "array", items: { anyOf: [{ type: "string", enum: linkList }, nested] } },
      });
    }
  }

  /**
   * The path parameter of an id of `r` (`id`, or `memberId` for a member of a stored list): the shared
   * component for UUIDs, else one of `r`'s form (`<Resource>Id`, `<Resource>MemberId`), made on first use.
   */
  private idParameter(r: Resource, name: "id" | "memberId"): Json {
    const component = this.idParameterName(r, name);
    this.record("p", name, r.collection, component);
    if (r.idForm.kind === "uuid") return { $ref: ref("parameters", name) };
    const key = `${name} ${r.collection}`;
    if (!this.idParameters.has(key)) {
      this.idParameters.set(key, component);
      const form = r.idForm.kind === "sequence" ? "whole numbers from 1" : `\`${r.idForm.kind === "prefix" ? r.idForm.prefix : ""}\` followed by letters and digits`;
      const what = name === "id" ? "The instance's id (as in its `id` and at the end of its `meta.href`)" : "The id of the member to remove (its `id`, the end of its `meta.href`)";
      const description = `${what}: the ids of ${r.collection} are ${form}; any other segment answers 404.`;
      setOwn(this.parameters, component, { name, in: "path", required: true, description, schema: PATH_ID });
    }
    return { $ref: ref("parameters", component) };
  }

  /** The component idParameter gives (or would give, made now) the path parameter of an id of `r`. */
  private idParameterName(r: Resource, name: "id" | "memberId"): string {
    if (r.idForm.kind === "uuid") return name;
    const made = this.idParameters.get(`${name} ${r.collection}`);
    if (made !== undefined) return made;
    const wanted = `${this.names.get(r.collection)!.full}${name === "id" ? "Id" : "MemberId"}`;
    let component = wanted;
    for (let n = 2; Object.hasOwn(this.parameters, component); n++) component = `${wanted}${n}`;
    return component;
  }

  private representationProperties(r: Resource): Json {
    const properties: Json = {
      meta: { $ref: ref("schemas", "Meta") },
      id: serverFieldSchema(this.model, r, "id", "The id the server gave the instance."),
      createdAt: serverFieldSchema(this.model, r, "createdAt", "When it was created."),
      modifiedAt: serverFieldSchema(this.model, r, "modifiedAt", "When it was last changed."),
    };
    for (const f of r.fields) {
      const target = f.link ? resourceOf(this.model, f.link.target) : undefined;
      const t = target ? this.names.get(target.collection) : undefined;
      let schema: Json;
      if (f.link?.kind === "instance" && t) {
        const shown: Json[] = [{ $ref: this.linkSchema("Link") }, { $ref: ref("schemas", t.partial) }, ...(f.link.nullable ? [{ type: "null" }] : [])];
        schema = { anyOf: shown, description: describeField(f, `A link to ${article(target!.name)}${f.link.nullable ? " (null when there is none)" : ""}; expanded with \`expand\`.`) };
      } else if (f.link?.kind === "collection" && t) {
        schema = { anyOf: [{ $ref: this.linkSchema("CollectionLink") }, { $ref: ref("schemas", t.page) }], description: describeField(f, `A link to the ${f.name}; a page of them with \`expand\`.`) };
      } else {
        schema = asObject(clean(f.schema));
        if (f.name === r.owner) schema = { ...schema, readOnly: true, description: describeField(f, "The id of the API key that owns it; set by the server.") };
      }
      setOwn(properties, f.name, schema);
    }
    return properties;
  }

  private inputSchema(f: Field, written: unknown): Json {
    if (f.kind === "link") {
      const link = { $ref: this.linkSchema("LinkInput") };
      return withDescription(f.link?.nullable ? { anyOf: [link, { type: "null" }] } : link, f);
    }
    if (f.kind === "links") {
      const w = asObject(written);
      const bounds: Json = {};
      for (const k of ["minItems", "maxItems"]) if (k in w) bounds[k] = w[k];
      return withDescription({ type: "array", items: { $ref: this.linkSchema("LinkInput") }, ...bounds }, f);
    }
    return asObject(clean(written));
  }

  /** A reference to a shared link schema, which keeps it in the document. */
  private linkSchema(name: "Link" | "CollectionLink" | "LinkInput"): string {
    this.linkSchemasUsed.add(name);
    this.record("l", name);
    return ref("schemas", name);
  }

  private unique(wanted: string): string {
    let name = wanted;
    for (let n = 2; this.taken.has(name); n++) name = `${wanted}${n}`;
    return name;
  }
}

// -----------------------------------------------------------------------------------------------
// Security

/**
 * The security schemes: one per credential the runtime reads (templates/runtime/authenticate.ts), not one per
 * entry of `auth.schemes`. `apiKey`, `bearer` and `oauth2` all enable the same `Authorization: Bearer <token>`
 * (an API key's secret, or with `oauth2` an access token); `basic` and `apiKey` enable `Authorization: Basic
 * base64(<key id>:<secret>)` over TLS. Two schemes for one header made generated clients pick the wrong encoding
 * (e.g. @hey-api/openapi-ts sent `Basic base64(secret)`). With `oauth2` (and its token endpoint) an OAuth 2.0
 * scheme names the client-credentials flow, whose tokens then travel as the Bearer scheme says; `oauth1` is the
 * `OAuth` HTTP scheme of RFC 5849. Bearer comes first: a client that takes the first scheme it has credentials
 * for sends the key's secret as is.
 */
export function securitySchemesOf(model: Model): Record<string, Json> {
  const { schemes, realm, oauth2 } = model.service.auth;
  const out: Record<string, Json> = {};
  const enabledBy = (names: AuthScheme[]) => list(schemes.filter((s) => names.includes(s)));
  const issues = issuesTokens(model.service.auth);
  if (schemes.some((s) => s === "apiKey" || s === "bearer" || s === "oauth2")) {
    out.bearer = {
      type: "http",
      scheme: "bearer",
      ...(schemes.includes("oauth2") ? { bearerFormat: "an API key's secret, or a JWT access token" } : {}),
      description:
        `A Bearer token, \`Authorization: Bearer <token>\` (enabled by ${enabledBy(["apiKey", "bearer", "oauth2"])}): the secret of an API key. ` +
        "Keys are created with `npm run keys -- create --roles …`, which prints the key's id and secret. " +
        (schemes.includes("oauth2")
          ? (issues ? `Or an OAuth 2.0 access token (a JWT): the service's own, from \`POST ${model.service.baseUrl}/oauth/token\` (the client-credentials grant), ` : "Or an OAuth 2.0 access token (a JWT) ") +
            (oauth2?.issuer !== undefined ? `${issues ? "or " : ""}one of ${oauth2.issuer} for the audience ${list(oauth2.audience ?? [])}, its roles in the ${oauth2.rolesClaim ?? "scope"} claim. ` : issues ? "its roles in the scope claim. " : ". ") +
            'A token that is not valid (expired, another issuer or audience, a bad signature) answers 401 with `error="invalid_token"` in the challenge; one without the role an operation needs, 403 with `error="insufficient_scope"`. '
          : "") +
        `Without valid credentials the answer is a 401 with \`WWW-Authenticate: Bearer realm="${realm}"\`.`,
    };
  }
  if (issues) {
    const roles = [...new Set(model.resources.flatMap((r) => Object.values(r.access).flatMap((v) => (Array.isArray(v) ? v : []))).concat(model.actions.flatMap((a) => a.roles)))].sort();
    out.oauth2 = {
      type: "oauth2",
      description: "The client-credentials grant (RFC 6749 §4.4): the client is an API key (its id and secret as client_id and client_secret, or HTTP Basic over TLS); `scope` narrows the token's roles to a subset of the key's. The token is then sent as the Bearer scheme says.",
      flows: { clientCredentials: { tokenUrl: `${model.service.baseUrl}/oauth/token`, scopes: Object.fromEntries(roles.map((r) => [r, `The role ${r}.`])) } },
    };
  }
  if (schemes.some((s) => s === "apiKey" || s === "basic")) {
    out.basic = {
      type: "http",
      scheme: "basic",
      description:
        `Basic authentication with an API key, \`Authorization: Basic base64(<key id>:<secret>)\` (enabled by ${enabledBy(["apiKey", "basic"])}), over TLS only: ` +
        `on plain HTTP it is refused with a 401 (code 40101). Without valid credentials the answer is a 401 with \`WWW-Authenticate: Basic realm="${realm}"\`.`,
    };
  }
  if (schemes.includes("oauth1")) {
    out.oauth1 = {
      type: "http",
      scheme: "OAuth",
      description:
        "A request signed with OAuth 1.0a (RFC 5849; HMAC-SHA256 or HMAC-SHA1, two-legged): the key's id is the consumer key, its OAuth 1.0a signing secret (made with `npm run keys -- create --oauth1`) the consumer secret, and no token. " +
        `A bad signature, a timestamp more than 300 s off or a nonce seen before answers 401 with \`WWW-Authenticate: OAuth realm="${realm}"\`.`,
    };
  }
  return out;
}

// -----------------------------------------------------------------------------------------------
// Schemas of the user's definitions

/** Keywords whose value is a map of schemas. */
const SCHEMA_MAPS = new Set(["properties", "patternProperties", "$defs", "definitions", "dependentSchemas"]);
/** Keywords whose value is a schema (or, for items in old drafts, an array of them). */
const SCHEMA_VALUES = new Set([
  "items", "additionalItems", "additionalProperties", "not", "if", "then", "else", "contains", "propertyNames",
  "unevaluatedItems", "unevaluatedProperties", "contentSchema", "allOf", "anyOf", "oneOf", "prefixItems",
]);
/**
 * A path's id, of any form: any segment is a request the service answers (an id of another form, or of no
 * instance, is a 404), so the document does not narrow it; the representations' `id` says each form.
 */
const PATH_ID = { type: "string", minLength: 1 } as const;

/** Keywords left out of embedded schemas: identity and reference keywords that point outside the document (a shared schema's $ref is kept: clean). */
const DROPPED = new Set(["$schema", "$id", "$ref", "$anchor", "$dynamicAnchor", "$dynamicRef", "$recursiveRef", "$recursiveAnchor", "$vocabulary", "$comment"]);

/** A user's schema ready to embed: without `x-` keywords, `$schema`, `$id` and references. */
export function clean(schema: JsonSchema | unknown): unknown {
  if (Array.isArray(schema)) return schema.map(clean);
  if (schema === null || typeof schema !== "object") return schema;
  const out: Json = {};
  for (const [k, v] of Object.entries(schema as Json)) {
    if (k === "$ref" && typeof v === "string" && v.startsWith(SHARED_REF_PREFIX)) {
      // A shared schema is the component of its name.
      setOwn(out, k, ref("schemas", v.slice(SHARED_REF_PREFIX.length)));
      continue;
    }
    if (k.startsWith("x-") || DROPPED.has(k)) continue;
    if (k === "discriminator" && v !== null && typeof v === "object" && !Array.isArray(v)) {
      // Its mapping names shared schemas as their $refs do: the components of those names.
      const d = copy(v) as Json;
      if (d.mapping !== null && typeof d.mapping === "object") {
        const mapping: Json = {};
        for (const [tag, to] of Object.entries(d.mapping as Json)) {
          if (typeof to === "string" && to.startsWith(SHARED_REF_PREFIX)) setOwn(mapping, tag, ref("schemas", to.slice(SHARED_REF_PREFIX.length)));
        }
        d.mapping = mapping;
      }
      setOwn(out, k, d);
    } else if (SCHEMA_MAPS.has(k) && v !== null && typeof v === "object" && !Array.isArray(v)) {
      const map: Json = {};
      for (const [name, s] of Object.entries(v as Json)) setOwn(map, name, clean(s));
      setOwn(out, k, map);
    } else if (k === "dependencies" && v !== null && typeof v === "object" && !Array.isArray(v)) {
      const map: Json = {};
      for (const [name, s] of Object.entries(v as Json)) setOwn(map, name, Array.isArray(s) ? copy(s) : clean(s));
      setOwn(out, k, map);
    } else if (SCHEMA_VALUES.has(k)) {
      setOwn(out, k, clean(v));
    } else {
      setOwn(out, k, copy(v));
    }
  }
  return out;
}

/**
 * The schema of a merge-patch value of a field: objects become patches of themselves (no required
 * members, each optional member nullable); anything else is replaced whole, so keeps its schema.
 */
function patchOf(schema: Json): Json {
  const isObjectSchema = schema.type === "object" || (schema.type === undefined && typeof schema.properties === "object");
  if (!isObjectSchema) return schema;
  if (["allOf", "anyOf", "oneOf", "not", "if", "dependentRequired", "dependentSchemas", "dependencies"].some((k) => k in schema)) {
    return { type: "object", ...(typeof schema.description === "string" ? { description: schema.description } : {}) };
  }
  const out: Json = {};
  for (const [k, v] of Object.entries(schema)) if (k !== "required" && k !== "minProperties") setOwn(out, k, v);
  if (schema.properties && typeof schema.properties === "object") {
    const required = new Set(Array.isArray(schema.required) ? (schema.required as string[]) : []);
    const props: Json = {};
    for (const [name, s] of Object.entries(schema.properties as Json)) {
      const inner = s !== null && typeof s === "object" ? patchOf(s as Json) : s;
      setOwn(props, name, required.has(name) || typeof inner !== "object" ? inner : nullable(inner as Json));
    }
    out.properties = props;
  }
  return out;
}

/**
 * The schema, or null (which a merge patch uses to remove the member). The schema stays whole, its
 * description with it: the same schema as the field's elsewhere, written once (referToFirstCopies).
 */
function nullable(schema: Json): Json {
  if (schema.type === "null" || (Array.isArray(schema.type) && schema.type.includes("null"))) return schema;
  return { anyOf: [schema, { type: "null" }] };
}

function withDescription(schema: Json, f: Field): Json {
  return f.description && typeof schema.description !== "string" ? { ...schema, description: f.description } : schema;
}

function describeField(f: Field, fallback: string): string {
  return f.description || fallback;
}

function describe(schema: JsonSchema, fallback: string): string {
  return schema && typeof schema === "object" && typeof schema.description === "string" && schema.description ? schema.description : fallback;
}

// -----------------------------------------------------------------------------------------------
// One copy of each schema

/** A reference costs about this many characters more than the pointer it holds. */
const REF_OVERHEAD = '{"$ref":""}'.length;
/** Pointer tokens written as they are (nothing to escape in a JSON pointer or a URI fragment). */
const PLAIN_TOKEN = /^[A-Za-z0-9._$-]+$/;

/**
 * Writes each schema once: a later schema equal to one written before (the same JSON text) becomes a
 * `$ref` to it, when the reference is shorter. A resource's field schema is written in its
 * full representation, and its partial representation, its create body, its merge patch and a shared
 * schema that embeds the resource refer to it there (`#/components/schemas/Book/properties/title`); so do
 * schemas that repeat a nested object. The full representations (the keys of `variants`) are visited first
 * and never rewritten: they keep every field as written. A resource's own variants (`variants`' values)
 * refer to its full representation when it has the schema, another resource's only when it has not
 * (BookPartial's `id` is Book's, not the first resource's). Only schemas are replaced, never data
 * (examples, enums).
 */
function referToFirstCopies(schemas: Json, variants: ReadonlyMap<string, readonly string[]>): void {
  const first = new Map<string, string>();
  /** The first copies in each full representation, by the name of each of its variants. */
  const own = new Map<string, Map<string, string>>();
  /**
   * `node`, or the $ref that replaces it (never a component itself: others name it); `pointer` "" when it
   * has none to refer to; `local` the first copies of the resource whose schema this is, if any.
   */
  const visit = (node: unknown, pointer: string, rewrite: boolean, root: boolean, local: Map<string, string> | undefined): unknown => {
    if (node === null || typeof node !== "object" || Array.isArray(node)) return node;
    const text = JSON.stringify(node);
    const earlier = (rewrite ? local?.get(text) : undefined) ?? first.get(text);
    if (rewrite && !root && earlier !== undefined && text.length > earlier.length + REF_OVERHEAD) return { $ref: earlier };
    // (A schema no longer than a reference to it is not kept: a copy costs no more.)
    if (pointer !== "" && text.length > pointer.length + REF_OVERHEAD) {
      if (earlier === undefined) first.set(text, pointer);
      if (!rewrite && local && !local.has(text)) local.set(text, pointer);
    }
    const o = node as Json;
    const at = (...tokens: (string | number)[]) => (pointer !== "" && tokens.every((t) => PLAIN_TOKEN.test(String(t))) ? `${pointer}/${tokens.join("/")}` : "");
    for (const [k, v] of Object.entries(o)) {
      if (SCHEMA_MAPS.has(k) && v !== null && typeof v === "object" && !Array.isArray(v)) {
        for (const [name, sub] of Object.entries(v as Json)) setOwn(v as Json, name, visit(sub, at(k, name), rewrite, false, local));
      } else if (SCHEMA_VALUES.has(k) && Array.isArray(v)) {
        v.forEach((sub, i) => (v[i] = visit(sub, at(k, i), rewrite, false, local)));
      } else if (SCHEMA_VALUES.has(k)) {
        setOwn(o, k, visit(v, at(k), rewrite, false, local));
      }
    }
    return node;
  };
  const pointerOf = (name: string) => (PLAIN_TOKEN.test(name) ? `#/components/schemas/${name}` : "");
  for (const [full, names] of variants) {
    const local = new Map<string, string>();
    for (const name of names) own.set(name, local);
    if (Object.hasOwn(schemas, full)) visit(schemas[full], pointerOf(full), false, true, local);
  }
  for (const name of Object.keys(schemas)) if (!variants.has(name)) visit(schemas[name], pointerOf(name), true, true, own.get(name));
}

// -----------------------------------------------------------------------------------------------
// The document as printed: entries an earlier generation printed, taken as they are

/** What `paths` remembers of a group of operations: the paths it made, in order, and what else it did (OpenApiBuilder.record), one per line. */
interface PathItemsMemo {
  readonly paths: readonly string[];
  readonly effects: string;
}

/**
 * A JSON value as an earlier generation printed it in the same document at the same depth (the bytes
 * JSON.stringify(doc, null, 2) gave it there): written again as it is, read (`json`) only when compared.
 */
class Printed {
  private parsed: Json | undefined;
  constructor(readonly bytes: Buffer) {}

  json(): Json {
    return (this.parsed ??= JSON.parse(this.bytes.toString("utf8")) as Json);
  }
}

/** A component's value, read when it is one printed earlier. */
function plain(value: unknown): Json {
  return value instanceof Printed ? value.json() : (value as Json);
}

/** Whether a component's value is the same JSON as `printed`. */
function samePrinted(value: unknown, printed: Printed): boolean {
  if (value === printed || (value instanceof Printed && value.bytes.equals(printed.bytes))) return true;
  return sameJson(plain(value), printed.json());
}

const PAD = (depth: number) => "  ".repeat(depth);

/**
 * The entries of `paths` and of each map of `components` in a document printed as JSON.stringify(doc, null,
 * 2) + "\n", by "<map>\n<name>" ("paths\n/books", "responses\nBook"), each value's bytes as printed. Only
 * the layout of that printing is relied on (an entry's lines are indented deeper than its key's, and a JSON
 * string never holds a raw line break); anything else gives no entries.
 */
export function printedEntries(doc: Buffer): ReadonlyMap<string, Printed> {
  let out = indexes.get(doc);
  if (out === undefined) indexes.set(doc, (out = indexOf(doc)));
  return out;
}

/** The entries of each document read, by its bytes (the docs worker indexes the last openapi.json before the model comes). */
const indexes = new WeakMap<Buffer, Map<string, Printed>>();

function indexOf(doc: Buffer): Map<string, Printed> {
  const out = new Map<string, Printed>();
  try {
    for (const [key, start] of entriesOf(doc, 0, 0)) {
      if (key === "paths") for (const [name, s, e] of entriesOf(doc, start, 1)) out.set(`paths\n${name}`, new Printed(doc.subarray(s, e)));
      if (key !== "components") continue;
      for (const [kind, ks] of entriesOf(doc, start, 1)) {
        if (kind === "responses" || kind === "requestBodies" || kind === "examples") for (const [name, s, e] of entriesOf(doc, ks, 2)) out.set(`${kind}\n${name}`, new Printed(doc.subarray(s, e)));
      }
    }
  } catch {
    out.clear();
  }
  return out;
}

const QUOTE = 0x22;
const BACKSLASH = 0x5c;

/** The members of the object printed at `open` (its "{"), `depth` levels deep: each key and its value's bytes [start, end). Throws on any other layout. */
function* entriesOf(doc: Buffer, open: number, depth: number): Generator<[string, number, number]> {
  if (doc[open] !== 0x7b) throw new Error("not an object");
  if (doc[open + 1] === 0x7d) return;
  const entry = Buffer.from(`\n${PAD(depth + 1)}"`, "latin1");
  const close = Buffer.from(`\n${PAD(depth)}}`, "latin1");
  const closings = { [0x7b]: Buffer.from(`\n${PAD(depth + 1)}}`, "latin1"), [0x5b]: Buffer.from(`\n${PAD(depth + 1)}]`, "latin1") } as Record<number, Buffer>;
  let at = open + 1;
  for (;;) {
    if (doc.compare(entry, 0, entry.length, at, at + entry.length) !== 0) throw new Error("not an entry");
    const q = at + entry.length - 1;
    let i = q + 1;
    while (i < doc.length && doc[i] !== QUOTE) i += doc[i] === BACKSLASH ? 2 : 1;
    const key = JSON.parse(doc.toString("utf8", q, i + 1)) as string;
    if (doc[i + 1] !== 0x3a || doc[i + 2] !== 0x20) throw new Error("no colon");
    const start = i + 3;
    const first = doc[start];
    let end: number;
    if ((first === 0x7b && doc[start + 1] === 0x7d) || (first === 0x5b && doc[start + 1] === 0x5d)) end = start + 2;
    else if (first === 0x7b || first === 0x5b) {
      const closing = closings[first]!;
      const found = doc.indexOf(closing, start);
      if (found < 0) throw new Error("unclosed");
      end = found + closing.length;
    } else {
      end = doc.indexOf(0x0a, start);
      if (end < 0) throw new Error("unended");
      if (doc[end - 1] === 0x2c) end--;
    }
    yield [key, start, end];
    if (doc[end] === 0x2c) {
      at = end + 1;
      continue;
    }
    if (doc.compare(close, 0, close.length, end, end + close.length) !== 0) throw new Error("not closed");
    return;
  }
}

/**
 * JSON.stringify(doc, null, 2) + "\n" of a document whose paths and components' maps may hold Printed
 * entries, as pieces: each entry printed on its own (or as printed before), at its depth.
 */
function printedPieces(doc: Json): (string | Buffer)[] {
  const out: (string | Buffer)[] = [];
  const value = (v: unknown, depth: number): void => {
    out.push(v instanceof Printed ? v.bytes : stringifiedAt(v, depth));
  };
  const object = (o: Json, depth: number, inner: (key: string, v: unknown) => void): void => {
    const keys = Object.keys(o).filter((k) => o[k] !== undefined && typeof o[k] !== "function" && typeof o[k] !== "symbol");
    if (keys.length === 0) {
      out.push("{}");
      return;
    }
    out.push("{");
    keys.forEach((k, i) => {
      out.push(`${i > 0 ? "," : ""}\n${PAD(depth + 1)}${JSON.stringify(k)}: `);
      inner(k, o[k]);
    });
    out.push(`\n${PAD(depth)}}`);
  };
  // A map holding entries printed before is printed entry by entry; any other value at once.
  const withPrinted = (v: unknown): v is Json => v !== null && typeof v === "object" && !Array.isArray(v) && !(v instanceof Printed) && Object.values(v).some((e) => e instanceof Printed);
  object(doc, 0, (key, v) => {
    if (key === "paths" && withPrinted(v)) object(v, 1, (_, item) => value(item, 2));
    else if (key === "components" && v !== null && typeof v === "object" && !Array.isArray(v)) object(v as Json, 1, (_, map) => (withPrinted(map) ? object(map, 2, (__, c) => value(c, 3)) : value(map, 2)));
    else value(v, 1);
  });
  out.push("\n");
  return out;
}

/**
 * JSON.stringify(v, null, 2) as it reads `depth` levels deep in a document so printed: v nested in `depth`
 * arrays, printed at once and cut out (each line indented by the printer itself, a flat string).
 */
function stringifiedAt(v: unknown, depth: number): string {
  let nested = v;
  for (let d = 0; d < depth; d++) nested = [nested];
  const text = JSON.stringify(nested, null, 2);
  return depth === 0 ? text : text.slice(depth * depth + 3 * depth, text.length - (depth * depth + depth));
}

/** The document's text (see printedPieces). */
function printedText(doc: Json): string {
  return printedPieces(doc)
    .map((p) => (typeof p === "string" ? p : p.toString("utf8")))
    .join("");
}

/** The document's UTF-8 bytes (see printedPieces): piece by piece, most of them one-byte strings, which encode fast. */
function printedBytes(doc: Json): Buffer {
  const pieces = printedPieces(doc);
  let length = 0;
  for (const p of pieces) length += typeof p === "string" ? Buffer.byteLength(p) : p.length;
  const out = Buffer.allocUnsafeSlow(length);
  let at = 0;
  for (const p of pieces) {
    if (typeof p === "string") at += out.write(p, at);
    else {
      out.set(p, at); // (a typed array's set: Buffer#copy costs microseconds a call, thousands of calls here)
      at += p.length;
    }
  }
  return out;
}

// -----------------------------------------------------------------------------------------------
// Small helpers

/** An answer written in place, as a HEAD gets it: without its body. */
function withoutContent(answer: Json): Json {
  const { content: _content, description, ...rest } = answer;
  return { description: `${String(description)} No body (HEAD).`, ...rest };
}

function sortedKeys(o: Json): Json {
  const out: Json = {};
  for (const k of Object.keys(o).sort()) setOwn(out, k, o[k]);
  return out;
}

/** The components an operation refers to rather than repeats (OpenApiBuilder.shared). */
type SharedKind = "responses" | "requestBodies" | "examples";
/** The response headers (OpenApiBuilder.header) and shared link schemas (linkSchema) a replayed effect may name. */
const RESPONSE_HEADERS: ReadonlySet<string> = new Set(["Location", "WWW-Authenticate", "Deprecation", "Sunset", "ETag"]);
const LINK_SCHEMAS: ReadonlySet<string> = new Set(["Link", "CollectionLink", "LinkInput"]);
/** How OpenApiBuilder.record writes each kind of component, and back. */
const SHARED_LETTERS: Readonly<Record<SharedKind, string>> = { responses: "r", requestBodies: "b", examples: "x" };
const SHARED_KINDS: Readonly<Record<string, SharedKind>> = { r: "responses", b: "requestBodies", x: "examples" };

function ref(kind: "schemas" | "parameters" | SharedKind, name: string): string {
  return `#/components/${kind}/${name}`;
}

/** A component name OpenAPI accepts (^[a-zA-Z0-9._-]+$). */
function componentName(name: string): string {
  return name.replace(/[^A-Za-z0-9._-]/g, "_") || "Resource";
}

function selectable(names: readonly string[]): string[] {
  return names.filter((n) => SELECTABLE.test(n) && n !== "__proto__" && n !== "constructor" && n !== "prototype");
}

function escapeRegExp(s: string): string {
  return s.replace(/[$()*+.?[\\\]^{|}]/g, "\\$&");
}

function asObject(v: unknown): Json {
  return v !== null && typeof v === "object" && !Array.isArray(v) ? (v as Json) : {};
}

function copy<T>(v: T): T {
  return v === undefined ? v : (JSON.parse(JSON.stringify(v)) as T);
}

function list(names: readonly string[]): string {
  return names.map((n) => `\`${n}\``).join(", ");
}

/** Whether two JSON values are equal (object members in any order). */
function sameJson(a: unknown, b: unknown): boolean {
  if (a === b) return true;
  if (a === null || b === null || typeof a !== "object" || typeof b !== "object" || Array.isArray(a) !== Array.isArray(b)) return false;
  if (Array.isArray(a)) return a.length === (b as unknown[]).length && a.every((x, i) => sameJson(x, (b as unknown[])[i]));
  const keys = Object.keys(a);
  return keys.length === Object.keys(b).length && keys.every((k) => Object.prototype.hasOwnProperty.call(b, k) && sameJson((a as Json)[k], (b as Json)[k]));
}

function capitalize(s: string): string {
  return s.charAt(0).toUpperCase() + s.slice(1);
}

function article(name: string): string {
  return `${/^[aeiou]/i.test(name) ? "an" : "a"} ${name}`;
}
