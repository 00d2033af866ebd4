/**
 * The wire contract of a service: per served version, what a client of it sends and reads — each
 * collection's media type, access, unique keys and properties (by their names in that version, required or
 * not, with their schemas stripped of annotations and their shared schemas written in), and each action's
 * method, parameters and response. A generation records it (OUT/.resourcery/contract.json); the next one
 * compares its own with it (classify.ts) to find what would break a version already published. It is made
 * from the model (its version views), never from the OpenAPI text, so that wording, ordering and layout of
 * the docs change nothing.
 */
import path from "node:path";
import { SHARED_REF_PREFIX } from "../model/build-schema.js";
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

export interface WireContract {
  /** The form of this record; a different one is not compared (a regeneration records it anew). */
  readonly format: 1;
  /** By version number. */
  readonly versions: Readonly<Record<string, WireVersion>>;
}

export const CONTRACT_FORMAT = 1;

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
 * A schema as a client meets it on the wire: annotations and `x-` keywords dropped, shared schemas
 * (`#/$defs/<name>`) written in where they are used (a shared schema that refers to itself keeps that
 * reference, by name), data keywords (enum, const, default) as written.
 */
export function wireSchema(schema: unknown, shared: ReadonlyMap<string, unknown>, expanding: ReadonlySet<string> = new Set()): unknown {
  if (Array.isArray(schema)) return schema.map((s) => wireSchema(s, shared, expanding));
  if (!isRecord(schema)) return schema;
  const ref = schema.$ref;
  if (typeof ref === "string" && ref.startsWith(SHARED_REF_PREFIX)) {
    const name = ref.slice(SHARED_REF_PREFIX.length);
    const target = shared.get(name);
    const rest = wireSchema(Object.fromEntries(Object.entries(schema).filter(([k]) => k !== "$ref")), shared, expanding) as Record<string, unknown>;
    if (target === undefined || expanding.has(name)) return { ...rest, $ref: name };
    const inner = wireSchema(target, shared, new Set([...expanding, name]));
    return Object.keys(rest).length === 0 ? inner : { allOf: [inner], ...rest };
  }
  const out: Record<string, unknown> = {};
  for (const key of Object.keys(schema).sort()) {
    const value = schema[key];
    if (ANNOTATIONS.has(key) || /^x-/i.test(key)) continue;
    if (SCHEMA_MAPS.has(key) && isRecord(value)) {
      const map: Record<string, unknown> = {};
      for (const name of Object.keys(value).sort()) Object.defineProperty(map, name, { value: wireSchema(value[name], shared, expanding), enumerable: true, writable: true, configurable: true });
      out[key] = map;
    } else if (SCHEMA_VALUES.has(key) || SCHEMA_LISTS.has(key)) out[key] = wireSchema(value, shared, expanding);
    else out[key] = value;
  }
  return out;
}

/** The wire contract of every version `model` serves; origins relative to `root` (the definitions folder). */
export function contractOf(model: Model, root: string): WireContract {
  const shared = new Map(model.schemas.map((s) => [s.name, s.schema as unknown]));
  const at = (o: Origin): ContractOrigin => ({ file: path.relative(root, o.file).split(path.sep).join("/"), pointer: o.pointer });
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
            schema: field.link ? {} : wireSchema(field.schema, shared),
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
        params: Object.fromEntries(a.params.map((p) => [p.name, { required: p.required, schema: wireSchema(p.schema, shared) }])),
        response: wireSchema(a.response, shared),
        origin: at(a.origin),
      };
    }
    versions[String(version)] = { resources, actions };
  }
  return { format: CONTRACT_FORMAT, versions };
}
