/**
 * documents → Model. The only reader of raw definition JSON: everything after this reads the model.
 * The model is faithful to what was written (lint rules judge it); it is built from documents that
 * passed the meta-schemas, so shapes can be trusted here.
 */
import path from "node:path";
import { childPointer, type Diagnostic, type DiagnosticResult } from "../diagnostics/diagnostic.js";
import { report } from "../diagnostics/report.js";
import { DEFAULT_LIMITS, type Limits } from "../load/limits.js";
import type { JsonDocument } from "../load/parse-json.js";
import type { Project } from "../load/read-project.js";
import { RefResolver } from "../load/resolve-refs.js";
import { BUILTIN_ERRORS } from "./builtin-errors.js";
import { SERVER_OWNED } from "./conventions.js";
import { idFormOf } from "./id-forms.js";
import { isObject, isScalarKind, kindOf, SchemaReader, type Budget } from "./build-schema.js";
import { mediaSubject, vendorMediaType } from "./media-types.js";
import { camelCase, clientTypeNames, serviceTypeNames, typeIdentifier, FORBIDDEN_NAMES, isCamelName, pascalCase, propertyKey, resourceName, resourceTypeNames, singularize, words } from "./names.js";
import type {
  Access, Action, AuthScheme, ErrorDef, OAuth2Settings, Field, FieldHistory, HttpMethod, Link, MediaType, Model, OlderVersion, OnDelete, Param, Resource, SchemaRoot, Service,
} from "./types.js";

type Raw = Record<string, unknown>;

/**
 * Builds the model from a loaded project; `valid` holds the resource documents that passed the
 * meta-schema; `limits` bound the expansion of $refs.
 */
export function buildModel(project: Project, valid: readonly JsonDocument[], limits: Limits = DEFAULT_LIMITS): DiagnosticResult<Model | undefined> {
  if (!project.service || !isObject(project.service.value)) return [undefined, []];
  const resolver = new RefResolver(project.store);
  const roots = new Map<string, string>();
  for (const doc of valid) {
    const collection = (doc.value as Raw)["x-collection"];
    if (typeof collection === "string" && !roots.has(doc.file)) roots.set(doc.file, collection);
  }
  const reader = new SchemaReader(resolver, (file, pointer) => (pointer === "" ? roots.get(file) : undefined), limits);
  const diagnostics: Diagnostic[] = [];
  const service = buildService(project.service);
  const raw = project.service.value;

  const typeOf: MediaTypeNamer = (subject, kind) => vendorMediaType(service.vendor, service.version, mediaSubject(subject), kind).name;
  const names = singularNames(valid);
  const draft = valid.map((doc) => buildResource(doc, names.get(doc)!, reader, typeOf, diagnostics));
  const resources = resolveInverses(draft, diagnostics).sort(byKey((r) => r.collection));
  const actions = buildActions(project.service.file, raw.actions, reader, typeOf).sort(byKey((a) => a.name));
  const errors = buildErrors(project.service.file, raw.errors, service.errorDocsUrl);
  reader.checkRefs(raw.actions, project.service.file, "/actions");
  diagnostics.push(...reader.diagnostics);
  for (const e of reader.embeddedResources()) diagnostics.push(report("embedded-resource", { file: e.file, pointer: e.pointer }, { target: e.target }));

  const typeNames = new Set([...resources.flatMap((r) => resourceTypeNames(r.name)), ...actions.flatMap((a) => [`${a.typeName}Params`, `${a.typeName}Result`])]);
  // A shared schema's name is also an OpenAPI component's: it takes none of the documents' names either.
  const documentNames = resources.flatMap((r) => ["Partial", "Patch", "Page", "Expand", "Created", "Updated", "Resource"].map((s) => `${r.typeName}${s}`));
  const schemas = reader.sharedSchemas(new Set([...typeNames, ...documentNames]));
  // Every type client/types.ts declares for the definitions: the generated modules' own names go around them.
  const definitionTypes = new Set([...typeNames, ...schemas.map((s) => s.name)]);
  const model: Model = {
    service,
    resources,
    actions,
    errors,
    mediaTypes: buildMediaTypes(service, resources, actions),
    schemas,
    clientTypes: clientTypeNames(definitionTypes),
    serviceTypes: serviceTypeNames(definitionTypes),
    sources: project.store.all().map((d) => d.file).sort(),
    schemaRoots: schemaRoots(project, valid),
  };
  return [model, diagnostics];
}

