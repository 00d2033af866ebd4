/** Reading the model's shared schemas: following `{ "$ref": "#/$defs/<name>" }` to what it stands for. */
import { isObject, setOwn, SHARED_REF_PREFIX } from "./build-schema.js";
import { isDataKeyword, SCHEMA_MAPS } from "./schema-walk.js";
import { SHARED_SCHEMAS_ID } from "./conventions.js";
import type { JsonSchema, Model, SharedSchema } from "./types.js";

/** Follows shared references to the schema they stand for (see SharedSchemas.deref). */
export type Deref = (schema: JsonSchema) => JsonSchema;

/** The shared schemas of a model by name, and how to follow a reference to one. */
export class SharedSchemas {
  private readonly byName: ReadonlyMap<string, SharedSchema>;

  constructor(schemas: readonly SharedSchema[]) {
    this.byName = new Map(schemas.map((s) => [s.name, s]));
  }

  /** The name a schema refers to when it is a shared reference: `{ "$ref": "#/$defs/Address" }` → "Address". */
  static nameOf(schema: unknown): string | undefined {
    if (!isObject(schema) || typeof schema.$ref !== "string" || !schema.$ref.startsWith(SHARED_REF_PREFIX)) return undefined;
    return schema.$ref.slice(SHARED_REF_PREFIX.length);
  }

  /** The shared schema of that name. */
  get(name: string): SharedSchema | undefined {
    return this.byName.get(name);
  }

  /**
   * The schema a shared reference stands for, following references to references (`{}` for a loop);
   * the schema itself when it is not one. Keywords beside a $ref narrow it, and are not kept: this
   * answers what kind of value it is, not every rule it has.
   */
  readonly deref: Deref = (schema) => {
    let at = schema;
    for (let hops = 0; hops <= this.byName.size; hops++) {
      const name = SharedSchemas.nameOf(at);
      if (name === undefined) return at;
      at = this.byName.get(name)?.schema ?? {};
    }
    return {};
  };
}

/** The shared schemas of `model`. */
export function sharedOf(model: Pick<Model, "schemas">): SharedSchemas {
  return new SharedSchemas(model.schemas);
}

/** A schema with every shared reference (`#/$defs/<name>`) made absolute, for a schema compiled on its own beside the shared ones (SHARED_SCHEMAS_ID). */
export function withSharedId(schema: unknown): unknown {
  return withSharedRefs(schema, (name) => `${SHARED_SCHEMAS_ID}${SHARED_REF_PREFIX}${name}`);
}

/** A copy of `schema` whose shared references (`#/$defs/<name>`) say `to(name)` instead; data keywords are left as written. */
export function withSharedRefs(schema: unknown, to: (name: string) => string): unknown {
  return withRefs(schema, (ref) => (ref.startsWith(SHARED_REF_PREFIX) ? to(ref.slice(SHARED_REF_PREFIX.length)) : ref));
}

/** A copy of `schema` whose `$ref`s say `to(ref)` instead; data keywords are left as written. */
export function withRefs(schema: unknown, to: (ref: string) => string): unknown {
  if (Array.isArray(schema)) return schema.map((s) => withRefs(s, to));
  if (!isObject(schema)) return schema;
  const out: Record<string, unknown> = {};
  for (const [k, v] of Object.entries(schema)) {
    let value: unknown;
    if (k === "$ref" && typeof v === "string") value = to(v);
    else if (SCHEMA_MAPS.has(k) && isObject(v)) {
      // Its keys are names: a property named "$ref", "default", "enum" or "x-rate" is a schema like any other.
      const map: Record<string, unknown> = {};
      for (const [name, sub] of Object.entries(v)) setOwn(map, name, withRefs(sub, to));
      value = map;
    } else value = isDataKeyword(k) ? v : withRefs(v, to);
    setOwn(out, k, value);
  }
  return out;
}
