/**
 * Prints the declarations json-schema-to-typescript (16.x) compiles from the bundled types schema
 * (typesSchema in ./types.ts, compiled with emitTypes's options), byte for byte, without loading it:
 * on real APIs of 500–900 schemas its compile (and its $ref resolution) takes a second or more, this a
 * fraction of that.
 *
 * Covers the JSON Schema subset definitions use (type, enum, const, properties, required,
 * additionalProperties, items, min/maxItems, allOf, anyOf, oneOf, `$ref`s between the bundle's
 * definitions, description, deprecated, tsType and keywords with no effect on the type) by following
 * its pipeline step by step, quirks included: dereference (a `$ref` becomes its definition, which is then
 * named wherever it is used), link, normalize (in its traversal order), parse, optimize (in
 * ./ts-types-ast.ts), generate (./ts-types-generate.ts). A bundle with anything else is declined with
 * the reason, and compiled by it instead.
 * test/unit/emit/types.test.ts holds the two to the same output: on the examples, the fixtures, the real
 * APIs' bundles (when test/real-apis is installed) and random bundles.
 */
import { setOwn } from "../model/build-schema.js";
import { isPlainObject, Outside, Printer, toSafeString, typeOfSchema, type Schema } from "./ts-types-ast.js";

/** What printTypesOf answers: the declarations, or why the bundle is left to json-schema-to-typescript. */
export type Printed = { readonly text: string; readonly declined?: undefined } | { readonly text?: undefined; readonly declined: string };

/** Keywords that never change the printed type, as long as their value is a scalar (as it is in a valid schema). */
const INERT = new Set([
  "format", "pattern", "minLength", "maxLength", "minimum", "maximum", "exclusiveMinimum", "exclusiveMaximum", "multipleOf",
  "uniqueItems", "minProperties", "maxProperties", "minContains", "maxContains", "readOnly", "writeOnly", "contentMediaType",
  "contentEncoding", "unevaluatedProperties", "unevaluatedItems", "$anchor",
]);

/**
 * Keys that make json-schema-to-typescript read an object inside `default` or `examples` as a schema
 * (it resolves every $ref, and normalizes and validates objects inside examples): data holding one
 * could change or break its compile, so such a bundle is left to it.
 */
const SCHEMA_KEYS_IN_DATA = new Set([
  "$ref", "$id", "$defs", "definitions", "minItems", "maxItems", "deprecated", "tsEnumNames", "nullable",
  "anyOf", "allOf", "oneOf", "not", "items", "additionalItems", "dependencies",
]);

const TYPE_NAMES = new Set(["string", "number", "integer", "boolean", "null", "object", "array"]);

/** How the bundle refers to one of its definitions. */
const DEF_REF = "#/$defs/";

/**
 * What json-schema-to-typescript's `compile(schema, name, options)` returns for the bundle, with the
 * options emitTypes passes, or undefined when the bundle uses anything outside the subset.
 */
export function printTypes(bundle: Schema, name: string): string | undefined {
  return printTypesOf(bundle, name).text;
}

/** printTypes, saying why when it declines (emitTypes counts the bundles it leaves to json-schema-to-typescript). */
export function printTypesOf(bundle: Schema, name: string): Printed {
  if (!/^[A-Z][A-Za-z]*$/.test(name)) return { declined: "a root name that is not a plain identifier" };
  if (!isBundle(bundle)) return { declined: "not a bundle of definitions" };
  try {
    const tree = new Tree(bundle);
    normalize(tree);
    const printer = new Printer(tree.root, tree.idNames);
    return { text: printer.generate(printer.optimize(printer.parseRoot(name))) };
  } catch (e) {
    if (e instanceof Outside) return { declined: e.reason };
    throw e;
  }
}

// ---------------------------------------------------------------------------------------------
// The subset, dereferenced and linked

/** The shape typesSchema builds: an empty closed object whose $defs hold the types. */
function isBundle(s: Schema): boolean {
  return (
    Object.keys(s).length === 4 &&
    s.type === "object" &&
    s.additionalProperties === false &&
    isPlainObject(s.properties) &&
    Object.keys(s.properties).length === 0 &&
    isPlainObject(s.$defs)
  );
}

/**
 * The copy the steps below mutate, made while checking every schema keeps to the subset (Outside if
 * not), as json-schema-to-typescript's resolver leaves it: every `{ "$ref": "#/$defs/<name>" }` is the
 * definition itself (one object wherever it is used). Values (enum, examples…) are shared, as the steps
 * only replace them. Any other schema reached twice stays one object too, as with lodash's cloneDeep,
 * where typesSchema shares one: a property's schema in several `properties` (a resource's fields and its
 * input); shared anywhere else, its place in the traversal could matter: not followed.
 *
 * Copies in the order its linker walks the resolved schema (every key, in order), so that each copy's
 * parent is the linker's: the object holding it where it is first reached (a `properties` map, a list
 * of `anyOf`…), which two of the normalizer's rules read.
 */