/** The valid resource documents, the actions' query and response, and every other document read (shared definitions). */
function schemaRoots(project: Project, valid: readonly JsonDocument[]): SchemaRoot[] {
  const service = project.service!;
  const resourceFiles = new Set(project.resources.map((d) => d.file));
  const roots: SchemaRoot[] = valid.map((doc) => ({ schema: doc.value, origin: { file: doc.file, pointer: "" } }));
  const actions = (service.value as Raw).actions;
  for (const [name, a] of Object.entries(isObject(actions) ? actions : {})) {
    for (const k of ["query", "response"]) {
      if (isObject(a) && Object.hasOwn(a, k)) roots.push({ schema: a[k], origin: { file: service.file, pointer: childPointer("/actions", name, k) } });
    }
  }
  for (const doc of project.store.all()) {
    if (doc.file !== service.file && !resourceFiles.has(doc.file)) roots.push({ schema: doc.value, origin: { file: doc.file, pointer: "" } });
  }
  return roots;
}

function buildService(doc: JsonDocument): Service {
  const raw = doc.value as Raw;
  const file = doc.file;
  const str = (k: string, fallback = "") => (typeof raw[k] === "string" ? (raw[k] as string) : fallback);
  const baseUrl = str("baseUrl", "http://localhost:3000");
  let basePath = "";
  try {
    basePath = new URL(baseUrl).pathname.replace(/\/+$/, "");
  } catch {
    /* the meta-schema reports an invalid baseUrl */
  }
  const name = str("name", path.basename(path.dirname(file)));
  const title = str("title", name);
  const auth = isObject(raw.auth) ? raw.auth : {};
  const schemes = Array.isArray(auth.schemes) ? (auth.schemes.filter((s) => typeof s === "string") as AuthScheme[]) : ["apiKey" as const];
  return {
    name,
    title,
    description: str("description"),
    vendor: str("vendor"),
    version: typeof raw.version === "number" ? raw.version : 1,
    versions: olderVersions(raw.versions, file),
    baseUrl: baseUrl.replace(/\/+$/, ""),
    basePath,
    errorDocsUrl: str("errorDocsUrl").replace(/\/+$/, ""),
    auth: {
      schemes,
      realm: typeof auth.realm === "string" ? auth.realm : title,
      ...(isObject(auth.oauth2) ? { oauth2: oauth2Of(auth.oauth2) } : {}),
      origin: { file, pointer: isObject(raw.auth) ? "/auth" : "" },
    },
    origin: { file, pointer: "" },
  };
}

/** service.json's auth.oauth2, as the meta-schema checked it (unknown members cannot be there). */
function oauth2Of(raw: Record<string, unknown>): OAuth2Settings {
  const text = (v: unknown) => (typeof v === "string" ? v : undefined);
  const audience = typeof raw.audience === "string" ? [raw.audience] : Array.isArray(raw.audience) ? raw.audience.filter((a): a is string => typeof a === "string") : undefined;
  const algorithms = Array.isArray(raw.algorithms) ? raw.algorithms.filter((a): a is string => typeof a === "string") : undefined;
  return {
    ...(text(raw.issuer) === undefined ? {} : { issuer: text(raw.issuer)! }),
    ...(audience === undefined ? {} : { audience }),
    ...(text(raw.jwksUri) === undefined ? {} : { jwksUri: text(raw.jwksUri)! }),
    ...(text(raw.rolesClaim) === undefined ? {} : { rolesClaim: text(raw.rolesClaim)! }),
    ...(algorithms === undefined ? {} : { algorithms }),
    ...(typeof raw.tokenEndpoint === "boolean" ? { tokenEndpoint: raw.tokenEndpoint } : {}),
    ...(typeof raw.tokenLifetime === "number" ? { tokenLifetime: raw.tokenLifetime } : {}),
  };
}

/** service.json's `versions` (the meta-schema checked their form; the lint checks them against `version`), ascending. */
function olderVersions(value: unknown, file: string): OlderVersion[] {
  if (!isObject(value)) return [];
  return Object.entries(value)
    .filter(([key]) => /^[1-9][0-9]*$/.test(key))
    .map(([key, settings]) => ({
      number: Number(key),
      sunset: isObject(settings) && typeof settings.sunset === "string" ? settings.sunset : undefined,
      deprecated: isObject(settings) && typeof settings.deprecated === "string" ? settings.deprecated : undefined,
      origin: { file, pointer: childPointer("/versions", key) },
    }))
    .sort((x, y) => x.number - y.number);
}

