/**
 * The schemas a generated service validates requests with, how they are compiled, and their fingerprint.
 * The service compiles them at start-up, or takes the validators resourcery compiled from them the same
 * way at generate time (src/generated/validators.js) when the fingerprint that module carries is theirs.
 * This file is templates/runtime/validator-schemas.ts in the service and src/model/validator-schemas.ts in
 * resourcery, the same text (test/unit/consistency.test.ts compares the two files): both sides compile
 * and fingerprint alike.
 */
import { createHash } from "node:crypto";
import type { Ajv, ValidateFunction } from "ajv";
import { ajvOptions, newAjv, type AjvExtra } from "./ajv-settings.js";
import { SHARED_SCHEMAS_ID } from "./conventions.js";

/** A JSON Schema, as the service description holds it. */
export type Schema = { readonly [key: string]: unknown } | boolean;

/** What of a service description its validators are compiled from (a ServiceSpec has it). */
export interface ValidatedSpec {
  readonly resources: readonly ValidatedResource[];
  readonly actions: readonly { readonly name: string; readonly query: Schema }[];
  readonly schemas?: { readonly [name: string]: unknown } | undefined;
  /** The older versions served, with the body of each collection whose body in that version is not the current one's. */
  readonly versions?: readonly { readonly version: number; readonly resources: { readonly [collection: string]: { readonly body?: Omit<ValidatedResource, "collection"> | undefined } } }[] | undefined;
}

/** What of a resource its body validator is compiled from (a ResourceSpec has it). */
export interface ValidatedResource {
  readonly collection: string;
  readonly bodySchema: Schema;
  readonly fields: readonly { readonly name: string; readonly kind: string; readonly nullable?: boolean | undefined }[];
}

/** Every schema a service gives ajv, in the order it does. */
export interface ValidatorSchemas {
  /** Added to both ajv instances before anything is compiled (`{ $id: SHARED_SCHEMAS_ID, $defs }`), if there are shared schemas. */
  readonly shared: Schema | undefined;
  /** The create/replace body of each collection, compiled strictly, in one ajv instance. */
  readonly bodies: readonly (readonly [collection: string, schema: Schema])[];
  /** The query string of each action, compiled with coercion, in another. */
  readonly queries: readonly (readonly [action: string, schema: Schema])[];
}

/**
 * The schemas the service compiles for `spec`, without their annotations (see withoutAnnotations): what
 * ajv does not validate with is neither compiled nor written into the validators' code.
 */
export function validatorSchemas(spec: ValidatedSpec): ValidatorSchemas {
  const shared: Record<string, unknown> = {};
  for (const [name, schema] of Object.entries(spec.schemas ?? {})) define(shared, name, withoutAnnotations(schema));
  return {
    // Refs inside the shared schemas are local ("#/$defs/…"); those in bodies and queries name this $id.
    shared: spec.schemas === undefined ? undefined : { $id: SHARED_SCHEMAS_ID, $defs: shared },
    bodies: [
      ...spec.resources.map((r) => [r.collection, withoutAnnotations(acceptedBodySchema(r)) as Schema] as const),
      ...(spec.versions ?? []).flatMap((v) =>
        Object.entries(v.resources).flatMap(([collection, r]) =>
          r.body === undefined ? [] : [[versionedBodyKey(collection, v.version), withoutAnnotations(acceptedBodySchema({ collection, ...r.body })) as Schema] as const],
        ),
      ),
    ],
    queries: spec.actions.map((a) => [a.name, withoutAnnotations(a.query) as Schema] as const),
  };
}

/**
 * The key of a collection's body validator in an older version whose body is not the current one's.
 * @example versionedBodyKey("books", 1) === "books@v1"
 */
export function versionedBodyKey(collection: string, version: number): string {
  return `${collection}@v${version}`;
}

/** Keywords that only annotate: ajv validates nothing with them (OpenAPI's `example` and `x-` extensions neither). */
const ANNOTATIONS = new Set(["title", "description", "examples", "example", "$comment", "deprecated", "readOnly", "writeOnly"]);
/** Keywords whose value is a schema, or an array of schemas. */
const SUBSCHEMAS = new Set([
  "items", "additionalItems", "additionalProperties", "not", "if", "then", "else", "contains", "propertyNames",
  "unevaluatedItems", "unevaluatedProperties", "contentSchema", "allOf", "anyOf", "oneOf", "prefixItems",
]);
/** Keywords whose value maps names (data: any name at all) to schemas. */
const SCHEMA_MAPS = new Set(["properties", "patternProperties", "$defs", "definitions", "dependentSchemas"]);

/**
 * A copy of `schema` without annotations, in every schema inside it; property names and the values of
 * every other keyword (enum, const, default, unknown keywords) are kept as written.
 * @example withoutAnnotations({ type: "string", description: "Name.", enum: [{ description: 1 }] }) // { type: "string", enum: [{ description: 1 }] }
 */
export function withoutAnnotations(schema: unknown): unknown {
  if (schema === null || typeof schema !== "object" || Array.isArray(schema)) return schema;
  const out: Record<string, unknown> = {};
  for (const [keyword, value] of Object.entries(schema)) {
    if (ANNOTATIONS.has(keyword) || keyword.startsWith("x-")) continue;
    if (SUBSCHEMAS.has(keyword)) define(out, keyword, Array.isArray(value) ? value.map(withoutAnnotations) : withoutAnnotations(value));
    else if (SCHEMA_MAPS.has(keyword) && value !== null && typeof value === "object" && !Array.isArray(value)) {
      const map: Record<string, unknown> = {};
      for (const [name, sub] of Object.entries(value)) define(map, name, withoutAnnotations(sub));
      define(out, keyword, map);
    } else if (keyword === "dependencies" && value !== null && typeof value === "object" && !Array.isArray(value)) {
      const map: Record<string, unknown> = {};
      for (const [name, sub] of Object.entries(value)) define(map, name, Array.isArray(sub) ? sub : withoutAnnotations(sub));
      define(out, keyword, map);
    } else define(out, keyword, value);
  }
  return out;
}