class Tree {
  readonly parents = new Map<object, object | null>();
  /** Every schema object of the copy (not the data inside examples). */
  readonly schemas = new Set<object>();
  /** Definitions a $ref reaches, each with the name its reference gives it (the normalizer's `$id`), once known. */
  readonly idNames = new Map<object, string>();
  readonly referenced = new Map<object, string>();
  readonly root: Schema;
  private readonly copies = new Map<object, Schema>();
  private readonly properties = new Set<object>();
  private readonly defSources: Schema;
  private readonly defCopies = new Map<string, unknown>();

  constructor(bundle: Schema) {
    this.defSources = bundle.$defs as Schema;
    const root: Schema = {};
    this.parents.set(root, null);
    this.schemas.add(root);
    for (const k of Object.keys(bundle)) {
      if (k !== "$defs") {
        root[k] = k === "properties" ? this.map({}, root) : bundle[k];
        continue;
      }
      const map: Schema = {};
      this.parents.set(map, root);
      root.$defs = map;
      for (const key of Object.keys(this.defSources)) {
        // Type names are made safe with lodash's deburr for non-ASCII letters: keep to ASCII.
        if (!/^[\x20-\x7e]*$/.test(key)) throw new Outside("a definition name that is not ASCII");
        setOwn(map, key, this.definition(key, map));
      }
    }
    this.root = root;
  }

  /** The copy of a definition, made where it is first reached (from the $defs map, or from a $ref before). */
  private definition(key: string, parent: object): unknown {
    if (this.defCopies.has(key)) return this.defCopies.get(key);
    const source = this.defSources[key];
    // The resolver would make it an alias of another definition (one object under two names).
    if (isPlainObject(source) && typeof source.$ref === "string") throw new Outside("a definition that is a $ref");
    if (typeof source === "boolean") {
      this.defCopies.set(key, source);
      return source;
    }
    if (!isPlainObject(source)) throw new Outside("a definition that is not a schema");
    if (this.copies.has(source)) throw new Outside("a schema object used in two places");
    const copy: Schema = {};
    this.defCopies.set(key, copy);
    this.copies.set(source, copy);
    this.fill(copy, source, parent);
    return copy;
  }

  schema(s: unknown, parent: object): unknown {
    if (typeof s === "boolean") return s;
    if (!isPlainObject(s)) throw new Outside("a schema that is not an object");
    if (Object.hasOwn(s, "$ref")) return this.reference(s, parent);
    const done = this.copies.get(s);
    if (done) {
      if (!this.properties.has(parent) || !this.properties.has(this.parents.get(done)!)) throw new Outside("a schema object used in two places");
      return done;
    }
    const out: Schema = {};
    this.copies.set(s, out);
    this.fill(out, s, parent);
    return out;
  }

  /** `{ "$ref": "#/$defs/<name>" }`, resolved to the definition as the resolver does (keywords beside it would make a copy). */
  private reference(s: Schema, parent: object): unknown {
    const ref = s.$ref;
    if (Object.keys(s).length !== 1 || typeof ref !== "string" || !ref.startsWith(DEF_REF)) throw new Outside("a $ref other than a bare one to a definition");
    const key = ref.slice(DEF_REF.length);
    // A pointer token with escapes names another key than its text.
    if (/[~%/]/.test(key) || !Object.hasOwn(this.defSources, key)) throw new Outside("a $ref to no definition");
    const target = this.definition(key, parent);
    // (It fails on one: its resolver records every target in a WeakMap.)
    if (typeof target === "boolean") throw new Outside("a $ref to a boolean schema");
    this.referenced.set(target as object, key);
    return target;
  }

  private fill(out: Schema, s: Schema, parent: object): void {
    this.parents.set(out, parent);
    this.schemas.add(out);
    for (const k of Object.keys(s)) {
      const v = s[k];
      if (k === "properties") out[k] = this.map(v, out);
      else if (k === "items" || k === "additionalProperties") out[k] = this.schema(v, out);
      else if (k === "allOf" || k === "anyOf" || k === "oneOf") out[k] = this.list(v, out);
      else if (isSubsetKeyword(k, v)) out[k] = v;
      else throw new Outside(`the keyword ${JSON.stringify(k)}${INERT.has(k) || k === "default" || k === "examples" ? " with this value" : ""}`);
    }
    // json-schema-to-typescript rejects such a schema (a validation error): leave the error to it.
    if (typeof s.minItems === "number" && typeof s.maxItems === "number" && s.maxItems < s.minItems) throw new Outside("maxItems below minItems");
  }