/** The version keywords written on a property (x-since, x-until, x-renamed), as the meta-schema allows them; undefined when there are none. */
function historyOf(schema: unknown): FieldHistory | undefined {
  if (!isObject(schema)) return undefined;
  const version = (v: unknown) => (typeof v === "number" && Number.isInteger(v) && v >= 1 ? v : undefined);
  const since = version(schema["x-since"]);
  const until = version(schema["x-until"]);
  const renamed = isObject(schema["x-renamed"]) ? schema["x-renamed"] : {};
  const renames = Object.entries(renamed)
    .filter(([key, name]) => /^[1-9][0-9]*$/.test(key) && typeof name === "string" && name !== "")
    .map(([key, name]) => ({ upTo: Number(key), name: name as string }))
    .sort((x, y) => x.upTo - y.upTo);
  return since === undefined && until === undefined && renames.length === 0 ? undefined : { since, until, renames };
}

/** A resource with its links' inverses not yet known. */
/** The canonical vendor media type of a subject (resource, collection or action name). */
type MediaTypeNamer = (subject: string, kind: MediaType["kind"]) => string;

/** A property of a resource as written: its schema in each part that writes it (usually one), where each is. */
interface WrittenProperty {
  readonly parts: readonly { readonly schema: unknown; readonly file: string; readonly pointer: string }[];
}

/**
 * The properties and required names of a resource: its own, and those of every `allOf` part and of a `$ref`
 * at its root (followed into the files they name, parts of parts included), as JSON Schema applies them all
 * at once. A property written in several parts is one field whose schema is every part's (`allOf`); when the
 * parts disagree on its type, that is allof-conflict. The branches of a root `anyOf`/`oneOf` are merged the
 * same way, required only what every branch requires (resource-union says the choice is not enforced).
 */
function collectProperties(root: Raw, file: string, reader: SchemaReader, diagnostics: Diagnostic[], start = ""): { properties: Map<string, WrittenProperty>; required: string[] } {
  const properties = new Map<string, WrittenProperty>();
  const required = new Set<string>();
  const seen = new Set<string>();
  const visit = (schema: unknown, at: string, pointer: string): void => {
    if (!isObject(schema) || seen.has(`${at}#${pointer}`)) return;
    seen.add(`${at}#${pointer}`);
    if (Array.isArray(schema.required)) for (const r of schema.required) if (typeof r === "string") required.add(r);
    if (isObject(schema.properties)) {
      for (const [name, sub] of Object.entries(schema.properties)) {
        const here = { schema: sub, file: at, pointer: childPointer(pointer, "properties", name) };
        const before = properties.get(name);
        properties.set(name, before === undefined ? { parts: [here] } : mergeProperty(name, before, here, reader, diagnostics));
      }
    }
    if (typeof schema.$ref === "string") {
      const hit = reader.resolveRaw(schema.$ref, at);
      if (hit) visit(hit.value, hit.file, hit.pointer);
    }
    if (Array.isArray(schema.allOf)) schema.allOf.forEach((part, i) => visit(part, at, childPointer(pointer, "allOf", i)));
    for (const key of ["anyOf", "oneOf"] as const) {
      const branches = schema[key];
      if (!Array.isArray(branches) || branches.length === 0) continue;
      // One shape of several: every branch's properties are fields, required when every branch requires them.
      diagnostics.push(report("resource-union", { file: at, pointer: childPointer(pointer, key), kind: "key" }, { keyword: key }));
      const each = branches.map((branch, i) => {
        const own = collectProperties(branch as Raw, at, reader, diagnostics, childPointer(pointer, key, i));
        for (const [name, p] of own.properties) {
          const before = properties.get(name);
          properties.set(name, before === undefined ? p : p.parts.reduce((w, part) => mergeProperty(name, w, part, reader, diagnostics), before));
        }
        return new Set(own.required);
      });
      for (const name of each[0]!) if (each.every((r) => r.has(name))) required.add(name);
    }
  };
  visit(root, file, start);
  return { properties, required: [...required] };
}

