/**
 * The server's fields of a representation (id, createdAt, modifiedAt) as every output documents them: the
 * schema of what the server makes, with the title, description and examples the definition declares.
 */
import { isObject } from "../../model/build-schema.js";
import { exampleId, idSchemaOf, isIdOfForm } from "../../model/id-forms.js";
import { SharedSchemas } from "../../model/shared.js";
import type { JsonSchema, Model, Resource } from "../../model/types.js";

/** The shared schemas a model's declarations refer to (read once per model). */
type Shared = Pick<Model, "schemas">;
const sharedCache = new WeakMap<readonly unknown[], SharedSchemas>();

function sharedSchemas(model: Shared): SharedSchemas {
  let shared = sharedCache.get(model.schemas);
  if (!shared) sharedCache.set(model.schemas, (shared = new SharedSchemas(model.schemas)));
  return shared;
}

/** The server-owned fields a definition may document. */
export type ServerField = "id" | "createdAt" | "modifiedAt";

/** What documents a server field: the declaration's title, description and examples (each only when declared). */
export interface ServerFieldDoc {
  readonly title?: string;
  readonly description?: string;
  readonly examples?: readonly unknown[];
}

/**
 * The title, description and examples `r` declares for one of the server's fields ({} when it declares none):
 * written on the property, else on the shared schema its $ref names.
 * @example serverFieldDoc(model, book, "id") → { description: "Unique identifier of the book." }
 */
export function serverFieldDoc(model: Shared, r: Resource, name: ServerField): ServerFieldDoc {
  const own = r.serverOwned.find((f) => f.name === name)?.schema;
  if (!isObject(own)) return {};
  const target: JsonSchema = typeof own.$ref === "string" ? sharedSchemas(model).deref({ $ref: own.$ref }) : {};
  const pick = <T>(read: (schema: Record<string, unknown>) => T | undefined): T | undefined => read(own) ?? (isObject(target) ? read(target) : undefined);
  const title = pick((x) => (typeof x.title === "string" ? x.title : undefined));
  const description = pick((x) => (typeof x.description === "string" && x.description !== "" ? x.description : undefined));
  const examples = pick((x) => (Array.isArray(x.examples) && x.examples.length > 0 ? (x.examples as unknown[]) : undefined));
  return { ...(title !== undefined ? { title } : {}), ...(description !== undefined ? { description } : {}), ...(examples !== undefined ? { examples } : {}) };
}

/** The JSON Schema of a server field of `r`: what the server makes, documented by the declaration or by `fallback`. */
export function serverFieldSchema(model: Shared, r: Resource, name: ServerField, fallback: string): Record<string, unknown> {
  const made = name === "id" ? idSchemaOf(r.idForm) : { type: "string", format: "date-time" };
  const doc = serverFieldDoc(model, r, name);
  return { ...made, ...(doc.title ? { title: doc.title } : {}), description: doc.description ?? fallback, ...(doc.examples ? { examples: doc.examples } : {}) };
}

/**
 * An example id of `r` for the docs: its `n`-th declared example when that is an id the server could make,
 * else one of its form (n = 0 the instance shown, n = 1 a linked one).
 * @example exampleIdOf(model, order) === 42; exampleIdOf(model, order, 1) === 43
 */
export function exampleIdOf(model: Shared, r: Resource, n = 0): string | number {
  const declared = serverFieldDoc(model, r, "id").examples?.[n];
  return isIdOfForm(r.idForm, declared) ? (declared as string | number) : exampleId(r.idForm, n);
}

/** A timestamp for the docs' examples: what `r` declares as an example of it when that is a date-time, else a fixed one. */
export function exampleTimeOf(model: Shared, r: Resource, name: "createdAt" | "modifiedAt"): string {
  const declared = serverFieldDoc(model, r, name).examples?.[0];
  return typeof declared === "string" && /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(\.\d+)?(Z|[+-]\d{2}:\d{2})$/.test(declared) ? declared : "2024-01-15T10:30:00.000Z";
}
