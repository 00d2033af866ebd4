/**
 * Emits src/generated/types.ts: TypeScript types of every resource (representation and request
 * body), of every shared schema and of every action (parameters and result), from one bundled schema
 * whose $refs name the shared schemas: printed by ./ts-types.ts when it keeps to the subset definitions
 * and real APIs use, else compiled by json-schema-to-typescript (the same output either way).
 */
import { setOwn } from "../model/build-schema.js";
import { isNumericId } from "../model/id-forms.js";
import { OBJECT_MEMBERS, withArticle } from "../model/names.js";
import type { Model, Resource } from "../model/types.js";
import { isDataKeyword, SCHEMA_MAPS } from "../model/schema-walk.js";
import type { EmittedFile } from "./emitted-file.js";
import { docComment, ident, isSafeIdentifier, key, str } from "./shared/escape.js";
import { indentBraces, tsHeader } from "./shared/header.js";
import { isWritable } from "./spec.js";
import { serverFieldDoc } from "./shared/server-fields.js";
import { mark } from "../timing.js";
import { printTypesOf } from "./ts-types.js";

/** Name of the bundle's root type (removed from the output with its comments). */
const ROOT = "Types";

/**
 * The client's selection module, imported as a namespace (`select.LinkInput`: a resource's type may be named
 * Link or Page), and its types the server's code may need, re-exported under their public names.
 */
function prelude(model: Model): string {
  const names = (["CollectionLink", "Link", "LinkInput", "Meta", "Page"] as const).map((n) => (model.clientTypes[n] === n ? n : `${n} as ${ident(model.clientTypes[n])}`));
  return `import type * as select from "./select.js";\n\nexport type { ${names.join(", ")} } from "./select.js";\n`;
}

/**
 * Keywords of json-schema-to-typescript's own: `tsType` is printed as it is (TypeScript source), and
 * `tsEnumNames` names enum members. A definition's schema never carries them into the bundle (only
 * resourcery's own link schemas use `tsType`).
 */
const TS_KEYWORDS = new Set(["tsType", "tsEnumNames"]);

/**
 * Annotations that say nothing of the type (json-schema-to-typescript would walk the objects inside them as
 * schemas): `examples`, and OpenAPI's own.
 */
const NOT_TYPES = new Set(["examples", "xml", "discriminator", "externalDocs"]);

/**
 * Strips keywords that make json-schema-to-typescript invent names (titles), that it does not need, or
 * that are code (TS_KEYWORDS).
 */
function clean(schema: unknown): unknown {
  if (Array.isArray(schema)) return schema.map(clean);
  if (schema === null || typeof schema !== "object") return schema;
  const ref = (schema as { $ref?: unknown }).$ref;
  if (typeof ref === "string") return described(schema as Record<string, unknown>, { $ref: ref });
  const out: Record<string, unknown> = {};
  for (const [k, v] of Object.entries(schema)) {
    if (k === "title" || k === "$id" || k === "$schema" || k === "$comment" || k.startsWith("x-") || TS_KEYWORDS.has(k) || NOT_TYPES.has(k)) continue;
    // Data (an enum's values, a default) is kept as written: a "title" in it is a value's key.
    const value = SCHEMA_MAPS.has(k) ? mapValues(v, clean) : isDataKeyword(k) ? v : clean(v);
    setOwn(out, k, value);
  }
  return out;
}

/**
 * A shared reference is its type, named: keywords beside a bare `$ref` would make json-schema-to-typescript
 * declare a copy under a new name. Its own description (and deprecation) document the property, as the
 * only member of an allOf (which json-schema-to-typescript prints as the reference, with the comment).
 */
function described(schema: Record<string, unknown>, ref: { $ref: string }): unknown {
  const doc: Record<string, unknown> = {};
  if (typeof schema.description === "string") doc.description = schema.description;
  if (typeof schema.deprecated === "boolean") doc.deprecated = schema.deprecated;
  return Object.keys(doc).length === 0 ? ref : { ...doc, allOf: [ref] };
}

function mapValues(v: unknown, fn: (x: unknown) => unknown): unknown {
  if (v === null || typeof v !== "object") return v;
  const out: Record<string, unknown> = {};
  for (const [k, x] of Object.entries(v)) setOwn(out, k, fn(x));
  return out;
}

