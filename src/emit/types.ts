/**
 * Emits src/generated/types.ts: TypeScript types of every resource (representation and request
 * body) and of every action (parameters and result), from one bundled json-schema-to-typescript compile.
 */
import { compile } from "json-schema-to-typescript";
import type { Field, Model, Resource } from "../model/types.js";
import type { EmittedFile } from "./emitted-file.js";
import { indentBraces, tsHeader } from "./shared/header.js";
import { isWritable } from "./spec.js";

const PRELUDE = `/** The meta object of every representation and link. */
export interface Meta {
  /** Absolute URL of the resource. */
  href: string;
  /** Vendor media type of the representation. */
  mediaType: string;
}

/** A link to an instance; expanded (\`expand\`), it is the instance itself. */
export interface Link {
  meta: Meta;
}

/** A link as written in a request body. */
export interface LinkInput {
  meta: { href: string; mediaType?: string };
}

/** A page of a collection. */
export interface Page<T> {
  meta: Meta;
  offset: number;
  limit: number;
  /** Size of the whole collection. */
  size: number;
  items: T[];
}

/** A link to a collection; expanded, it is a page of it. */
export interface CollectionLink {
  meta: Meta;
}
`;

/** Strips keywords that make json-schema-to-typescript invent names (titles) or that it does not need. */
function clean(schema: unknown): unknown {
  if (Array.isArray(schema)) return schema.map(clean);
  if (schema === null || typeof schema !== "object") return schema;
  const out: Record<string, unknown> = {};
  for (const [k, v] of Object.entries(schema)) {
    if (k === "title" || k === "$id" || k === "$schema" || k === "$comment" || k.startsWith("x-")) continue;
    Object.defineProperty(out, k, { value: k === "properties" || k === "$defs" ? mapValues(v, clean) : clean(v), enumerable: true, writable: true, configurable: true });
  }
  return out;
}

function mapValues(v: unknown, fn: (x: unknown) => unknown): unknown {
  if (v === null || typeof v !== "object") return v;
  const out: Record<string, unknown> = {};
  for (const [k, x] of Object.entries(v)) Object.defineProperty(out, k, { value: fn(x), enumerable: true, writable: true, configurable: true });
  return out;
}

function fieldSchema(f: Field, input: boolean, model: Model): unknown {
  const described = (s: Record<string, unknown>) => (f.description ? { ...s, description: f.description } : s);
  if (f.kind === "link") {
    const target = model.resources.find((r) => r.collection === f.link!.target)!;
    return described({ tsType: input ? "LinkInput" : `Link | ${target.typeName}` });
  }
  if (f.kind === "links") {
    const target = model.resources.find((r) => r.collection === f.link!.target)!;
    return described({ tsType: input ? "LinkInput[]" : `CollectionLink | Page<${target.typeName}>` });
  }
  return clean(f.schema);
}

function resourceSchemas(r: Resource, model: Model): Record<string, unknown> {
  const props = (input: boolean) => {
    const out: Record<string, unknown> = {};
    if (!input) {
      out.meta = { tsType: "Meta" };
      out.id = { type: "string", description: "Id assigned by the server." };
      out.createdAt = { type: "string", description: "When the instance was created (ISO 8601)." };
      out.modifiedAt = { type: "string", description: "When the instance was last changed (ISO 8601)." };
    }
    for (const f of r.fields) {
      if (input && !isWritable(r, f)) continue;
      Object.defineProperty(out, f.name, { value: fieldSchema(f, input, model), enumerable: true, writable: true, configurable: true });
    }
    return out;
  };
  const writable = new Set(r.fields.filter((f) => isWritable(r, f)).map((f) => f.name));
  const describe = r.description ? { description: r.description } : {};
  return {
    [r.typeName]: { type: "object", additionalProperties: false, ...describe, required: ["meta", "id", "createdAt", "modifiedAt", ...r.required], properties: props(false) },
    [`${r.typeName}Input`]: {
      type: "object",
      additionalProperties: false,
      description: `Request body that creates or replaces ${/^[aeiou]/i.test(r.name) ? "an" : "a"} ${r.name}.`,
      required: r.required.filter((n) => writable.has(n)),
      properties: props(true),
    },
  };
}

/** The bundled schema compiled once: every resource and action type under $defs. */
export function typesSchema(model: Model): Record<string, unknown> {
  const defs: Record<string, unknown> = {};
  for (const r of model.resources) Object.assign(defs, resourceSchemas(r, model));
  for (const a of model.actions) {
    defs[`${a.typeName}Params`] = { ...(clean(a.query) as object), description: `Query parameters of ${a.name}.` };
    defs[`${a.typeName}Result`] = clean(a.response);
  }
  return { type: "object", additionalProperties: false, properties: {}, $defs: defs };
}

/** src/generated/types.ts */
export async function emitTypes(model: Model): Promise<EmittedFile[]> {
  const compiled = await compile(typesSchema(model) as never, "Types", {
    bannerComment: "",
    format: false,
    unreachableDefinitions: true,
    additionalProperties: false,
    declareExternallyReferenced: true,
    strictIndexSignatures: true,
  });
  const body = compiled
    .replace(/export interface Types \{\s*\}\n?/, "")
    .replace(/\/\*\*\n \* This interface was referenced by `Types`'s JSON-Schema\n \* via the `definition` "[^"]+".\n \*\/\n/g, "")
    .replace(/ \* This interface was referenced by `Types`'s JSON-Schema\n \* via the `definition` "[^"]+".\n/g, "");
  const contents = tsHeader("types of every resource and action") + "\n" + PRELUDE + "\n" + indentBraces(body).trim() + "\n";
  return [{ path: "src/generated/types.ts", contents, owner: "generated" }];
}
