/**
 * The server's fields of a representation (id, createdAt, modifiedAt) as every output documents them: the
 * schema of what the server makes, with the title, description and examples the definition declares.
 */
import { isObject } from "../../model/build-schema.js";
import { exampleId, idSchemaOf, isIdOfForm } from "../../model/id-forms.js";
import type { Resource } from "../../model/types.js";

/** The server-owned fields a definition may document. */
export type ServerField = "id" | "createdAt" | "modifiedAt";

/** What documents a server field: the declaration's title, description and examples (each only when declared). */
export interface ServerFieldDoc {
  readonly title?: string;
  readonly description?: string;
  readonly examples?: readonly unknown[];
}

/**
 * The title, description and examples `r` declares for one of the server's fields ({} when it declares none).
 * @example serverFieldDoc(book, "id") → { description: "Unique identifier of the book." }
 */
export function serverFieldDoc(r: Resource, name: ServerField): ServerFieldDoc {
  const schema = r.serverOwned.find((f) => f.name === name)?.schema;
  if (!isObject(schema)) return {};
  return {
    ...(typeof schema.title === "string" ? { title: schema.title } : {}),
    ...(typeof schema.description === "string" && schema.description !== "" ? { description: schema.description } : {}),
    ...(Array.isArray(schema.examples) && schema.examples.length > 0 ? { examples: schema.examples } : {}),
  };
}

/** The JSON Schema of a server field of `r`: what the server makes, documented by the declaration or by `fallback`. */
export function serverFieldSchema(r: Resource, name: ServerField, fallback: string): Record<string, unknown> {
  const made = name === "id" ? idSchemaOf(r.idForm) : { type: "string", format: "date-time" };
  const doc = serverFieldDoc(r, name);
  return { ...made, ...(doc.title ? { title: doc.title } : {}), description: doc.description ?? fallback, ...(doc.examples ? { examples: doc.examples } : {}) };
}

/**
 * An example id of `r` for the docs: its `n`-th declared example when that is an id the server could make,
 * else one of its form (n = 0 the instance shown, n = 1 a linked one).
 * @example exampleIdOf(order) === 42; exampleIdOf(order, 1) === 43
 */
export function exampleIdOf(r: Resource, n = 0): string | number {
  const declared = serverFieldDoc(r, "id").examples?.[n];
  return isIdOfForm(r.idForm, declared) ? (declared as string | number) : exampleId(r.idForm, n);
}

/** A timestamp for the docs' examples: what `r` declares as an example of it when that is a date-time, else a fixed one. */
export function exampleTimeOf(r: Resource, name: "createdAt" | "modifiedAt"): string {
  const declared = serverFieldDoc(r, name).examples?.[0];
  return typeof declared === "string" && /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(\.\d+)?(Z|[+-]\d{2}:\d{2})$/.test(declared) ? declared : "2024-01-15T10:30:00.000Z";
}
