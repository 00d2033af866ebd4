/** Emits src/generated/spec.ts: the service description the runtime serves from. */
import { isObject, kindOf, SHARED_REF_PREFIX } from "../model/build-schema.js";
import { sharedOf, withSharedId, type Deref } from "../model/shared.js";

export { withSharedId } from "../model/shared.js";
import { BODY_LIMIT, PAGING, SERVER_OWNED as SERVER_OWNED_NAMES } from "../model/conventions.js";
import { isNullable } from "../model/nullable.js";
import type { Field, FieldKind, JsonSchema, Model, Resource } from "../model/types.js";
import type { EmittedFile } from "./emitted-file.js";
import { docComment, parsedJson } from "./shared/escape.js";
import { tsHeader } from "./shared/header.js";
import { servedVersions, versionView, type VersionedField } from "../model/versions.js";

export { BODY_LIMIT, PAGING } from "../model/conventions.js";

const SERVER_OWNED: ReadonlySet<string> = new Set(SERVER_OWNED_NAMES);

/** The schema of a link written in a body: { meta: { href } } (a full representation is accepted too). */
export const LINK_INPUT_SCHEMA = {
  type: "object",
  required: ["meta"],
  properties: {
    meta: { type: "object", required: ["href"], properties: { href: { type: "string", minLength: 1 }, mediaType: { type: "string" } } },
  },
} as const;

/** True for fields a request body may set (not server-owned, not the owner, not an inverse link). */
export function isWritable(resource: Resource, field: Field): boolean {
  return !SERVER_OWNED.has(field.name) && field.name !== resource.owner && !field.link?.inverse;
}

/**
 * The JSON Schema of a create/replace body of `resource` in the current version (properties an older
 * version had and the current one lacks, x-until, left out), or in the version whose properties `view` lists
 * (VersionView: under their names in that version).
 */
export function bodySchemaOf(resource: Resource, view?: readonly VersionedField[]): Record<string, unknown> {
  const present = view ?? resource.fields.filter((f) => f.history?.until === undefined).map((field) => ({ field, wire: field.name, required: false }));
  const writable = present.filter((f) => isWritable(resource, f.field));
  const properties: Record<string, unknown> = {};
  for (const { field: f, wire } of writable) {
    const schema =
      f.kind === "link"
        ? f.link?.nullable
          ? { anyOf: [LINK_INPUT_SCHEMA, { type: "null" }] }
          : LINK_INPUT_SCHEMA
        : f.kind === "links"
          ? { type: "array", items: LINK_INPUT_SCHEMA, ...pickKeys(f.schema, ["minItems", "maxItems"]) }
          : f.schema;
    Object.defineProperty(properties, wire, { value: schema, enumerable: true, writable: true, configurable: true });
  }
  const required =
    view === undefined ? resource.required.filter((r) => writable.some((f) => f.field.name === r)) : writable.filter((f) => f.required).map((f) => f.wire);
  return { type: "object", additionalProperties: false, ...resource.bodyKeywords, ...(required.length ? { required } : {}), properties };
}

/** True for a property declared `"writeOnly": true`: accepted in bodies, never in a representation. */
export function isWriteOnly(field: Field): boolean {
  const schema = field.schema;
  return typeof schema === "object" && schema !== null && (schema as Record<string, unknown>).writeOnly === true;
}

/** `{ default }` of a plain field's schema, through $refs to shared schemas; `{}` when it has none. */
function defaultOf(schema: unknown, resolve: (ref: string) => unknown): { default?: unknown } {
  let s = schema;
  for (let depth = 0; depth < 16 && isObject(s); depth++) {
    if (Object.prototype.hasOwnProperty.call(s, "default")) return { default: s.default };
    if (typeof s.$ref !== "string") return {};
    s = resolve(s.$ref);
  }
  return {};
}

function pickKeys(schema: unknown, keys: readonly string[]): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  if (schema && typeof schema === "object") for (const k of keys) if (k in schema) out[k] = (schema as Record<string, unknown>)[k];
  return out;
}

/** specOf's answer per model: src/generated/spec.ts and the validators are made from the same one. */
const specs = new WeakMap<Model, Record<string, unknown>>();

/** The ServiceSpec data (without errors and media types, which come from their own generated modules). */
export function specOf(model: Model): Record<string, unknown> {
  let spec = specs.get(model);
  if (spec === undefined) specs.set(model, (spec = buildSpec(model)));
  return spec;
}