  private map(v: unknown, parent: Schema): Schema {
    if (!isPlainObject(v)) throw new Outside("properties that are not an object");
    const map: Schema = {};
    this.parents.set(map, parent);
    this.properties.add(map);
    for (const name of Object.keys(v)) setOwn(map, name, this.schema(v[name], map));
    return map;
  }

  private list(v: unknown, parent: Schema): unknown[] {
    if (!Array.isArray(v)) throw new Outside("an allOf, anyOf or oneOf that is not a list");
    const list: unknown[] = [];
    this.parents.set(list, parent);
    for (const item of v) list.push(this.schema(item, list));
    return list;
  }
}

/** The keywords of the subset, besides those holding schemas, with the values it follows. */
function isSubsetKeyword(k: string, v: unknown): boolean {
  switch (k) {
    case "type":
      return typeof v === "string" ? TYPE_NAMES.has(v) : Array.isArray(v) && v.length > 0 && v.every((t) => TYPE_NAMES.has(t as string));
    case "enum":
      return Array.isArray(v) && v.every(isPlainData);
    case "const":
      return isPlainData(v);
    case "required":
      return Array.isArray(v) && v.every((x) => typeof x === "string");
    case "description":
      return typeof v === "string";
    case "tsType":
      return typeof v === "string" && v !== "";
    case "deprecated":
      return typeof v === "boolean";
    case "minItems":
    case "maxItems":
      return Number.isSafeInteger(v) && (v as number) >= 0;
    case "default":
    case "examples":
      return isPlainData(v);
    default:
      return INERT.has(k) && (v === null || typeof v !== "object");
  }
}

function isScalar(v: unknown): boolean {
  return v === null || typeof v === "string" || typeof v === "boolean" || (typeof v === "number" && Number.isFinite(v));
}

function isPlainData(v: unknown): boolean {
  if (Array.isArray(v)) return v.every(isPlainData);
  if (isPlainObject(v)) return Object.entries(v).every(([k, x]) => !SCHEMA_KEYS_IN_DATA.has(k) && isPlainData(x));
  return isScalar(v);
}

// ---------------------------------------------------------------------------------------------
// normalizer.ts: its rules that act on the subset, in its order

function hasType(s: Schema, type: string): boolean {
  return s.type === type || (Array.isArray(s.type) && s.type.includes(type));
}

function isObjectType(s: Schema): boolean {
  return s.properties !== undefined || hasType(s, "object");
}

/** (Also asked of a `properties` map, by the maxItems rule below: true when it has a property named "items".) */
function isArrayType(s: Schema): boolean {
  return s.items !== undefined || hasType(s, "array");
}

/** Keys of the schema objects its traversal does not follow into as maps of schemas (utils.ts BLACKLISTED_KEYS). */
const NOT_TRAVERSED = new Set([
  "id", "$defs", "$id", "$schema", "title", "description", "default", "multipleOf", "maximum", "exclusiveMaximum", "minimum",
  "exclusiveMinimum", "maxLength", "minLength", "pattern", "additionalItems", "items", "maxItems", "minItems", "uniqueItems",
  "maxProperties", "minProperties", "required", "additionalProperties", "definitions", "properties", "patternProperties",
  "dependencies", "enum", "type", "allOf", "anyOf", "oneOf", "not",
]);

/**
 * The schemas in the order its rules visit them (utils.traverse: each once, the schema, then its anyOf,
 * allOf, oneOf, properties, additionalProperties, items, $defs, then any other key's objects). It also
 * visits the objects inside examples and defaults, on which its rules have no effect that shows.
 */
function traversalOrder(root: Schema, schemas: ReadonlySet<object>): Schema[] {
  const out: Schema[] = [];
  const processed = new Set<unknown>();
  const visit = (s: unknown): void => {
    if (processed.has(s)) return;
    processed.add(s);
    if (!isPlainObject(s)) return;
    if (schemas.has(s)) out.push(s);
    for (const key of ["anyOf", "allOf", "oneOf"]) if (Array.isArray(s[key])) (s[key] as unknown[]).forEach(visit);
    if (isPlainObject(s.properties)) visitValues(s.properties);
    if (s.additionalProperties && typeof s.additionalProperties === "object") visit(s.additionalProperties);
    if (s.items) {
      if (Array.isArray(s.items)) s.items.forEach(visit);
      else visit(s.items);
    }
    if (isPlainObject(s.$defs)) visitValues(s.$defs);
    for (const key of Object.keys(s)) {
      const child = s[key];
      if (!NOT_TRAVERSED.has(key) && child && typeof child === "object") visitValues(child as Schema);
    }
  };
  const visitValues = (o: Schema): void => {
    for (const k of Object.keys(o)) {
      const v = o[k];
      if (v && typeof v === "object" && !Array.isArray(v)) visit(v);
    }
  };
  visit(root);
  return out;
}

