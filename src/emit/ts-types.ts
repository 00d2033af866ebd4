/**
 * Prints the declarations json-schema-to-typescript (16.x) compiles from the bundled types schema
 * (typesSchema in ./types.ts, compiled with emitTypes's options), byte for byte, without loading it:
 * for 500 resources its compile takes about 0.75 s (plus 60 ms to load it, with prettier and lodash),
 * this about 0.1 s.
 *
 * Covers the JSON Schema subset resource definitions use (type, enum, const, properties, required,
 * additionalProperties, items, min/maxItems, description, deprecated, tsType and keywords with no
 * effect on the type) by following its pipeline step by step, quirks included (array bounds become
 * tuples, a schema without a type that is not `{}` becomes an open interface, …): normalize, parse,
 * optimize, generate. A bundle with anything else answers undefined and is compiled by it instead.
 * test/unit/emit/types.test.ts holds the two to the same output, on the examples and on random schemas.
 */

type Schema = Record<string, unknown>;

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

/** Raised where the bundle leaves the subset: while it is copied, or at a schema json-schema-to-typescript reads as an intersection of types. */
class Outside extends Error {}

/**
 * What json-schema-to-typescript's `compile(schema, name, options)` returns for the bundle, with the
 * options emitTypes passes, or undefined when the bundle uses anything outside the subset.
 */
export function printTypes(bundle: Schema, name: string): string | undefined {
  if (!/^[A-Z][A-Za-z]*$/.test(name) || !isBundle(bundle)) return undefined;
  try {
    const tree = new Tree();
    const root = tree.schema(bundle, null) as Schema;
    normalize(tree);
    const cx = new Printer(root);
    return cx.generate(cx.optimize(cx.parseRoot(name)));
  } catch (e) {
    if (e instanceof Outside) return undefined;
    throw e;
  }
}