function resourceSchemas(model: Model, r: Resource): Record<string, unknown> {
  const server = serverFieldSchemas(model, r);
  const plain: Record<string, unknown> = { ...server };
  const input: Record<string, unknown> = {};
  for (const f of r.fields) {
    const schema = f.kind === "link" ? { tsType: f.link?.nullable ? "select.LinkInput | null" : "select.LinkInput" } : f.kind === "links" ? { tsType: "select.LinkInput[]" } : clean(f.schema);
    const described = f.description && f.link ? { ...(schema as object), description: f.description } : schema;
    if (!f.link) Object.defineProperty(plain, f.name, { value: described, enumerable: true, writable: true, configurable: true });
    if (isWritable(r, f)) Object.defineProperty(input, f.name, { value: described, enumerable: true, writable: true, configurable: true });
  }
  const plainNames = new Set(Object.keys(plain));
  const writable = new Set(Object.keys(input));
  // An open resource's other properties (additionalProperties, patternProperties at its root) are typed as written.
  const open = {
    additionalProperties: clean(r.bodyKeywords.additionalProperties ?? false),
    ...(r.bodyKeywords.patternProperties === undefined ? {} : { patternProperties: mapValues(r.bodyKeywords.patternProperties, clean) }),
  };
  return {
    [`${r.typeName}Fields`]: {
      type: "object",
      ...open,
      description: `The plain (non-link) fields of ${withArticle(r.name)}.`,
      required: [...new Set([...Object.keys(server), ...r.required.filter((n) => plainNames.has(n))])],
      properties: plain,
    },
    [`${r.typeName}Input`]: {
      type: "object",
      ...open,
      description: `Request body that creates or replaces ${withArticle(r.name)}.`,
      required: r.required.filter((n) => writable.has(n)),
      properties: input,
    },
  };
}

/**
 * The server's fields a resource says something of, typed as the server makes them: an `id` of a sequence
 * (a number, where the client's ServerFields has a string), and the id, createdAt and modifiedAt the
 * definition declares with a description (which becomes the field's documentation). The typed selections
 * take these over ServerFields.
 */
function serverFieldSchemas(model: Model, r: Resource): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const name of ["id", "createdAt", "modifiedAt"] as const) {
    const numeric = name === "id" && isNumericId(r.idForm);
    const { description } = serverFieldDoc(model, r, name);
    if (!description && !numeric) continue;
    setOwn(out, name, { type: numeric ? "integer" : "string", ...(description ? { description } : {}) });
  }
  return out;
}

/** The registry the typed selections read: every collection's plain fields and links with their targets. */
export function registryOf(model: Model): string {
  const registry = ident(model.clientTypes.Registry);
  const lines = ["/** Every collection: its plain fields, and its links with their targets (for typed selections). */", `export type ${registry} = {`];
  for (const r of model.resources) {
    const links = r.fields
      .filter((f) => f.link?.kind === "instance")
      .map((f) => `${key(f.name)}: { target: ${str(f.link!.target)}; required: ${r.required.includes(f.name)}${f.link!.nullable ? "; nullable: true" : ""} }`);
    const collections = r.fields.filter((f) => f.link?.kind === "collection").map((f) => `${key(f.name)}: { target: ${str(f.link!.target)} }`);
    lines.push(`  ${str(r.collection)}: {`, `    fields: ${ident(`${r.typeName}Fields`)};`, `    links: { ${links.join("; ")} };`, `    collections: { ${collections.join("; ")} };`, "  };");
  }
  lines.push("};", "");
  for (const r of model.resources) {
    const doc = r.description ? `${docComment(r.description)}\n` : "";
    lines.push(`${doc}export type ${ident(r.typeName)} = select.Expanded<${registry}, ${str(r.collection)}>;`);
  }
  return lines.join("\n") + "\n";
}

/** The bundled schema compiled once: every resource and action type under $defs. */
export function typesSchema(model: Model): Record<string, unknown> {
  const defs: Record<string, unknown> = {};
  for (const r of model.resources) Object.assign(defs, resourceSchemas(model, r));
  // A field's `{ "$ref": "#/$defs/<name>" }` names one of these: the bundle's $defs are the model's.
  // A shared schema that is a bare reference to another is an alias of it (json-schema-to-typescript would
  // otherwise make both names one object, declared under one of them).
  // A boolean one is written as the schema it stands for (json-schema-to-typescript fails on a $ref to a boolean).
  for (const shared of model.schemas) {
    const schema = clean(shared.schema);
    const def = schema === true ? {} : schema === false ? { tsType: "never" } : typeof (schema as { $ref?: unknown }).$ref === "string" ? { allOf: [schema] } : schema;
    setOwn(defs, shared.name, def);
  }
  for (const a of model.actions) {
    defs[`${a.typeName}Params`] = { ...(clean(a.query) as object), description: `Query parameters of ${a.name}.` };
    defs[`${a.typeName}Result`] = clean(a.response);
  }
  return { type: "object", additionalProperties: false, properties: {}, $defs: defs };
}

/** User files of removed resources and actions, whose type names stay defined so those files still compile. */
export interface Orphans {
  /** Type names (e.g. "Publisher", "PublisherInput", "TranslateParams") with the user file that uses them. */
  readonly types: readonly { readonly name: string; readonly file: string }[];
}

