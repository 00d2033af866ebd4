/**
 * The second half of ./ts-types.ts: json-schema-to-typescript's parser.ts, optimizer.ts and generator.ts
 * for the subset, on the normalized copy of the bundle, step for step (its quirks are the output's).
 */

export type Schema = Record<string, unknown>;

/** Raised where the bundle leaves the subset, with what left it. */
export class Outside extends Error {
  constructor(readonly reason: string) {
    super(reason);
  }
}

export function isPlainObject(v: unknown): v is Schema {
  if (v === null || typeof v !== "object" || Array.isArray(v)) return false;
  const proto = Object.getPrototypeOf(v) as unknown;
  return proto === Object.prototype || proto === null;
}

/** Sets an own property, so a "__proto__" property name stays data. */
export function setOwn(target: Schema, key: string, value: unknown): void {
  if (key === "__proto__") Object.defineProperty(target, key, { value, enumerable: true, writable: true, configurable: true });
  else target[key] = value;
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
    | { type: "UNION" | "INTERSECTION"; params: Ast[] }
    | { type: "INTERFACE"; params: Param[] }
  );

interface Param {
  ast: Ast;
  keyName: string;
  isRequired: boolean;
  isIndexSignature: boolean;
  isUnreachableDefinition: boolean;
}

/** The one `unknown` the optimizer puts in place of a union or intersection it collapses. */
const T_UNKNOWN: Ast = { type: "UNKNOWN" };

type SchemaType =
  | "ALL_OF" | "ANY" | "ANY_OF" | "BOOLEAN" | "CUSTOM_TYPE" | "NULL" | "NUMBER" | "ONE_OF" | "STRING" | "TYPED_ARRAY" | "UNION" | "UNNAMED_ENUM"
  | "UNNAMED_SCHEMA" | "UNTYPED_ARRAY";

/**
 * typesOfSchema.ts: what a (normalized) schema is read as; more than one match is an intersection,
 * outside the subset. (Its OBJECT never matches: the normalizer gave every object schema a `required`;
 * NAMED_SCHEMA is UNNAMED_SCHEMA with an `$id`, parsed alike.)
 */
export function typeOfSchema(s: Schema): SchemaType {
  if (s.tsType) return "CUSTOM_TYPE";
  const compound = Array.isArray(s.type) || "anyOf" in s || "oneOf" in s;
  const matched: SchemaType[] = [];
  if ("allOf" in s) matched.push("ALL_OF");
  if (Object.keys(s).length === 0) matched.push("ANY");
  if ("anyOf" in s) matched.push("ANY_OF");
  if (!("enum" in s) && (s.type === "boolean" || (!compound && typeof s.default === "boolean"))) matched.push("BOOLEAN");
  if (s.type === "null") matched.push("NULL");
  if (!("enum" in s) && (s.type === "integer" || s.type === "number" || (!compound && typeof s.default === "number"))) matched.push("NUMBER");
  if ("oneOf" in s) matched.push("ONE_OF");
  if (!("enum" in s) && (s.type === "string" || (!compound && typeof s.default === "string"))) matched.push("STRING");
  if ((!s.type || s.type === "array") && "items" in s) matched.push("TYPED_ARRAY");
  if (Array.isArray(s.type)) matched.push("UNION");
  if ((!s.type || s.type === "boolean" || s.type === "integer" || s.type === "number" || s.type === "string") && "enum" in s) matched.push("UNNAMED_ENUM");
  if ((s.type === undefined || s.type === "object") && "properties" in s) matched.push("UNNAMED_SCHEMA");
  if (s.type === "array" && !("items" in s)) matched.push("UNTYPED_ARRAY");
  if (matched.length > 1) throw new Outside(`a schema read as an intersection of ${matched.join(" and ")}`);
  return matched[0] ?? "UNNAMED_SCHEMA";
}

