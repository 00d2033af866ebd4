/**
 * The last step of ./ts-types.ts: json-schema-to-typescript's generator.ts on the optimized AST, and the
 * AST itself (types/AST.ts) for the node types the subset produces. Its memo of each node's type text is
 * filled by the optimizer too, whose rendering decides what it keeps: the output reads it.
 */

export type Schema = Record<string, unknown>;

// ---------------------------------------------------------------------------------------------
// The AST (types/AST.ts), for the node types the subset produces

export interface Meta {
  comment?: string | undefined;
  deprecated?: boolean | undefined;
  standaloneName?: string | undefined;
}

export type Ast = Meta &
  (
    | { type: "BOOLEAN" | "NEVER" | "NULL" | "NUMBER" | "STRING" | "UNKNOWN" }
    | { type: "LITERAL"; params: unknown }
    | { type: "CUSTOM_TYPE"; params: string }
    | { type: "ARRAY"; params: Ast }
    | { type: "TUPLE"; params: Ast[]; spreadParam: Ast | undefined; minItems: number }
    | { type: "UNION" | "INTERSECTION"; params: Ast[] }
    | { type: "INTERFACE"; params: Param[] }
  );

export interface Param {
  ast: Ast;
  keyName: string;
  isRequired: boolean;
  isIndexSignature: boolean;
  isUnreachableDefinition: boolean;
}

/** The one `unknown` the optimizer puts in place of a union or intersection it collapses. */
export const T_UNKNOWN: Ast = { type: "UNKNOWN" };

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

export function hasStandaloneName(ast: Ast): boolean {
  return ast.standaloneName != null && ast.standaloneName !== "";
}

export function hasComment(ast: Meta): boolean {
  return (ast.comment != null && ast.comment !== "") || ast.deprecated === true;
}

/** lodash's omit(ast, "standaloneName"): a copy without it (generateType knows the copy by itself). */
export function omitStandaloneName(ast: Ast): Ast {
  const { standaloneName: _, ...rest } = ast;
  return rest as Ast;
}

/** Types that render without recursing into other nodes. */
const LEAF_TYPES = new Set(["BOOLEAN", "CUSTOM_TYPE", "LITERAL", "NEVER", "NULL", "NUMBER", "OBJECT", "REFERENCE", "STRING"]);

/** Type texts of AST nodes (generateType, memoized) and the declarations of the whole tree. */
export class Generator {
  private readonly generated = new Map<Ast, string>();
  /** Nodes the optimizer is done with, and their renderings without their names (see unnamed). */
  private readonly optimized = new Set<Ast>();
  private readonly raws = new Map<Ast, string>();

  /** The optimizer is done with `ast`: its members no longer change. */
  done(ast: Ast): void {
    this.optimized.add(ast);
  }

  /**
   * generateType(omitStandaloneName(ast)): the node written out, not by its name (a fresh object each
   * time, unknown to its memo; its members are known). A node the optimizer is done with is written the
   * same each time: its members no longer change, nor do the unnamed nodes below it (optimized inside it)
   * that its interface's index signature and "Items:" comments read; named ones are written by name.
   */
  unnamed(ast: Ast): string {
    const kept = this.raws.get(ast);
    if (kept !== undefined) return kept;
    const text = this.generateRawType(omitStandaloneName(ast));
    if (this.optimized.has(ast)) this.raws.set(ast, text);
    return text;
  }


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
  generateType(ast: Ast): string {
    let t = this.generated.get(ast);
    if (t === undefined) {
      t = this.generateRawType(ast);
      this.generated.set(ast, t);
    }
    return t;
  }

  generateRawType(ast: Ast): string {
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
