/** Reading the model's shared schemas: following `{ "$ref": "#/$defs/<name>" }` to what it stands for. */
import { isObject, SHARED_REF_PREFIX } from "./build-schema.js";
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