/**
 * json-schema-to-typescript's declarations of the bundle. It (with prettier and lodash) is loaded only
 * for a bundle ./ts-types.ts does not print, whose output is the same.
 */
export async function compileTypes(schema: Record<string, unknown>): Promise<string> {
  const { compile } = await import("json-schema-to-typescript");
  // json-schema-to-typescript calls schema.hasOwnProperty(…) on every object it walks, `properties` maps
  // included: a property named hasOwnProperty (or another Object.prototype member) crashes it. Such names
  // go in as placeholders, which it prints as it would the name, and come out as themselves.
  const names: string[] = [];
  const placeholder = (name: string): string => {
    let i = names.indexOf(name);
    if (i < 0) i = names.push(name) - 1;
    return `rsryProtoKey${i}x`;
  };
  const renamed = renameProtoKeys(schema, placeholder) as Record<string, unknown>;
  const out = await compile((names.length === 0 ? schema : renamed) as never, ROOT, {
    bannerComment: "",
    format: false,
    unreachableDefinitions: true,
    additionalProperties: false,
    declareExternallyReferenced: true,
    strictIndexSignatures: true,
  });
  return names.length === 0 ? out : out.replace(/rsryProtoKey(\d+)x/g, (_, i: string) => names[Number(i)]!);
}

/**
 * The schema with every `properties` key and `required` name that is an Object.prototype member renamed.
 * An object reached twice is copied once (typesSchema shares a property's schema between a resource's
 * fields and its input, which json-schema-to-typescript then parses once).
 */
function renameProtoKeys(value: unknown, rename: (name: string) => string, copies = new Map<object, unknown>()): unknown {
  if (value === null || typeof value !== "object") return value;
  const done = copies.get(value);
  if (done !== undefined) return done;
  if (Array.isArray(value)) {
    const list: unknown[] = [];
    copies.set(value, list);
    for (const v of value) list.push(renameProtoKeys(v, rename, copies));
    return list;
  }
  const out: Record<string, unknown> = {};
  copies.set(value, out);
  for (const [k, v] of Object.entries(value)) {
    let next: unknown;
    if (k === "properties" && v !== null && typeof v === "object" && !Array.isArray(v)) {
      const props: Record<string, unknown> = {};
      for (const [name, sub] of Object.entries(v)) setOwn(props, OBJECT_MEMBERS.has(name) ? rename(name) : name, renameProtoKeys(sub, rename, copies));
      next = props;
    } else if (k === "required" && Array.isArray(v)) {
      next = v.map((name) => (typeof name === "string" && OBJECT_MEMBERS.has(name) ? rename(name) : name));
    } else {
      next = renameProtoKeys(v, rename, copies);
    }
    setOwn(out, k, next);
  }
  return out;
}

/** client/types.ts (the one source of the types), and src/generated/types.ts re-exporting it for the server. */
export async function emitTypes(model: Model, orphans: Orphans = { types: [] }): Promise<EmittedFile[]> {
  const schema = typesSchema(model);
  const printed = printTypesOf(schema, ROOT);
  // A declined bundle is compiled the slow way: RESOURCERY_TIMING says so, and why.
  if (printed.declined !== undefined) mark(`types left to json-schema-to-typescript: ${printed.declined}`);
  const compiled = printed.text ?? (await compileTypes(schema));
  // Its string literals (property names, enum values) and comments hold the definitions' text as
  // they are: U+2028 and U+2029 are written as escapes (an escape in a comment reads the same).
  const body = compiled
    .replace(/[\u2028\u2029]/g, (c) => (c === "\u2028" ? "\\u2028" : "\\u2029"))
    .replace(/export interface Types \{\s*\}\n?/, "")
    .replace(/\/\*\*\n \* This interface was referenced by `Types`'s JSON-Schema\n \* via the `definition` "[^"]+".\n \*\/\n/g, "")
    .replace(/ \* This interface was referenced by `Types`'s JSON-Schema\n \* via the `definition` "[^"]+".\n/g, "");
  const contents = tsHeader("types of every resource and action") + "\n" + prelude(model) + "\n" + indentBraces(body).trim() + "\n\n" + registryOf(model);
  return [
    { path: "client/types.ts", contents, owner: "generated" },
    {
      path: "src/generated/types.ts",
      contents:
        tsHeader("types of every resource and action, shared with the client") +
        `export type * from "../../client/types.js";\n` +
        orphans.types
          // A name that is no identifier (a file renamed by hand) cannot be imported by that file either.
          .filter((t) => isSafeIdentifier(t.name))
          .map((t) => `\n${docComment(`@deprecated Its resource or action was removed from the definitions: delete ${t.file}, which still uses it.`)}\nexport type ${ident(t.name)} = Record<string, unknown>;\n`)
          .join(""),
      owner: "generated",
    },
  ];
}