/** One more part writing a property: the same schema again adds nothing; a type that cannot meet the others' is allof-conflict. */
function mergeProperty(name: string, before: WrittenProperty, here: WrittenProperty["parts"][number], reader: SchemaReader, diagnostics: Diagnostic[]): WrittenProperty {
  if (before.parts.some((p) => JSON.stringify(p.schema) === JSON.stringify(here.schema))) return before;
  const kindAt = (p: WrittenProperty["parts"][number]) => {
    const s = isObject(p.schema) && typeof p.schema.$ref === "string" ? reader.resolveRaw(p.schema.$ref, p.file)?.value : p.schema;
    return kindOf((s ?? {}) as Raw);
  };
  const first = before.parts[0]!;
  const [a, b] = [kindAt(first), kindAt(here)];
  const meets = a === b || a === "any" || b === "any" || (a === "number" && b === "integer") || (a === "integer" && b === "number");
  if (!meets) {
    diagnostics.push(report("allof-conflict", { file: here.file, pointer: here.pointer, kind: "key" }, { name, first: a, second: b, where: `${path.basename(first.file)}#${first.pointer}` }));
    return before;
  }
  return { parts: [...before.parts, here] };
}

/**
 * The singular of each resource (type name, instance media type): the title when it is a short noun, else by the
 * inflection library. A name from a title that another resource takes too, in any case (two schemas titled
 * "Parts", or a title "Book" beside the collection "books"), is not taken: each such resource falls back to its
 * collection's singular, which is its own, so a title never makes two resources collide.
 */
function singularNames(docs: readonly JsonDocument[]): Map<JsonDocument, string> {
  const ofCollection = (doc: JsonDocument) => singularize(String((doc.value as Raw)["x-collection"]));
  const candidates = docs.map((doc) => {
    const raw = doc.value as Raw;
    return { doc, name: resourceName(String(raw["x-collection"]), typeof raw.title === "string" ? raw.title : undefined) };
  });
  const claims = new Map<string, number>();
  for (const key of [...candidates.map((c) => c.name), ...docs.map(ofCollection)].map((n) => n.toLowerCase())) claims.set(key, (claims.get(key) ?? 0) + 1);
  return new Map(
    candidates.map(({ doc, name }) => {
      const own = ofCollection(doc);
      return [doc, name !== own && claims.get(name.toLowerCase())! > 1 ? own : name];
    }),
  );
}

function buildResource(doc: JsonDocument, name: string, reader: SchemaReader, typeOf: MediaTypeNamer, diagnostics: Diagnostic[]): Resource {
  const raw = doc.value as Raw;
  const file = doc.file;
  reader.checkRefs(raw, file, "");
  const collection = String(raw["x-collection"]);
  const { properties, required } = collectProperties(raw, file, reader, diagnostics);
  const budget = reader.budget(`resource "${collection}"`);
  const declared = [...properties]
    .map(([key, p]) => buildField(key, p, required.includes(key), reader, budget))
    .sort(byKey((f) => f.name));
  const bodyKeywords = rootBodyKeywords(raw, file, reader, budget);
  // What the server owns is documented by a declaration, never stored from a body: kept apart from the fields.
  const owned = (f: Field) => (SERVER_OWNED as readonly string[]).includes(f.name);
  return {
    name,
    collection,
    typeName: typeIdentifier(name),
    title: typeof raw.title === "string" ? raw.title : pascalCase(name),
    description: typeof raw.description === "string" ? raw.description : "",
    fields: declared.filter((f) => !owned(f)),
    serverOwned: declared.filter(owned),
    idForm: idFormOf(raw["x-id"]),
    since: typeof raw["x-since"] === "number" && Number.isInteger(raw["x-since"]) ? raw["x-since"] : undefined,
    required,
    bodyKeywords,
    open: (bodyKeywords.additionalProperties !== undefined && bodyKeywords.additionalProperties !== false) || bodyKeywords.patternProperties !== undefined,
    unique: Array.isArray(raw["x-unique"]) ? (raw["x-unique"] as string[]) : [],
    access: isObject(raw["x-access"]) ? (raw["x-access"] as Access) : {},
    owner: typeof raw["x-owner"] === "string" ? raw["x-owner"] : undefined,
    schema: raw,
    mediaType: typeOf(name, "instance"),
    collectionMediaType: typeOf(collection, "collection"),
    origin: { file, pointer: "" },
  };
}

