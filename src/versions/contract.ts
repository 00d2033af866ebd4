/**
 * The wire contract of a service: per served version, what a client of it sends and reads — each
 * collection's media type, access, unique keys and properties (by their names in that version, required or
 * not, with their schemas stripped of annotations), and each action's method, parameters and response; and
 * the shared schemas those refer to, once each, by name (a shared schema is never written out where it is
 * used: Stripe's expandable fields refer to one another so that writing them in is exponential in the chain).
 * A generation records it (OUT/.resourcery/contract.json); the next one compares its own with it
 * (classify.ts) to find what would break a version already published. It is made from the model (its version
 * views), never from the OpenAPI text, so that wording, ordering and layout of the docs change nothing.
 */
import path from "node:path";
import { setOwn, SHARED_REF_PREFIX } from "../model/build-schema.js";
import type { AccessAction, Model, Origin } from "../model/types.js";
import { servedVersions, versionView } from "../model/versions.js";

/** Where a part of the contract is defined: a file relative to the definitions folder, and a JSON pointer. */
export interface ContractOrigin {
  readonly file: string;
  readonly pointer: string;
}

export interface WireProperty {
  readonly required: boolean;
  /** The collection a link leads to; undefined for a value. */
  readonly link: string | undefined;
  /** A list of links (a collection link) rather than one. */
  readonly many: boolean;
  /** The schema as the wire sees it (see wireSchema); `{}` for a link, whose form is the service's. */
  readonly schema: unknown;
  readonly origin: ContractOrigin;
}

export interface WireResource {
  readonly mediaType: string;
  /** The roles each operation needs (any of them); absent: any authenticated caller. */
  readonly access: { readonly [A in AccessAction]?: readonly string[] };
  /** Wire names of the x-unique properties. */
  readonly unique: readonly string[];
  readonly properties: Readonly<Record<string, WireProperty>>;
  readonly origin: ContractOrigin;
}

export interface WireAction {
  readonly method: string;
  readonly mediaType: string;
  readonly roles: readonly string[];
  readonly params: Readonly<Record<string, { readonly required: boolean; readonly schema: unknown }>>;
  readonly response: unknown;
  readonly origin: ContractOrigin;
}

export interface WireVersion {
  readonly resources: Readonly<Record<string, WireResource>>;
  readonly actions: Readonly<Record<string, WireAction>>;
}

/** A shared schema as the wire sees it (see wireSchema), with where it is defined. */
export interface WireShared {
  readonly schema: unknown;
  readonly origin: ContractOrigin;
}

export interface WireContract {
  /**
   * The form of this record: 2 keeps shared schemas by name (`{"$ref": "<name>"}` in a schema, defined once
   * in `shared`); 1 (resourcery before it) wrote them in wherever they were used. Another is not compared (a
   * regeneration records it anew).
   */
  readonly format: 2;
  /** The shared schemas, by name (the model's SharedSchema names), as every version sees them. */
  readonly shared: Readonly<Record<string, WireShared>>;
  /** By version number. */
  readonly versions: Readonly<Record<string, WireVersion>>;
}

/** A contract recorded by resourcery before shared schemas were kept by name: its schemas have them written in. */
export interface WireContractV1 {
  readonly format: 1;
  readonly versions: Readonly<Record<string, WireVersion>>;
}

export const CONTRACT_FORMAT = 2;

/** Keywords that describe a value without constraining it: no client sees a difference when they change. */
const ANNOTATIONS = new Set(["title", "description", "examples", "example", "$comment", "deprecated", "$schema", "$id", "$anchor"]);
/** Keywords whose value is a map of names to schemas. */
const SCHEMA_MAPS = new Set(["properties", "patternProperties", "$defs", "definitions", "dependentSchemas"]);
/** Keywords whose value is a schema. */
const SCHEMA_VALUES = new Set(["items", "additionalProperties", "not", "if", "then", "else", "contains", "propertyNames", "unevaluatedItems", "unevaluatedProperties"]);
/** Keywords whose value is a list of schemas. */
const SCHEMA_LISTS = new Set(["allOf", "anyOf", "oneOf", "prefixItems"]);

const isRecord = (v: unknown): v is Record<string, unknown> => v !== null && typeof v === "object" && !Array.isArray(v);

/**
 * A schema as a client meets it on the wire: annotations and `x-` keywords dropped, keys sorted, a reference to
 * a shared schema (`#/$defs/<name>`) kept as `{"$ref": "<name>"}` (beside the keywords written next to it),
 * data keywords (enum, const, default) as written. Linear in the schema: nothing is written in.
 * @example wireSchema({ description: "Where", $ref: "#/$defs/Address" }) → { $ref: "Address" }
 */
