/**
 * Whether a property's schema is nullable: it names null (a type or type list with "null", null in its
 * enum or const, a branch of anyOf/oneOf that does) and nothing beside excludes it. A nullable property
 * is set to null by a merge patch, where null removes any other (RFC 7396). A schema that says nothing
 * of null (`{}`, `{ "description": … }`) is not nullable: null in a merge patch removes it. For a link,
 * the forms of CONTRACT §2 are nullable: `anyOf [{ $ref }, { "type": "null" }]`, and a $ref beside a type
 * with "null".
 */
import type { JsonSchema } from "./types.js";

/** Resolves a `$ref` of a schema to the schema it names; undefined when it cannot. */
export type ResolveRef = (ref: string) => JsonSchema | undefined;

/**
 * True when null is a value `schema` names and allows.
 * @example isNullable({ type: ["string", "null"] }) === true
 * @example isNullable({ anyOf: [{ type: "string" }, { type: "null" }] }) === true
 * @example isNullable({ type: "string" }) === false
 */
export function isNullable(schema: JsonSchema, resolve?: ResolveRef): boolean {
  return names(schema, resolve, new Set(), new Map()) && allows(schema, resolve, new Set(), new Map());
}

type Json = Readonly<Record<string, unknown>>;

function isObject(value: unknown): value is Json {
  return value !== null && typeof value === "object" && !Array.isArray(value);
}

/** What a judgement found for each `$ref` it followed: each is judged once (a DAG of $refs stays linear). */
type Judged = Map<string, boolean | undefined>;

/**
 * `judge` of the schema a `$ref` of `s` names; undefined without a $ref, when it cannot be resolved, or
 * when it is already being judged further up (a cycle of $refs ends). Each $ref is judged once per
 * question (`judged`): a schema whose branches refer to the same schemas again is not walked once per path.
 */
function viaRef(s: Json, resolve: ResolveRef | undefined, seen: ReadonlySet<string>, judged: Judged, judge: (t: JsonSchema, seen: ReadonlySet<string>) => boolean): boolean | undefined {
  if (typeof s.$ref !== "string" || resolve === undefined || seen.has(s.$ref)) return undefined;
  if (judged.has(s.$ref)) return judged.get(s.$ref);
  const t = resolve(s.$ref);
  const found = t === undefined ? undefined : judge(t, new Set(seen).add(s.$ref));
  judged.set(s.$ref, found);
  return found;
}

/** True when the schema, or a part of it, says null outright. */
function names(schema: unknown, resolve: ResolveRef | undefined, seen: ReadonlySet<string>, judged: Judged): boolean {
  if (!isObject(schema)) return false;
  if (schema.type === "null" || (Array.isArray(schema.type) && schema.type.includes("null"))) return true;
  if (Array.isArray(schema.enum) && schema.enum.includes(null)) return true;
  if (Object.hasOwn(schema, "const") && schema.const === null) return true;
  for (const k of ["anyOf", "oneOf", "allOf"]) {
    const parts = schema[k];
    if (Array.isArray(parts) && parts.some((p) => names(p, resolve, seen, judged))) return true;
  }
  return viaRef(schema, resolve, seen, judged, (t, inner) => names(t, resolve, inner, judged)) === true;
}

/**
 * True when no keyword of the schema refuses null. A $ref that cannot be resolved (a link to a resource,
 * an object) refuses it, unless a type beside it names null.
 */
function allows(schema: unknown, resolve: ResolveRef | undefined, seen: ReadonlySet<string>, judged: Judged): boolean {
  if (typeof schema === "boolean") return schema;
  if (!isObject(schema)) return false;
  const { type } = schema;
  if (typeof type === "string" && type !== "null") return false;
  if (Array.isArray(type) && !type.includes("null")) return false;
  if (Array.isArray(schema.enum) && !schema.enum.includes(null)) return false;
  if (Object.hasOwn(schema, "const") && schema.const !== null) return false;
  const anyOf = schema.anyOf;
  if (Array.isArray(anyOf) && !anyOf.some((p) => allows(p, resolve, seen, judged))) return false;
  const oneOf = schema.oneOf;
  if (Array.isArray(oneOf) && oneOf.filter((p) => allows(p, resolve, seen, judged)).length !== 1) return false;
  const allOf = schema.allOf;
  if (Array.isArray(allOf) && !allOf.every((p) => allows(p, resolve, seen, judged))) return false;
  if (typeof schema.$ref !== "string") return true;
  // A type that names null beside a $ref is the contract's nullable link (`"type": ["object", "null"]`).
  if (type === "null" || (Array.isArray(type) && type.includes("null"))) return true;
  return viaRef(schema, resolve, seen, judged, (t, inner) => allows(t, resolve, inner, judged)) === true;
}