function buildSpec(model: Model): Record<string, unknown> {
  const { service } = model;
  const { deref } = sharedOf(model);
  const resolve = (ref: string) => (ref.startsWith(SHARED_REF_PREFIX) ? deref({ $ref: ref }) : undefined);
  const schemas: Record<string, unknown> = {};
  for (const s of model.schemas) Object.defineProperty(schemas, s.name, { value: s.schema, enumerable: true, writable: true, configurable: true });
  return {
    name: service.name,
    title: service.title,
    vendor: service.vendor,
    version: service.version,
    baseUrl: service.baseUrl,
    errorDocsUrl: service.errorDocsUrl,
    auth: { schemes: service.auth.schemes, realm: service.auth.realm, ...(service.auth.oauth2 === undefined ? {} : { oauth2: service.auth.oauth2 }) },
    paging: PAGING,
    bodyLimit: BODY_LIMIT,
    resources: model.resources.map((r) => ({
      name: r.name,
      collection: r.collection,
      fields: r.fields.map((f) => ({
        name: f.name,
        kind: f.kind,
        ...(f.link ? { link: { kind: f.link.kind, target: f.link.target, ...(f.link.inverse ? { inverse: f.link.inverse } : {}), ...(f.link.onDelete ? { onDelete: f.link.onDelete } : {}) } } : {}),
        ...(f.link?.nullable ? { nullable: true } : {}),
        ...(f.link === undefined && f.kind !== "links" && isWritable(r, f) ? defaultOf(f.schema, resolve) : {}),
        ...(isWriteOnly(f) ? { writeOnly: true } : {}),
        ...(f.history?.until !== undefined ? { retired: true } : {}),
        ...(f.link === undefined && isNullable(f.schema, resolve) ? { nullable: true } : {}),
        ...propertiesOf(f.kind, f.schema, deref),
      })),
      required: r.required,
      unique: r.unique,
      access: r.access,
      owner: r.owner,
      mediaType: r.mediaType,
      collectionMediaType: r.collectionMediaType,
      idForm: r.idForm,
      ...(r.open ? { open: true } : {}),
      bodySchema: withSharedId(bodySchemaOf(r)),
    })),
    actions: model.actions.map((a) => ({ name: a.name, method: a.method, query: withSharedId(a.query), roles: a.roles, mediaType: a.mediaType })),
    ...(model.schemas.length > 0 ? { schemas } : {}),
    ...(service.versions.length > 0 ? { versions: olderVersionSpecs(model, deref) } : {}),
  };
}

/**
 * The older versions the service serves (runtime VersionSpec): per collection, its properties by current and
 * wire name, its media types, its body schema when it is not the current one's, and the defaults of the
 * properties it lacks (a create in that version gets them).
 */
function olderVersionSpecs(model: Model, deref: Deref): Record<string, unknown>[] {
  const older = servedVersions(model.service).slice(0, -1);
  return older.map((version) => {
    const view = versionView(model, version);
    const settings = model.service.versions.find((v) => v.number === version);
    const resources: Record<string, unknown> = {};
    for (const r of view.resources) {
      const body = withSharedId(bodySchemaOf(r.resource, r.fields));
      const currentBody = withSharedId(bodySchemaOf(r.resource));
      const has = new Set(r.fields.map((f) => f.field.name));
      const defaults: Record<string, unknown> = {};
      for (const f of r.resource.fields) {
        if (has.has(f.name) || !isWritable(r.resource, f) || f.history?.until !== undefined) continue;
        const schema = deref(f.schema);
        if (isObject(schema) && schema.default !== undefined) Object.defineProperty(defaults, f.name, { value: schema.default, enumerable: true, writable: true, configurable: true });
      }
      resources[r.resource.collection] = {
        mediaType: r.mediaType,
        collectionMediaType: r.collectionMediaType,
        fields: r.fields.map((f) => [f.field.name, f.wire]),
        ...(JSON.stringify(body) === JSON.stringify(currentBody)
          ? {}
          : { body: { bodySchema: body, fields: r.fields.filter((f) => f.field.link?.nullable).map((f) => ({ name: f.wire, kind: f.field.kind, nullable: true })) } }),
        ...(Object.keys(defaults).length > 0 ? { defaults } : {}),
      };
    }
    const deprecated = settings?.deprecated ?? view.sunset;
    return { version, ...(view.sunset ? { sunset: view.sunset } : {}), ...(deprecated ? { deprecated } : {}), resources };
  });
}

/**
 * `{ properties }` of a plain object with declared properties (each with its kind, nested objects with
 * theirs), so `fields=address(city)` can select inside it; `{}` for anything else.
 */
function propertiesOf(kind: FieldKind, written: JsonSchema, deref: Deref, depth = 2): Record<string, unknown> {
  // A selection has at most 8 levels (MAX_SELECTION_DEPTH in the runtime): deeper properties cannot be named.
  const schema = deref(written);
  if (kind !== "object" || depth > 8 || !isObject(schema) || !isObject(schema.properties)) return {};
  const properties = Object.entries(schema.properties).map(([name, sub]) => {
    const subKind = kindOf(sub as JsonSchema, deref);
    const resolve = (ref: string) => (ref.startsWith(SHARED_REF_PREFIX) ? deref({ $ref: ref }) : undefined);
    return { name, kind: subKind, ...(isNullable(sub as JsonSchema, resolve) ? { nullable: true } : {}), ...propertiesOf(subKind, sub as JsonSchema, deref, depth + 1) };
  });
  return { properties };
}

/** src/generated/spec.ts */
export function emitSpec(model: Model): EmittedFile[] {
  const contents =
    tsHeader("the service description the runtime serves from") +
    `import { errors } from "./errors.js";\n` +
    `import { mediaTypes } from "./media-types.js";\n` +
    `import type { ServiceSpec } from "./runtime/spec.js";\n\n` +
    // JSON, not an object literal: the compiler would type every node of it (seconds per megabyte in a big API).
    `/** The description as resourcery wrote it, parsed once when the module loads. */\n` +
    `const data: Omit<ServiceSpec, "errors" | "mediaTypes"> = ${parsedJson(specOf(model), 2)};\n\n` +
    `${docComment(`Everything the runtime knows about ${model.service.title}.`)}\n` +
    `export const spec: ServiceSpec = { ...data, errors: Object.values(errors), mediaTypes };\n`;
  return [{ path: "src/generated/spec.ts", contents, owner: "generated" }];
}