function buildField(name: string, written: WrittenProperty, required: boolean, reader: SchemaReader, budget: Budget): Field {
  const { schema, file, pointer } = written.parts[0]!;
  const origin = { file, pointer };
  const description = isObject(schema) && typeof schema.description === "string" ? schema.description : "";
  const instance = reader.linkOf(schema, file);
  const items = isObject(schema) && schema.type === "array" ? schema.items : undefined;
  const many = instance === undefined ? reader.linkOf(items, file) : undefined;
  const link: Link | undefined =
    instance !== undefined
      ? { kind: "instance", target: instance.target, inverse: undefined, onDelete: declaredOnDelete(schema), nullable: instance.nullable }
      : many !== undefined
        ? { kind: "collection", target: many.target, inverse: declaredInverse(schema, items), onDelete: undefined, nullable: false }
        : undefined;
  // Written in several allOf parts: a value must satisfy each (each part's $refs read from its own file).
  const shared = link
    ? (schema as Raw)
    : written.parts.length === 1
      ? reader.share(schema, file, origin.pointer, budget)
      : { allOf: written.parts.map((p) => reader.share(p.schema, p.file, p.pointer, budget)) };
  const kind = link ? (link.kind === "instance" ? "link" : "links") : kindOf(shared, (s) => reader.deref(s));
  const history = historyOf(schema);
  return { name, propertyKey: propertyKey(name), kind, scalar: isScalarKind(kind), required, description, schema: shared, link, ...(history ? { history } : {}), origin };
}

/**
 * Keywords of a resource's root that say what a body holds besides the declared properties: each is applied
 * to request bodies as written (and typed and documented), so extra properties a resource allows are
 * stored and represented with the others.
 */
export const ROOT_BODY_KEYWORDS = ["additionalProperties", "patternProperties", "propertyNames", "minProperties", "maxProperties", "dependentRequired"] as const;

/** Keywords of a resource's root that no request body is checked with (rule root-keyword-ignored). */
export const ROOT_IGNORED_KEYWORDS = ["not", "if", "then", "else", "dependentSchemas", "unevaluatedProperties"] as const;

/** The ROOT_BODY_KEYWORDS a resource's root declares, their schemas shared like a field's. */
function rootBodyKeywords(raw: Raw, file: string, reader: SchemaReader, budget: Budget): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const key of ROOT_BODY_KEYWORDS) {
    const value = raw[key];
    if (value === undefined || (key === "additionalProperties" && value === false)) continue;
    if (key === "additionalProperties" || key === "propertyNames") out[key] = reader.share(value, file, `/${key}`, budget);
    else if (key === "patternProperties" && isObject(value)) {
      const each: Record<string, unknown> = {};
      for (const [pattern, schema] of Object.entries(value)) {
        Object.defineProperty(each, pattern, { value: reader.share(schema, file, childPointer(`/${key}`, pattern), budget), enumerable: true, writable: true, configurable: true });
      }
      out[key] = each;
    } else out[key] = value;
  }
  return out;
}

/** The `x-on-delete` written beside an instance link's $ref (the meta-schema allows only its two values). */
function declaredOnDelete(schema: unknown): OnDelete | undefined {
  const v = isObject(schema) ? schema["x-on-delete"] : undefined;
  return v === "cascade" || v === "clear" ? v : undefined;
}

/** The `x-inverse` written on a collection link (on the property or its items), as a marker for the resolver. */
function declaredInverse(schema: unknown, items: unknown): string | undefined {
  const onProp = isObject(schema) ? schema["x-inverse"] : undefined;
  const onItems = isObject(items) ? items["x-inverse"] : undefined;
  const v = onProp ?? onItems;
  return typeof v === "string" ? `?${v}` : undefined;
}

/** Where a collection link's x-inverse is written: on the property, else on its items (as declaredInverse reads it). */
function inversePointer(f: Field): string {
  const onProp = isObject(f.schema) && f.schema["x-inverse"] !== undefined;
  return onProp ? childPointer(f.origin.pointer, "x-inverse") : childPointer(f.origin.pointer, "items", "x-inverse");
}

/** Decides, for every collection link, whether it is the inverse of an instance link on its target. */
function resolveInverses(resources: Resource[], diagnostics: Diagnostic[]): Resource[] {
  const byCollection = new Map(resources.map((r) => [r.collection, r]));
  return resources.map((r) => ({
    ...r,
    fields: r.fields.map((f) => {
      if (f.link?.kind !== "collection") return f;
      const target = byCollection.get(f.link.target);
      const backLinks = (target?.fields ?? []).filter((t) => t.link?.kind === "instance" && t.link.target === r.collection);
      const declared = f.link.inverse?.slice(1);
      let inverse: string | undefined;
      if (declared !== undefined) {
        if (backLinks.some((b) => b.name === declared)) inverse = declared;
        else diagnostics.push(report("bad-inverse", { file: f.origin.file, pointer: inversePointer(f) }, { name: f.name, inverse: declared, target: f.link.target }));
      } else if (backLinks.length === 1) {
        inverse = backLinks[0]!.name;
      } else if (backLinks.length > 1) {
        diagnostics.push(
          report("ambiguous-inverse", { file: f.origin.file, pointer: f.origin.pointer, kind: "key" }, {
            name: f.name,
            target: f.link.target,
            candidates: backLinks.map((b) => `"${b.name}"`).join(" and "),
          }),
        );
      }
      return { ...f, link: { ...f.link, inverse } };
    }),
  }));
}