/** utils.toSafeString, for ASCII (the subset's type names). */
export function toSafeString(s: string): string {
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

/** lodash's omit(ast, "standaloneName"): a copy without it (generateType knows the copy by itself). */
function omitStandaloneName(ast: Ast): Ast {
  const { standaloneName: _, ...rest } = ast;
  return rest as Ast;
}

/** Keywords some type matcher (or a normalizer rule) reads: an allOf member with none of them is vacuous. */
const RECOGNIZED_ALL_OF_MEMBER_KEYWORDS = new Set([
  "$id", "additionalProperties", "allOf", "anyOf", "const", "default", "enum", "extends", "items", "oneOf", "patternProperties", "properties",
  "required", "tsEnumNames", "tsType", "type",
]);

/** Types that render without recursing into other nodes. */
const LEAF_TYPES = new Set(["BOOLEAN", "CUSTOM_TYPE", "LITERAL", "NEVER", "NULL", "NUMBER", "OBJECT", "REFERENCE", "STRING"]);

/** One compile: parser.ts, optimizer.ts and generator.ts for the subset. */
export class Printer {
  private readonly usedNames = new Set<string>();
  private readonly parsed = new Map<object, Ast>();
  /** Definition → its key under the root's $defs. */
  private readonly defKeys: Map<unknown, string>;
  /** generator.ts's memoized generateType, which the optimizer fills too. */
  private readonly generated = new Map<Ast, string>();
  /** Nodes the optimizer is done with, and their renderings without their names (see unnamed). */
  private readonly optimized = new Set<Ast>();
  private readonly raws = new Map<Ast, string>();

  /** `idNames`: the `$id` the normalizer gave a definition a $ref reaches (its name when there is one). */
  constructor(
    private readonly root: Schema,
    private readonly idNames: ReadonlyMap<object, string>,
  ) {
    this.defKeys = new Map();
    for (const [k, v] of Object.entries(root.$defs as Schema)) if (!this.defKeys.has(v)) this.defKeys.set(v, k);
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
    if (!isPlainObject(schema)) throw new Outside("a schema that is not an object");
    let ast = this.parsed.get(schema);
    if (!ast) {
      // Cached before it is parsed (a $ref may lead back to it), then filled in
      ast = {} as Ast;
      this.parsed.set(schema, ast);
      Object.assign(ast, this.parseNode(schema));
    }
    return ast;
  }

  private parseNode(s: Schema): Ast {
    const type = typeOfSchema(s);
    // Definitions are named (by their `$id` when a $ref gave them one), before what they hold is parsed.
    const key = this.defKeys.get(s);
    const named = this.idNames.get(s) ?? key;
    const standaloneName = named === undefined ? undefined : this.generateName(named);
    const comment = s.description as string | undefined;
    const deprecated = s.deprecated as boolean | undefined;
    switch (type) {
      case "ALL_OF":
        return {
          type: "INTERSECTION",
          comment,
          deprecated,
          standaloneName,
          // A member of keywords it does not know, which parses to an empty open interface, is dropped.
          params: (s.allOf as unknown[])
            .map((member) => ({ member, ast: this.parse(member) }))
            .filter(({ member, ast }) => !(hasNoRecognizedKeywords(member) && isVacuousInterface(ast)))
            .map(({ ast }) => ast),
        };
      case "ANY":
        return { type: "UNKNOWN", comment, deprecated, standaloneName };
      case "ANY_OF":
      case "ONE_OF":
        return { type: "UNION", comment, deprecated, standaloneName, params: (s[type === "ANY_OF" ? "anyOf" : "oneOf"] as unknown[]).map((m) => this.parse(m)) };
      case "BOOLEAN":
      case "NULL":
      case "NUMBER":
      case "STRING":
        return { type, comment, deprecated, standaloneName };
      case "CUSTOM_TYPE":
        return { type: "CUSTOM_TYPE", params: s.tsType as string, comment, deprecated, standaloneName };
      case "TYPED_ARRAY": {
        if (!Array.isArray(s.items)) return { type: "ARRAY", comment, deprecated, standaloneName, params: this.parse(s.items) };
        const params = s.items.map((x) => this.parse(x));
        const spreadParam = s.additionalItems === true ? T_UNKNOWN : s.additionalItems ? this.parse(s.additionalItems) : undefined;
        return { type: "TUPLE", comment, deprecated, standaloneName, params, spreadParam, minItems: s.minItems as number };
      }
      case "UNION": {
        // Each type is parsed as a copy of the schema with that type (and no description)
        const params = (s.type as string[]).map((t) => {
          const member: Schema = {};
          for (const [k, v] of Object.entries(s)) if (k !== "description") setOwn(member, k, v);
          member.type = t;
          stripMismatchedDefault(member);
          return this.parse(member);
        });
        return { type: "UNION", comment, deprecated, standaloneName, params };
      }
      case "UNNAMED_ENUM":
        return { type: "UNION", comment, deprecated, standaloneName, params: (s.enum as unknown[]).map((v): Ast => ({ type: "LITERAL", params: v })) };
      case "UNNAMED_SCHEMA":
        return { type: "INTERFACE", comment, deprecated, standaloneName, params: this.parseProperties(s) };
      case "UNTYPED_ARRAY": {
        const minItems = s.minItems as number;
        const maxItems = typeof s.maxItems === "number" ? s.maxItems : -1;
        if (minItems <= 0 && maxItems < 0) return { type: "ARRAY", comment, deprecated, standaloneName, params: T_UNKNOWN };
        const params = Array<Ast>(Math.max(maxItems, minItems) || 0).fill(T_UNKNOWN);
        return { type: "TUPLE", comment, deprecated, standaloneName, params, spreadParam: maxItems >= 0 ? undefined : T_UNKNOWN, minItems };
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

  /** Collapses unions and intersections; a node met again is left as it is (its first meeting optimized it in place). */
  optimize(ast: Ast, seen = new Set<Ast>()): Ast {
    if (seen.has(ast)) return ast;
    seen.add(ast);
    switch (ast.type) {
      case "ARRAY":
        ast.params = this.optimize(ast.params, seen);
        this.optimized.add(ast);
        return ast;
      case "INTERFACE":
        for (const p of ast.params) p.ast = this.optimize(p.ast, seen);
        this.optimized.add(ast);
        return ast;
      case "UNION":
      case "INTERSECTION": {
        ast.params = ast.params.map((p) => this.optimize(p, seen));
        // [A & B & Unknown] -> [A & B]
        if (ast.type === "INTERSECTION") {
          const constrained = ast.params.filter((p) => p.type !== "UNKNOWN");
          if (constrained.length > 0 && constrained.length < ast.params.length) ast.params = constrained;
        }
        // [A, B, C, Unknown] -> Unknown
        if (ast.params.some((p) => p.type === "UNKNOWN")) {
          this.optimized.add(ast);
          return T_UNKNOWN;
        }
        // [A (named), A] -> [A (named)]
        // (Asked in its order: rendering the members fills generateType's memo, which the output then reads.)
        const first = ast.params.length > 0 ? this.unnamed(ast.params[0]!) : "";
        const alike = ast.params.every((p) => this.unnamed(p) === first);
        if (alike && ast.params.some((p) => p.standaloneName !== undefined)) ast.params = ast.params.filter((p) => p.standaloneName !== undefined);
        // [A, B, B] -> [A, B]
        const seenTypes = new Set<string>();
        ast.params = ast.params.filter((p) => {
          const t = this.generateType(p);
          if (seenTypes.has(t)) return false;
          seenTypes.add(t);
          return true;
        });
        ast.params = ast.params.map((p) => this.optimize(p, seen));
        this.optimized.add(ast);
        return ast;
      }
      default:
        this.optimized.add(ast);
        return ast;
    }
  }

  /**
   * generateType(omitStandaloneName(ast)): the node written out, not by its name (a fresh object each
   * time, unknown to its memo; its members are known). A node the optimizer is done with is written the
   * same each time: its members no longer change, nor do the unnamed nodes below it (optimized inside it)
   * that its interface's index signature and "Items:" comments read; named ones are written by name.
   */
  private unnamed(ast: Ast): string {
    const kept = this.raws.get(ast);
    if (kept !== undefined) return kept;
    const text = this.generateRawType(omitStandaloneName(ast));
    if (this.optimized.has(ast)) this.raws.set(ast, text);
    return text;
  }

  // generator.ts

  /**
   * Its declarations: type aliases, then interfaces, each where its walk of the tree first meets it. (It
   * joins each level's declarations with line breaks as it returns: the same text, written here once.)
   */
  generate(root: Ast): string {
    const types: string[] = [];
    const interfaces: string[] = [];
    this.declareNamedTypes(root, new Set(), types);
    this.declareNamedInterfaces(root, new Set(), interfaces);
    return [types.join("\n"), interfaces.join("\n")].filter(Boolean).join("\n\n") + "\n";
  }

  private declareNamedTypes(ast: Ast, seen: Set<Ast>, out: string[]): void {
    if (seen.has(ast)) return;
    seen.add(ast);
    switch (ast.type) {
      case "ARRAY":
        this.declareNamedTypes(ast.params, seen, out);
        if (hasStandaloneName(ast)) out.push(this.generateStandaloneType(ast));
        return;
      case "INTERFACE":
        for (const p of ast.params) this.declareNamedTypes(p.ast, seen, out);
        return;
      case "INTERSECTION":
      case "TUPLE":
      case "UNION":
        if (hasStandaloneName(ast)) out.push(this.generateStandaloneType(ast));
        for (const p of ast.params) this.declareNamedTypes(p, seen, out);
        if (ast.type === "TUPLE" && ast.spreadParam) this.declareNamedTypes(ast.spreadParam, seen, out);
        return;
      default:
        if (hasStandaloneName(ast)) out.push(this.generateStandaloneType(ast));
    }
  }

  private declareNamedInterfaces(ast: Ast, seen: Set<Ast>, out: string[]): void {
    if (seen.has(ast)) return;
    seen.add(ast);
    switch (ast.type) {
      case "ARRAY":
        this.declareNamedInterfaces(ast.params, seen, out);
        return;
      case "INTERFACE":
        if (hasStandaloneName(ast)) out.push(this.generateStandaloneInterface(ast));
        for (const p of ast.params) this.declareNamedInterfaces(p.ast, seen, out);
        return;
      case "INTERSECTION":
      case "TUPLE":
      case "UNION": {
        const start = out.length;
        for (const p of ast.params) this.declareNamedInterfaces(p, seen, out);
        if (ast.type === "TUPLE" && ast.spreadParam) {
          // It appends the spread's declarations to the members' without a line break.
          const spread: string[] = [];
          this.declareNamedInterfaces(ast.spreadParam, seen, spread);
          const text = spread.join("\n");
          if (text && out.length > start) out[out.length - 1] += text;
          else if (text) out.push(text);
        }
        return;
      }
      default:
        return;
    }
  }

  /** generateType: memoized per node, and a named node is referred to by its name. */
  private generateType(ast: Ast): string {
    let t = this.generated.get(ast);
    if (t === undefined) {
      t = this.generateRawType(ast);
      this.generated.set(ast, t);
    }
    return t;
  }

  private generateRawType(ast: Ast): string {
    if (hasStandaloneName(ast)) return toSafeString(ast.standaloneName!);
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
      case "UNION":
      case "INTERSECTION": {
        const members = ast.params.map((p) => this.generateType(p));
        if (members.length === 0) return ast.type === "UNION" ? "never" : "{\n[k: string]: unknown | undefined\n}";
        return members.length === 1 ? members[0]! : `(${members.join(ast.type === "UNION" ? " | " : " & ")})`;
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
      const commented = withItemsComment(ast);
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
      const type = this.generateType(memberAst);
      // A named alias of a leaf type also covers the type it names
      const underlying = hasStandaloneName(memberAst) && LEAF_TYPES.has(memberAst.type) ? this.generateRawType(omitStandaloneName(memberAst)) : type;
      if (seen.has(type) || seen.has(underlying)) continue;
      seen.add(type);
      seen.add(underlying);
      members.push(memberAst.type === "CUSTOM_TYPE" && !/^[\w$.]+(\[\])*$/.test(type) ? `(${type})` : type);
    }
    if (!seen.has("undefined")) members.push("undefined");
    return members.join(" | ");
  }

  private generateStandaloneInterface(ast: Ast): string {
    return (
      (hasComment(ast) ? generateComment(ast.comment, ast.deprecated) + "\n" : "") +
      `export interface ${toSafeString(ast.standaloneName!)} ` +
      this.generateInterface((ast as Extract<Ast, { type: "INTERFACE" }>).params)
    );
  }

  private generateStandaloneType(ast: Ast): string {
    const commented = withItemsComment(ast);
    return (hasComment(commented) ? generateComment(commented.comment) + "\n" : "") + `export type ${toSafeString(ast.standaloneName!)} = ${this.generateRawType(omitStandaloneName(ast))}`;
  }
}

function hasNoRecognizedKeywords(schema: unknown): boolean {
  return isPlainObject(schema) && Object.keys(schema).every((k) => !RECOGNIZED_ALL_OF_MEMBER_KEYWORDS.has(k));
}

/** An interface that says nothing: no properties, comment or name, and an index signature of unknown. */
function isVacuousInterface(ast: Ast): boolean {
  return (
    ast.type === "INTERFACE" &&
    ast.standaloneName === undefined &&
    ast.comment === undefined &&
    !ast.deprecated &&
    ast.params.length === 1 &&
    ast.params[0]!.isIndexSignature &&
    ast.params[0]!.ast.type === "UNKNOWN"
  );
}

/**
 * An array's item description goes on the declaration that holds the array, as "Items: …" (not a named
 * item type's, declared with its own, nor a nested array's, whose description may end in its @minItems
 * tags, nor one with a tag of its own).
 */
function withItemsComment(ast: Ast): Meta {
  const members = ast.type === "ARRAY" ? [ast.params] : ast.type === "TUPLE" ? (ast.spreadParam ? [...ast.params, ast.spreadParam] : ast.params) : undefined;
  if (!members) return ast;
  const comments = new Set(members.map((m) => (hasStandaloneName(m) || m.type === "ARRAY" || m.type === "TUPLE" ? undefined : m.comment)));
  const [comment] = comments;
  if (comments.size !== 1 || !comment || /(^|\s)@\w/.test(comment)) return ast;
  const items = `Items: ${comment}`;
  return { ...ast, comment: ast.comment ? `${ast.comment}\n\n${items}` : items };
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