/** utils.isSchemaLike: not a value its parent holds under a keyword of lists or maps (as the linker left it). */
function isSchemaLike(s: Schema, parents: ReadonlyMap<object, object | null>): boolean {
  const parent = parents.get(s) as Schema | null | undefined;
  if (!parent) return true;
  return !["$defs", "allOf", "anyOf", "definitions", "dependencies", "enum", "not", "oneOf", "patternProperties", "properties", "required"].some((k) => parent[k] === s);
}

/**
 * The normalizer's effect on the subset, in place. Its rules each walk the whole tree in turn, in its
 * traversal order; here the rules that read only their own schema share a pass. (It also walks into
 * objects inside examples; what it does to them never shows, as isPlainData makes sure.)
 */
function normalize(tree: Tree): void {
  const { parents, referenced, idNames } = tree;
  const schemas = traversalOrder(tree.root, tree.schemas);
  for (const s of schemas) {
    // Remove `type=["null"]` if `enum=[null]`, then destructure unary types
    if (Array.isArray(s.enum) && s.enum.includes(null) && Array.isArray(s.type) && s.type.includes("null")) s.type = s.type.filter((t) => t !== "null");
    if (Array.isArray(s.type) && s.type.length === 1) s.type = s.type[0];
    if (isObjectType(s) && !("required" in s)) s.required = [];
    if (isObjectType(s) && !("additionalProperties" in s)) s.additionalProperties = false;
    // Add an $id to anything that needs it: a definition reached by a $ref, if an object or an array
    // (kept aside: it only names the schema, as its definition's key would, and only then)
    const key = referenced.get(s);
    if (key !== undefined && isSchemaLike(s, parents) && (isArrayType(s) || isObjectType(s))) idNames.set(s, toSafeString(key));
    if (typeof s.description === "string") s.description = s.description.replace(/\*\//g, "* /");
    if (isArrayType(s)) {
      const tags = ["minItems" in s ? `@minItems ${String(s.minItems)}` : "", "maxItems" in s ? `@maxItems ${String(s.maxItems)}` : ""].filter(Boolean);
      if (tags.length) s.description = s.description ? `${String(s.description)}\n\n${tags.join("\n")}` : tags.join("\n");
      s.minItems = typeof s.minItems === "number" ? s.minItems : 0;
    }
  }
  // Remove maxItems if it is big enough to likely cause OOMs (its bound multiplies with enclosing
  // arrays'; the walk up follows the linker's parents, and so may pass through a `properties` map)
  for (const s of schemas) {
    if (!isArrayType(s) || s.maxItems === undefined) continue;
    let multiplier = 1;
    let child: object = s;
    let parent = parents.get(s) as Schema | null | undefined;
    while (parent && !Array.isArray(parent) && isArrayType(parent) && parent.items === child) {
      multiplier *= typeof parent.maxItems === "number" ? parent.maxItems : ((parent.minItems as number) || 1);
      child = parent;
      parent = parents.get(parent) as Schema | null | undefined;
    }
    if (((s.maxItems as number) - (s.minItems as number)) * multiplier > 20) delete s.maxItems;
  }
  for (const s of schemas) {
    // Normalize schema.items: bounds turn the items into a tuple (as long as the bound: never trimmed after)
    const { maxItems, minItems } = s;
    const hasMaxItems = typeof maxItems === "number" && maxItems >= 0;
    const hasMinItems = typeof minItems === "number" && minItems > 0;
    if (s.items && !Array.isArray(s.items) && (hasMaxItems || hasMinItems)) {
      const items = s.items;
      const tuple = Array<unknown>((maxItems as number) || (minItems as number) || 0).fill(items);
      if (!hasMaxItems) s.additionalItems = items;
      s.items = tuple;
    }
    // Transform const to singleton enum
    if (s.const !== undefined) {
      s.enum = [s.const];
      delete s.const;
    }
  }
  // Pre-calculate schema types: a schema read as an intersection of types is outside the subset
  for (const s of schemas) typeOfSchema(s);
}