/** Sets an own property, a key named "__proto__" included (any other key is assigned: the same own property, and inline where defineProperty is a runtime call). */
function define(object: Record<string, unknown>, key: string, value: unknown): void {
  if (key === "__proto__") Object.defineProperty(object, key, { value, enumerable: true, writable: true, configurable: true });
  else object[key] = value;
}

/** The ajv instances of a service's validators: bodies strictly, queries with coercion; the shared schemas added to both. */
export interface ValidatorAjvs {
  readonly bodies: Ajv;
  readonly queries: Ajv;
}

/** New ajv instances for the validators of `schemas` (`extra`: see newAjv). */
export function validatorAjvs(schemas: ValidatorSchemas, extra: AjvExtra = {}): ValidatorAjvs {
  const ajvs = { bodies: newAjv(false, extra), queries: newAjv(true, extra) };
  if (schemas.shared !== undefined) for (const ajv of [ajvs.bodies, ajvs.queries]) ajv.addSchema(schemas.shared as object);
  return ajvs;
}

/** The key the i-th body (or query) schema is added to its ajv instance under. */
export function validatorKey(kind: "body" | "query", i: number): string {
  return `resourcery:${kind}/${i}`;
}

/** Validators compiled once per distinct schema: collections (or actions) whose schemas are equal share one. */
export interface DistinctValidators {
  /** The validator of each name. */
  readonly byName: ReadonlyMap<string, ValidateFunction>;
  /** The key each distinct schema was added under, and the names validated by it, in the order of `list`. */
  readonly distinct: readonly { readonly key: string; readonly names: readonly string[] }[];
}

/** Compiles the schemas of `list` into `ajv`, once per distinct schema, each added under validatorKey(kind, i). */
export function compileDistinct(ajv: Ajv, kind: "body" | "query", list: ValidatorSchemas["bodies"], what: (name: string) => string): DistinctValidators {
  const byName = new Map<string, ValidateFunction>();
  const byText = new Map<string, { readonly key: string; readonly names: string[]; readonly fn: ValidateFunction }>();
  for (const [name, schema] of list) {
    const text = JSON.stringify(schema);
    let found = byText.get(text);
    if (found === undefined) {
      const key = validatorKey(kind, byText.size);
      found = { key, names: [], fn: compileValidator(ajv, key, schema, what(name)) };
      byText.set(text, found);
    }
    found.names.push(name);
    byName.set(name, found.fn);
  }
  return { byName, distinct: [...byText.values()].map(({ key, names }) => ({ key, names })) };
}

/**
 * Compiles one schema of the service, added under `key`. One ajv cannot compile stops the start saying which
 * schema it is, `what` (resourcery's `check` compiles every one with the same settings, and reports where
 * and how to fix it).
 */
export function compileValidator(ajv: Ajv, key: string, schema: Schema, what: string): ValidateFunction {
  try {
    ajv.addSchema(schema as object, key);
    return ajv.getSchema(key)!;
  } catch (e) {
    throw new Error(`${what} cannot be compiled: ${e instanceof Error ? e.message : String(e)}`, { cause: e });
  }
}

/**
 * What validators compiled from `schemas` depend on, as a hash: the schemas and ajv's options. Validators
 * precompiled from other schemas (a spec changed by hand) do not carry this fingerprint.
 */
export function validatorsFingerprint(schemas: ValidatorSchemas): string {
  // JSON.stringify leaves the RegExp engine (a function) out of the options: its source is the same text on both sides.
  const text = JSON.stringify([ajvOptions(false), ajvOptions(true), schemas.shared ?? null, schemas.bodies, schemas.queries]);
  return createHash("sha256").update(text).digest("hex");
}

/**
 * The schema a create/replace body of `resource` is validated with: its bodySchema, where an instance link
 * the field spec calls nullable accepts null as well as { meta: { href } }.
 */
export function acceptedBodySchema(resource: ValidatedResource): Schema {
  const body = resource.bodySchema;
  const nullable = resource.fields.filter((f) => f.kind === "link" && f.nullable === true);
  if (nullable.length === 0 || typeof body !== "object" || body.properties === null || typeof body.properties !== "object") return body;
  const properties: Record<string, unknown> = { ...(body.properties as Record<string, unknown>) };
  for (const field of nullable) {
    const schema = properties[field.name];
    if (schema === undefined || acceptsNullShallow(schema)) continue;
    Object.defineProperty(properties, field.name, { value: { anyOf: [schema, { type: "null" }] }, enumerable: true, writable: true, configurable: true });
  }
  return { ...body, properties };
}

/** True when the schema says null outright: a type (or type list) with "null", or an anyOf/oneOf branch that does. */
function acceptsNullShallow(schema: unknown): boolean {
  if (schema === null || typeof schema !== "object") return schema === true;
  const s = schema as Record<string, unknown>;
  if (s.type === "null" || (Array.isArray(s.type) && s.type.includes("null"))) return true;
  return ["anyOf", "oneOf"].some((k) => Array.isArray(s[k]) && (s[k] as unknown[]).some(acceptsNullShallow));
}