export function wireSchema(schema: unknown): unknown {
  if (Array.isArray(schema)) return schema.map((s) => wireSchema(s));
  if (!isRecord(schema)) return schema;
  const out: Record<string, unknown> = {};
  for (const key of Object.keys(schema).sort()) {
    const value = schema[key];
    if (ANNOTATIONS.has(key) || /^x-/i.test(key)) continue;
    if (key === "$ref" && typeof value === "string" && value.startsWith(SHARED_REF_PREFIX)) out.$ref = value.slice(SHARED_REF_PREFIX.length);
    else if (SCHEMA_MAPS.has(key) && isRecord(value)) {
      const map: Record<string, unknown> = {};
      for (const name of Object.keys(value).sort()) setOwn(map, name, wireSchema(value[name]));
      out[key] = map;
    } else if (SCHEMA_VALUES.has(key) || SCHEMA_LISTS.has(key)) out[key] = wireSchema(value);
    else out[key] = value;
  }
  return out;
}

/**
 * The shared schemas `schema` refers to directly (by name, as wireSchema keeps them).
 * @example sharedRefsOf({ properties: { home: { $ref: "Address" } } }) → ["Address"]
 */
export function sharedRefsOf(schema: unknown, into: Set<string> = new Set()): Set<string> {
  if (Array.isArray(schema)) {
    for (const s of schema) sharedRefsOf(s, into);
  } else if (isRecord(schema)) {
    for (const [key, value] of Object.entries(schema)) {
      if (key === "$ref" && typeof value === "string" && !value.includes("/")) into.add(value);
      else if (!DATA_KEYWORDS.has(key) && typeof value === "object" && value !== null) sharedRefsOf(value, into);
    }
  }
  return into;
}

/** Keywords whose value is data, not schemas: a `$ref` inside is a value. */
export const DATA_KEYWORDS: ReadonlySet<string> = new Set(["enum", "const", "default"]);

/** The wire contract of every version `model` serves; origins relative to `root` (the definitions folder). */
export function contractOf(model: Model, root: string): WireContract {
  const at = (o: Origin): ContractOrigin => ({ file: path.relative(root, o.file).split(path.sep).join("/"), pointer: o.pointer });
  const shared: Record<string, WireShared> = {};
  for (const s of [...model.schemas].sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0))) {
    Object.defineProperty(shared, s.name, { value: { schema: wireSchema(s.schema), origin: at(s.origin) }, enumerable: true, writable: true, configurable: true });
  }
  const versions: Record<string, WireVersion> = {};
  for (const version of servedVersions(model.service)) {
    const view = versionView(model, version);
    const resources: Record<string, WireResource> = {};
    for (const { resource, fields, mediaType } of view.resources) {
      const wireOf = new Map(fields.map((f) => [f.field.name, f.wire]));
      const properties: Record<string, WireProperty> = {};
      for (const { field, wire, required } of fields) {
        if (field.name === resource.owner) continue; // set by the server from the caller's key
        Object.defineProperty(properties, wire, {
          value: {
            required,
            link: field.link?.target,
            many: field.link?.kind === "collection",
            schema: field.link ? {} : wireSchema(field.schema),
            origin: at(field.origin),
          },
          enumerable: true,
          writable: true,
          configurable: true,
        });
      }
      resources[resource.collection] = {
        mediaType,
        access: Object.fromEntries(Object.entries(resource.access).map(([k, roles]) => [k, [...(roles ?? [])].sort()])),
        unique: resource.unique.flatMap((u) => (wireOf.has(u) ? [wireOf.get(u)!] : [])).sort(),
        properties,
        origin: at(resource.origin),
      };
    }
    const actions: Record<string, WireAction> = {};
    // Actions are not versioned by keywords: every version serves the current ones, under its own media type.
    for (const a of model.actions) {
      actions[a.name] = {
        method: a.method,
        mediaType: a.mediaType.replace(`.v${model.service.version}.`, `.v${version}.`),
        roles: [...a.roles].sort(),
        params: Object.fromEntries(a.params.map((p) => [p.name, { required: p.required, schema: wireSchema(p.schema) }])),
        response: wireSchema(a.response),
        origin: at(a.origin),
      };
    }
    versions[String(version)] = { resources, actions };
  }
  return { format: CONTRACT_FORMAT, shared, versions };
}
