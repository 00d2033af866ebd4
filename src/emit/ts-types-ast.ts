/**
 * The middle of ./ts-types.ts: json-schema-to-typescript's typesOfSchema.ts, parser.ts and optimizer.ts
 * for the subset, on the normalized copy of the bundle, step for step (its quirks are the output's);
 * ./ts-types-generate.ts writes the declarations.
 */

import { setOwn } from "../model/build-schema.js";
import { Generator, T_UNKNOWN, toSafeString, type Ast, type Param, type Schema } from "./ts-types-generate.js";

export type { Schema } from "./ts-types-generate.js";
export { toSafeString } from "./ts-types-generate.js";

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

/** Keywords some type matcher (or a normalizer rule) reads: an allOf member with none of them is vacuous. */
const RECOGNIZED_ALL_OF_MEMBER_KEYWORDS = new Set([
  "$id", "additionalProperties", "allOf", "anyOf", "const", "default", "enum", "extends", "items", "oneOf", "patternProperties", "properties",
  "required", "tsEnumNames", "tsType", "type",
]);

/** One compile: parser.ts, optimizer.ts and generator.ts for the subset. */
export class Printer {
  private readonly usedNames = new Set<string>();
  private readonly parsed = new Map<object, Ast>();
  /** Definition → its key under the root's $defs. */
  private readonly defKeys: Map<unknown, string>;
  /** generator.ts, whose memoized type texts the optimizer fills too. */
  private readonly gen = new Generator();

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
        this.gen.done(ast);
        return ast;
      case "INTERFACE":
        for (const p of ast.params) p.ast = this.optimize(p.ast, seen);
        this.gen.done(ast);
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
          this.gen.done(ast);
          return T_UNKNOWN;
        }
        // [A (named), A] -> [A (named)]
        // (Asked in its order: rendering the members fills generateType's memo, which the output then reads.)
        const first = ast.params.length > 0 ? this.gen.unnamed(ast.params[0]!) : "";
        const alike = ast.params.every((p) => this.gen.unnamed(p) === first);
        if (alike && ast.params.some((p) => p.standaloneName !== undefined)) ast.params = ast.params.filter((p) => p.standaloneName !== undefined);
        // [A, B, B] -> [A, B]
        const seenTypes = new Set<string>();
        ast.params = ast.params.filter((p) => {
          const t = this.gen.generateType(p);
          if (seenTypes.has(t)) return false;
          seenTypes.add(t);
          return true;
        });
        ast.params = ast.params.map((p) => this.optimize(p, seen));
        this.gen.done(ast);
        return ast;
      }
      default:
        this.gen.done(ast);
        return ast;
    }
  }

  /** generator.ts: the declarations. */
  generate(root: Ast): string {
    return this.gen.generate(root);
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