function buildActions(file: string, raw: unknown, reader: SchemaReader, typeOf: MediaTypeNamer): Action[] {
  if (!isObject(raw)) return [];
  return Object.entries(raw).map(([name, value]) => {
    const a = isObject(value) ? value : {};
    const pointer = childPointer("/actions", name);
    const budget = reader.budget(`action "${name}"`);
    const query = reader.share(a.query ?? { type: "object", properties: {} }, file, childPointer(pointer, "query"), budget);
    const q = isObject(reader.deref(query)) ? (reader.deref(query) as Raw) : {};
    const required = Array.isArray(q.required) ? q.required : [];
    const params: Param[] = Object.entries(isObject(q.properties) ? q.properties : {})
      .map(([p, schema]) => {
        const kind = kindOf(schema as Raw, (s) => reader.deref(s));
        return {
          name: p,
          propertyKey: propertyKey(p),
          kind,
          scalar: isScalarKind(kind),
          required: required.includes(p),
          schema: schema as Raw,
          origin: { file, pointer: childPointer(pointer, "query", "properties", p) },
        };
      })
      .sort(byKey((p) => p.name));
    return {
      name,
      typeName: typeIdentifier(name),
      method: (typeof a.method === "string" ? a.method : "GET") as HttpMethod,
      params,
      query,
      response: reader.share(a.response ?? {}, file, childPointer(pointer, "response"), budget),
      roles: Array.isArray(a.roles) ? (a.roles as string[]) : [],
      description: typeof a.description === "string" ? a.description : "",
      mediaType: typeOf(name, "action"),
      origin: { file, pointer },
    };
  });
}

function buildErrors(file: string, raw: unknown, docsUrl: string): ErrorDef[] {
  const builtin: ErrorDef[] = BUILTIN_ERRORS.map((e) => ({ ...e, info: `${docsUrl}/${e.code}`, builtin: true, origin: undefined }));
  // Keys name catalog entries in generated code, so they must be unique, also ignoring case: a key
  // derived from a title that is taken takes its code; a key written as "key" is kept (lint reports a repeat).
  const taken = new Set(builtin.map((e) => e.key.toLowerCase()));
  const rawErrors = (Array.isArray(raw) ? raw : []).filter(isObject);
  for (const e of rawErrors) if (typeof e.key === "string") taken.add(e.key.toLowerCase());
  const own: ErrorDef[] = rawErrors.map((e, i) => {
    const title = String(e.title ?? `Error ${e.code}`);
    let key: string;
    if (typeof e.key === "string") key = e.key;
    else {
      const camel = camelCase(title);
      const derived = isCamelName(camel) && !FORBIDDEN_NAMES.has(camel) ? camel : `error${e.code}`;
      key = taken.has(derived.toLowerCase()) ? `${derived}${e.code}` : derived;
      taken.add(key.toLowerCase());
    }
    return {
      code: Number(e.code),
      status: Number(e.status),
      key,
      title,
      message: String(e.message ?? title),
      dev: typeof e.dev === "string" ? e.dev : "",
      info: `${docsUrl}/${e.code}`,
      builtin: false,
      origin: { file, pointer: childPointer("/errors", i) },
    };
  });
  return [...builtin, ...own].sort((a, b) => a.code - b.code);
}

function buildMediaTypes(service: Service, resources: readonly Resource[], actions: readonly Action[]): MediaType[] {
  const { vendor, version } = service;
  const subject = mediaSubject;
  const types = [
    vendorMediaType(vendor, version, "error", "error"),
    ...resources.flatMap((r) => [
      vendorMediaType(vendor, version, subject(r.name), "instance"),
      vendorMediaType(vendor, version, subject(r.collection), "collection"),
    ]),
    ...actions.map((a) => vendorMediaType(vendor, version, subject(a.name), "action")),
  ];
  const unique = new Map(types.map((t) => [t.name, t]));
  return [...unique.values()].sort(byKey((t) => t.name));
}

function byKey<T>(key: (t: T) => string): (a: T, b: T) => number {
  return (a, b) => (key(a) < key(b) ? -1 : key(a) > key(b) ? 1 : 0);
}