// ---------------------------------------------------------------------------------------------
// The subset

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
 * not). Values (enum, examples…) are shared, as the steps only replace them. A schema reached twice
 * stays one object, as with lodash's cloneDeep, where typesSchema shares one: a property's schema in
 * several `properties` (a resource's fields and its input). Shared anywhere else, its place in the
 * traversal could matter; a shared definition would be referred to by name: neither is followed.
 * Records each copy's parent as its linker does (where it is first reached), and the schemas
 * parent first, the order the normalizer's rules need.
 */
class Tree {
  readonly parents = new Map<object, object | null>();
  readonly schemas: Schema[] = [];
  private readonly copies = new Map<object, Schema>();
  private readonly properties = new Set<object>();

  schema(s: unknown, parent: object | null): unknown {
    if (typeof s === "boolean") return s;
    if (!isPlainObject(s)) throw new Outside();
    const done = this.copies.get(s);
    if (done) {
      if (!this.properties.has(parent!) || !this.properties.has(this.parents.get(done)!)) throw new Outside();
      return done;
    }
    const out: Schema = {};
    this.copies.set(s, out);
    this.parents.set(out, parent);
    this.schemas.push(out);
    for (const k of Object.keys(s)) {
      const v = s[k];
      if (k === "properties") out[k] = this.map(v, out, false);
      else if (k === "$defs" && parent === null) out[k] = this.map(v, out, true);
      else if (k === "items" || k === "additionalProperties") out[k] = this.schema(v, out);
      else if (isSubsetKeyword(k, v)) out[k] = v;
      else throw new Outside();
    }
    // json-schema-to-typescript rejects such a schema (a validation error): leave the error to it.
    if (typeof s.minItems === "number" && typeof s.maxItems === "number" && s.maxItems < s.minItems) throw new Outside();
    return out;
  }

  private map(v: unknown, parent: Schema, defs: boolean): Schema {
    if (!isPlainObject(v)) throw new Outside();
    const map: Schema = {};
    this.parents.set(map, parent);
    if (!defs) this.properties.add(map);
    // Type names are made safe with lodash's deburr for non-ASCII letters: keep to ASCII.
    for (const name of Object.keys(v)) {
      if (defs && !/^[\x20-\x7e]*$/.test(name)) throw new Outside();
      setOwn(map, name, this.schema(v[name], map));
    }
    return map;
  }
}

/** The keywords of the subset, besides those holding schemas, with the values it follows. */
function isSubsetKeyword(k: string, v: unknown): boolean {
  switch (k) {
    case "type":
      return typeof v === "string" ? TYPE_NAMES.has(v) : Array.isArray(v) && v.length > 0 && v.every((t) => TYPE_NAMES.has(t as string));
    case "enum":
      return Array.isArray(v) && v.every(isScalar);
    case "const":
      return isScalar(v);
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

function isPlainObject(v: unknown): v is Schema {
  if (v === null || typeof v !== "object" || Array.isArray(v)) return false;
  const proto = Object.getPrototypeOf(v) as unknown;
  return proto === Object.prototype || proto === null;
}

/** Sets an own property, so a "__proto__" property name stays data. */
function setOwn(target: Schema, key: string, value: unknown): void {
  if (key === "__proto__") Object.defineProperty(target, key, { value, enumerable: true, writable: true, configurable: true });
  else target[key] = value;
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

/**
 * The normalizer's effect on the subset, in place. Its rules each walk the whole tree in turn, parent
 * first; here the rules that read only their own schema share a pass. (It also walks into objects
 * inside examples; what it does to them never shows, as isPlainData makes sure.)
 */
function normalize({ schemas, parents }: Tree): void {
  for (const s of schemas) {
    // Remove `type=["null"]` if `enum=[null]`, then destructure unary types
    if (Array.isArray(s.enum) && s.enum.includes(null) && Array.isArray(s.type) && s.type.includes("null")) s.type = s.type.filter((t) => t !== "null");
    if (Array.isArray(s.type) && s.type.length === 1) s.type = s.type[0];
    if (isObjectType(s) && !("required" in s)) s.required = [];
    if (isObjectType(s) && !("additionalProperties" in s)) s.additionalProperties = false;
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
    while (parent && isArrayType(parent) && parent.items === child) {
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
}

// ---------------------------------------------------------------------------------------------
// The AST (types/AST.ts), for the node types the subset produces

interface Meta {
  comment?: string | undefined;
  deprecated?: boolean | undefined;
  standaloneName?: string | undefined;
}

type Ast = Meta &
  (
    | { type: "BOOLEAN" | "NEVER" | "NULL" | "NUMBER" | "STRING" | "UNKNOWN" }
    | { type: "LITERAL"; params: unknown }
    | { type: "CUSTOM_TYPE"; params: string }
    | { type: "ARRAY"; params: Ast }
    | { type: "TUPLE"; params: Ast[]; spreadParam: Ast | undefined; minItems: number }
    | { type: "UNION"; params: Ast[] }
    | { type: "INTERFACE"; params: Param[] }
  );

interface Param {
  ast: Ast;
  keyName: string;
  isRequired: boolean;
  isIndexSignature: boolean;
  isUnreachableDefinition: boolean;
}

const T_UNKNOWN: Ast = { type: "UNKNOWN" };

type SchemaType = "ANY" | "BOOLEAN" | "CUSTOM_TYPE" | "NULL" | "NUMBER" | "STRING" | "TYPED_ARRAY" | "UNION" | "UNNAMED_ENUM" | "UNNAMED_SCHEMA" | "UNTYPED_ARRAY";

/**
 * typesOfSchema.ts: what a (normalized) schema is read as; more than one match is an intersection,
 * outside the port. (Its OBJECT never matches: the normalizer gave every object schema a `required`.)
 */
function typeOfSchema(s: Schema): SchemaType {
  if (s.tsType) return "CUSTOM_TYPE";
  const compound = Array.isArray(s.type);
  const matched: SchemaType[] = [];
  if (Object.keys(s).length === 0) matched.push("ANY");
  if (!("enum" in s) && (s.type === "boolean" || (!compound && typeof s.default === "boolean"))) matched.push("BOOLEAN");
  if (s.type === "null") matched.push("NULL");
  if (!("enum" in s) && (s.type === "integer" || s.type === "number" || (!compound && typeof s.default === "number"))) matched.push("NUMBER");
  if (!("enum" in s) && (s.type === "string" || (!compound && typeof s.default === "string"))) matched.push("STRING");
  if ((!s.type || s.type === "array") && "items" in s) matched.push("TYPED_ARRAY");
  if (compound) matched.push("UNION");
  if ((!s.type || s.type === "boolean" || s.type === "integer" || s.type === "number" || s.type === "string") && "enum" in s) matched.push("UNNAMED_ENUM");
  if ((s.type === undefined || s.type === "object") && "properties" in s) matched.push("UNNAMED_SCHEMA");
  if (s.type === "array" && !("items" in s)) matched.push("UNTYPED_ARRAY");
  if (matched.length > 1) throw new Outside();
  return matched[0] ?? "UNNAMED_SCHEMA";
}

/** utils.toSafeString, for ASCII (the subset's type names). */
function toSafeString(s: string): string {
  if (/^[A-Z][A-Za-z0-9]*$/.test(s) && !/\d[a-z]/.test(s)) return s; // already safe: every step below keeps it
  const safe = s
    .replace(/(^\s*[^a-zA-Z_$])|([^a-zA-Z_$\d])/g, " ")
    .replace(/^_[a-z]/g, (m) => m.toUpperCase())
    .replace(/_[a-z]/g, (m) => m.slice(1).toUpperCase())
    .replace(/([\d$]+[a-zA-Z])/g, (m) => m.toUpperCase())
    .replace(/\s+([a-zA-Z])/g, (m) => m.toUpperCase().trim())
    .replace(/\s/g, "")
    .replace(/^\d+/, "");
  return safe.charAt(0).toUpperCase() + safe.slice(1);
}

function hasStandaloneName(ast: Ast): boolean {
  return ast.standaloneName != null && ast.standaloneName !== "";
}

function hasComment(ast: Meta): boolean {
  return (ast.comment != null && ast.comment !== "") || ast.deprecated === true;
}

/** One compile: parser.ts, optimizer.ts and generator.ts for the subset. */
class Printer {
  private readonly usedNames = new Set<string>();
  private readonly parsed = new Map<object, Ast>();
  /** Definition → its key under the root's $defs. */
  private readonly defKeys: Map<unknown, string>;
  private readonly generated = new Map<Ast, string>();

  constructor(private readonly root: Schema) {
    this.defKeys = new Map(Object.entries(root.$defs as Schema).map(([k, v]) => [v, k]));
  }

  /** utils.generateName: the safe name, numbered from 1 when taken. */
  private generateName(from: string): string {
    let name = toSafeString(from) || "NoName";
    if (this.usedNames.has(name)) {
      let counter = 1;
      while (this.usedNames.has(`${name}${counter}`)) counter++;
      name = `${name}${counter}`;
    }
    this.usedNames.add(name);
    return name;
  }

  /** The root: an interface named `name`, whose definitions are all declared ("unreachable definitions"). */
  parseRoot(name: string): Ast {
    const standaloneName = this.generateName(name);
    const params = Object.entries(this.root.$defs as Schema).map(([key, value]): Param => {
      const ast = this.parse(value);
      const comment = `This interface was referenced by \`${standaloneName}\`'s JSON-Schema\nvia the \`definition\` "${key}".`;
      ast.comment = ast.comment ? `${ast.comment}\n\n${comment}` : comment;
      return { ast, keyName: key, isRequired: false, isIndexSignature: false, isUnreachableDefinition: true };
    });
    return { type: "INTERFACE", standaloneName, params };
  }

  private parse(schema: unknown): Ast {
    if (typeof schema === "boolean") return { type: schema ? "UNKNOWN" : "NEVER" };
    if (!isPlainObject(schema)) throw new Outside();
    let ast = this.parsed.get(schema);
    if (!ast) this.parsed.set(schema, (ast = this.parseNode(schema)));
    return ast;
  }

  private parseNode(s: Schema): Ast {
    const type = typeOfSchema(s);
    // Only definitions are named (no title or $id below the root), before what they hold is parsed.
    const key = this.defKeys.get(s);
    const standaloneName = key === undefined ? undefined : this.generateName(key);
    const comment = s.description as string | undefined;
    const deprecated = s.deprecated as boolean | undefined;
    switch (type) {
      case "ANY":
        return { type: "UNKNOWN", comment, deprecated, standaloneName };
      case "BOOLEAN":
      case "NULL":
      case "NUMBER":
      case "STRING":
        return { type, comment, deprecated, standaloneName };
      case "CUSTOM_TYPE":
        return { type: "CUSTOM_TYPE", params: s.tsType as string, comment, deprecated, standaloneName };
      case "TYPED_ARRAY": {
        if (!Array.isArray(s.items)) return { type: "ARRAY", params: this.parse(s.items), comment, deprecated, standaloneName };
        const params = s.items.map((x) => this.parse(x));
        const spreadParam = s.additionalItems === true ? T_UNKNOWN : s.additionalItems ? this.parse(s.additionalItems) : undefined;
        return { type: "TUPLE", params, spreadParam, minItems: s.minItems as number, comment, deprecated, standaloneName };
      }
      case "UNION": {
        // Each type is parsed as a copy of the schema with that type (and no description)
        const params = (s.type as string[]).map((t) => {
          const member: Schema = {};
          for (const [k, v] of Object.entries(s)) if (k !== "description") member[k] = v;
          member.type = t;
          stripMismatchedDefault(member);
          return this.parse(member);
        });
        return { type: "UNION", params, comment, deprecated, standaloneName };
      }
      case "UNNAMED_ENUM":
        return { type: "UNION", params: (s.enum as unknown[]).map((v): Ast => ({ type: "LITERAL", params: v })), comment, deprecated, standaloneName };
      case "UNNAMED_SCHEMA":
        return { type: "INTERFACE", params: this.parseProperties(s), comment, deprecated, standaloneName };
      case "UNTYPED_ARRAY": {
        const minItems = s.minItems as number;
        const maxItems = typeof s.maxItems === "number" ? s.maxItems : -1;
        if (minItems <= 0 && maxItems < 0) return { type: "ARRAY", params: T_UNKNOWN, comment, deprecated, standaloneName };
        const params = Array<Ast>(Math.max(maxItems, minItems) || 0).fill(T_UNKNOWN);
        return { type: "TUPLE", params, spreadParam: maxItems >= 0 ? undefined : T_UNKNOWN, minItems, comment, deprecated, standaloneName };
      }
    }
  }

  private parseProperties(s: Schema): Param[] {
    const properties = (s.properties ?? {}) as Schema;
    const params = Object.keys(properties).map((key): Param => {
      const isRequired = Array.isArray(s.required) && s.required.includes(key);
      return { ast: this.parse(properties[key]), keyName: key, isRequired, isIndexSignature: false, isUnreachableDefinition: false };
    });
    const extra = s.additionalProperties;
    if (extra === false) return params;
    const ast = extra === true || extra === undefined ? T_UNKNOWN : this.parse(extra);
    return [...params, { ast, keyName: "[k: string]", isRequired: true, isIndexSignature: true, isUnreachableDefinition: false }];
  }

  // optimizer.ts

  optimize(ast: Ast, seen = new Set<Ast>()): Ast {
    if (seen.has(ast)) return ast;
    seen.add(ast);
    switch (ast.type) {
      case "ARRAY":
        ast.params = this.optimize(ast.params, seen);
        return ast;
      case "INTERFACE":
        for (const p of ast.params) p.ast = this.optimize(p.ast, seen);
        return ast;
      case "UNION": {
        ast.params = ast.params.map((p) => this.optimize(p, seen));
        // (Its "[A, unknown] -> unknown" and "[A (named), A] -> [A (named)]" never apply here: a
        // union's members are literals or typed schemas, and nothing below the root is named.)
        const seenTypes = new Set<string>();
        ast.params = ast.params.filter((p) => {
          const t = this.generateType(p);
          if (seenTypes.has(t)) return false;
          seenTypes.add(t);
          return true;
        });
        return ast;
      }
      default:
        return ast;
    }
  }

  // generator.ts

  /**
   * Its declarations: type aliases first, then interfaces (the root's first), in definition order.
   * (Its walk of the whole tree for them finds only the definitions: nothing below them is named.)
   */
  generate(root: Ast): string {
    const defs = (root as Extract<Ast, { type: "INTERFACE" }>).params.map((p) => p.ast).filter(hasStandaloneName);
    const types = defs.filter((d) => d.type !== "INTERFACE").map((d) => this.generateStandaloneType(d));
    const interfaces = [root, ...defs].filter((d) => d.type === "INTERFACE").map((d) => this.generateStandaloneInterface(d));
    return [types.join("\n"), interfaces.join("\n")].filter(Boolean).join("\n\n") + "\n";
  }

  /** generateType: memoized per node, and a named node is referred to by its name. */
  private generateType(ast: Ast): string {
    let t = this.generated.get(ast);
    if (t === undefined) {
      t = hasStandaloneName(ast) ? toSafeString(ast.standaloneName!) : this.generateRawType(ast);
      this.generated.set(ast, t);
    }
    return t;
  }

  /** The node's type written out (generateRawType of the node without its name). */
  private generateRawType(ast: Ast): string {
    switch (ast.type) {
      case "ARRAY": {
        const type = this.generateType(ast.params);
        return type.endsWith('"') ? `(${type})[]` : `${type}[]`;
      }
      case "BOOLEAN":
        return "boolean";
      case "INTERFACE":
        return this.generateInterface(ast.params);
      case "LITERAL":
        return JSON.stringify(ast.params);
      case "NEVER":
        return "never";
      case "NUMBER":
        return "number";
      case "NULL":
        return "null";
      case "STRING":
        return "string";
      case "TUPLE":
        return this.generateTuple(ast);
      case "UNION": {
        const members = ast.params.map((p) => this.generateType(p));
        if (members.length === 0) return "never";
        return members.length === 1 ? members[0]! : `(${members.join(" | ")})`;
      }
      case "UNKNOWN":
        return "unknown";
      case "CUSTOM_TYPE":
        return ast.params;
    }
  }

  /**
   * A tuple made by bounds: `[T, ...(T)[]]` for a minimum alone (the tuple is that long), else the
   * union of every allowed length, joined without spaces as the original does. (Its padding of a
   * tuple shorter than its bounds never applies: the normalizer made it as long as they are.)
   */
  private generateTuple(ast: Extract<Ast, { type: "TUPLE" }>): string {
    const items = ast.params.map((p) => this.generateType(p));
    if (ast.spreadParam) return `[${[...items, `...(${this.generateType(ast.spreadParam)})[]`].join(", ")}]`;
    const lengths: string[] = [];
    for (let n = ast.minItems; n <= items.length; n++) lengths.push(`[${items.slice(0, n).join(", ")}]`);
    return lengths.join("|");
  }

  private generateInterface(all: readonly Param[]): string {
    const params = all.filter((p) => !p.isUnreachableDefinition);
    const indexSignature = params.find((p) => p.isIndexSignature);
    const indexSignatureType = indexSignature ? this.generateIndexSignatureType(indexSignature, params) : undefined;
    const lines = params.map((param) => {
      const { isRequired, isIndexSignature, keyName, ast } = param;
      const type = param === indexSignature && indexSignatureType !== undefined ? indexSignatureType : this.generateType(ast) + (isIndexSignature ? " | undefined" : "");
      const commented = this.withItemsComment(ast);
      return (
        (hasComment(commented) && !ast.standaloneName ? generateComment(commented.comment, commented.deprecated) + "\n" : "") +
        (isIndexSignature ? keyName : escapeKeyName(keyName)) +
        (isRequired ? "" : "?") +
        ": " +
        type
      );
    });
    return `{\n${lines.join("\n")}\n}`;
  }

  /** The index signature's type widened to admit every named property's type, and undefined (strictIndexSignatures). */
  private generateIndexSignatureType(indexSignature: Param, params: readonly Param[]): string | undefined {
    if (isAny(indexSignature.ast) || isUnknown(indexSignature.ast)) return undefined;
    const memberAsts: Ast[] = [];
    const addMember = (ast: Ast): void => {
      if (ast.type === "UNION" && !hasStandaloneName(ast)) {
        ast.params.forEach(addMember);
        return;
      }
      if (ast.type === "CUSTOM_TYPE" && !hasStandaloneName(ast) && ast.params.includes("|") && /^[\w$.\s|]+$/.test(ast.params)) {
        for (const member of ast.params.split("|")) {
          const trimmed = member.trim();
          if (trimmed) memberAsts.push({ type: "CUSTOM_TYPE", params: trimmed });
        }
        return;
      }
      memberAsts.push(ast);
    };
    addMember(indexSignature.ast);
    for (const sibling of params) {
      if (sibling === indexSignature || isAny(sibling.ast) || sibling.ast.type === "NEVER") continue;
      addMember(sibling.ast);
    }
    if (memberAsts.some(isAny)) return "any | undefined";
    if (memberAsts.some(isUnknown)) return "unknown | undefined";
    if (memberAsts.length === 0) return undefined;
    const seen = new Set<string>();
    const members: string[] = [];
    for (const memberAst of memberAsts) {
      // (Its dedupe against a named leaf type's own rendering needs a named member: none below the root.)
      const type = this.generateType(memberAst);
      if (seen.has(type)) continue;
      seen.add(type);
      members.push(memberAst.type === "CUSTOM_TYPE" && !/^[\w$.]+(\[\])*$/.test(type) ? `(${type})` : type);
    }
    if (!seen.has("undefined")) members.push("undefined");
    return members.join(" | ");
  }

  /**
   * An array's item description goes on the declaration that holds the array, as "Items: …" (not a
   * nested array's, whose description may end in its @minItems tags, nor one with a tag of its own).
   */
  private withItemsComment(ast: Ast): Meta {
    const members = ast.type === "ARRAY" ? [ast.params] : ast.type === "TUPLE" ? (ast.spreadParam ? [...ast.params, ast.spreadParam] : ast.params) : undefined;
    if (!members) return ast;
    const comments = new Set(members.map((m) => (m.type === "ARRAY" || m.type === "TUPLE" ? undefined : m.comment)));
    const [comment] = comments;
    if (comments.size !== 1 || !comment || /(^|\s)@\w/.test(comment)) return ast;
    const items = `Items: ${comment}`;
    return { ...ast, comment: ast.comment ? `${ast.comment}\n\n${items}` : items };
  }

  private generateStandaloneInterface(ast: Ast): string {
    return (
      (hasComment(ast) ? generateComment(ast.comment, ast.deprecated) + "\n" : "") +
      `export interface ${toSafeString(ast.standaloneName!)} ` +
      this.generateInterface((ast as Extract<Ast, { type: "INTERFACE" }>).params)
    );
  }

  private generateStandaloneType(ast: Ast): string {
    const commented = this.withItemsComment(ast);
    return (hasComment(commented) ? generateComment(commented.comment) + "\n" : "") + `export type ${toSafeString(ast.standaloneName!)} = ${this.generateRawType(ast)}`;
  }
}

/** maybeStripDefault: a union member keeps `default` only when it fits the member's type. */
function stripMismatchedDefault(s: Schema): void {
  if (!("default" in s)) return;
  const d = s.default;
  const fits =
    (s.type === "array" && Array.isArray(d)) ||
    (s.type === "boolean" && typeof d === "boolean") ||
    ((s.type === "integer" || s.type === "number") && typeof d === "number") ||
    (s.type === "string" && typeof d === "string") ||
    (s.type === "null" && d === null) ||
    (s.type === "object" && isPlainObject(d));
  if (!fits) delete s.default;
}

/** (Its ANY type is never made: unknownAny is on.) */
function isAny(ast: Ast): boolean {
  return ast.type === "CUSTOM_TYPE" && ast.params.trim() === "any";
}

function isUnknown(ast: Ast): boolean {
  return ast.type === "UNKNOWN" || (ast.type === "CUSTOM_TYPE" && ast.params.trim() === "unknown");
}

function generateComment(comment: string | undefined, deprecated?: boolean): string {
  const lines = ["/**"];
  if (deprecated) lines.push(" * @deprecated");
  if (comment !== undefined) lines.push(...comment.split("\n").map((l) => " * " + l));
  lines.push(" */");
  return lines.join("\n");
}

function escapeKeyName(keyName: string): string {
  return keyName.length && /[A-Za-z_$]/.test(keyName.charAt(0)) && /^[\w$]+$/.test(keyName) ? keyName : JSON.stringify(keyName);
}
