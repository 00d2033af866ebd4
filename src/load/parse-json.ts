/** Strict JSON parsing that keeps the tree for positions and reports syntax errors with offsets. */
import { parseTree, printParseErrorCode, type Node, type ParseError } from "jsonc-parser";
import type { Diagnostic } from "../diagnostics/diagnostic.js";
import { childPointer } from "../diagnostics/diagnostic.js";
import { report } from "../diagnostics/report.js";
import { DEFAULT_LIMITS } from "./limits.js";

/** A parsed JSON file: text, tree (for positions), and value (undefined when it did not parse). */
export interface JsonDocument {
  readonly file: string;
  readonly text: string;
  readonly tree: Node | undefined;
  readonly value: unknown;
}

const TREE_OPTIONS = { disallowComments: true, allowTrailingComma: false, allowEmptyContent: false } as const;

/** A document JSON.parse read: its position tree is built the first time a diagnostic needs it. */
class ParsedDocument implements JsonDocument {
  #tree: Node | undefined | null = null;
  constructor(
    readonly file: string,
    readonly text: string,
    readonly value: unknown,
  ) {}
  get tree(): Node | undefined {
    if (this.#tree === null) this.#tree = parseTree(this.text, [], TREE_OPTIONS);
    return this.#tree;
  }
}

/** Every string literal of a JSON text: what is left holds the text's punctuation only. */
const STRINGS = /"(?:[^"\\]|\\.)*"/g;

/**
 * The value of `text` by JSON.parse (native, and most of the time spent checking definitions was the
 * tree parser's), or undefined when the tree parser must decide: a syntax error, an empty file, or a
 * key repeated in one object (which JSON.parse keeps silently, the last one winning). A repeat shows
 * as fewer keys in the value than colons outside the strings of the text.
 */
function parsedNatively(text: string): { value: unknown } | undefined {
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch {
    return undefined;
  }
  const punctuation = text.replace(STRINGS, "");
  let colons = 0;
  for (let i = punctuation.indexOf(":"); i !== -1; i = punctuation.indexOf(":", i + 1)) colons++;
  return keyCount(value) === colons ? { value } : undefined;
}

/** How many keys the objects of a JSON value hold, nested ones included. */
function keyCount(value: unknown): number {
  if (value === null || typeof value !== "object") return 0;
  let n = 0;
  if (Array.isArray(value)) {
    for (const item of value) n += keyCount(item);
    return n;
  }
  for (const key in value) n += 1 + keyCount((value as Record<string, unknown>)[key]);
  return n;
}

const MESSAGES: Readonly<Record<string, string>> = {
  InvalidSymbol: "unexpected character",
  InvalidNumberFormat: "invalid number",
  PropertyNameExpected: "expected a property name in double quotes",
  ValueExpected: "expected a value",
  ColonExpected: "expected a colon",
  CommaExpected: "expected a comma",
  CloseBraceExpected: "expected a closing brace",
  CloseBracketExpected: "expected a closing bracket",
  EndOfFileExpected: "expected the end of the file",
  InvalidCommentToken: "comments are not allowed",
  UnexpectedEndOfComment: "unexpected end of comment",
  UnexpectedEndOfString: "unterminated string",
  UnexpectedEndOfNumber: "unexpected end of number",
  InvalidUnicode: "invalid unicode escape",
  InvalidEscapeCharacter: "invalid escape character",
  InvalidCharacter: "invalid character in string",
};

/**
 * The offset of the first `[` or `{` that opens a level deeper than `limit`, or -1. A scan of the
 * text, not a walk of a tree: it runs before anything that recurses (the tree parser, the key count,
 * the meta-schema validation, the model) could overflow the stack on a hostile document.
 */
export function tooDeepAt(text: string, limit: number): number {
  let depth = 0;
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (c === 0x22) {
      // Skip the string: brackets inside it are text.
      for (i++; i < text.length; i++) {
        const d = text.charCodeAt(i);
        if (d === 0x5c) i++;
        else if (d === 0x22) break;
      }
    } else if (c === 0x5b || c === 0x7b) {
      if (++depth > limit) return i;
    } else if (c === 0x5d || c === 0x7d) {
      depth--;
    }
  }
  return -1;
}

/**
 * Parses `text` as strict JSON (no comments, no trailing commas, no duplicate keys, arrays and
 * objects nested at most `nesting` levels deep).
 */
export function parseJson(file: string, text: string, nesting = DEFAULT_LIMITS.nesting): readonly [JsonDocument, Diagnostic[]] {
  const deep = tooDeepAt(text, nesting);
  if (deep !== -1) {
    // No tree either: building one would recurse as deep as the document goes.
    return [{ file, text, tree: undefined, value: undefined }, [report("nesting-too-deep", { file, pointer: "", offset: deep }, { limit: nesting })]];
  }
  const native = parsedNatively(text);
  if (native) return [new ParsedDocument(file, text, native.value), []];
  const errors: ParseError[] = [];
  const tree = parseTree(text, errors, TREE_OPTIONS);
  // Only the first syntax error is reliable: the parser's later errors mostly cascade from it.
  // An empty file is said so, rather than as the parser's "expected a value".
  const first = text.trim() === "" ? [] : errors.slice(0, 1);
  const diagnostics = first.map((e) => {
    const name = printParseErrorCode(e.error);
    const trailing = /,\s*$/.test(text.slice(0, e.offset)) && /^[}\]]/.test(text.slice(e.offset));
    const problem = trailing ? "trailing comma" : (MESSAGES[name] ?? name);
    const offset = trailing ? text.slice(0, e.offset).lastIndexOf(",") : e.offset;
    const fix = trailing
      ? "remove the comma: JSON allows none after the last item"
      : name === "InvalidCommentToken"
        ? 'remove the comment: JSON has none (a schema can say it in "description" or "$comment")'
        : "fix the JSON syntax at this position";
    return report("json-syntax", { file, pointer: "", offset }, { problem, fix });
  });
  if (text.trim() === "") {
    const fix = "give the file its JSON content";
    diagnostics.push(report("json-syntax", { file, pointer: "", offset: 0 }, { problem: "the file is empty", fix }));
  }
  if (diagnostics.length > 0 || !tree) return [{ file, text, tree, value: undefined }, diagnostics];
  const value = nodeValue(tree, file, "", diagnostics);
  return [{ file, text, tree, value: diagnostics.length ? undefined : value }, diagnostics];
}

/**
 * The value of a tree node. Keys become own properties (a "__proto__" key never reaches the
 * prototype), and a key repeated in one object is a syntax error.
 */
function nodeValue(node: Node, file: string, pointer: string, diagnostics: Diagnostic[]): unknown {
  switch (node.type) {
    case "object": {
      const out: Record<string, unknown> = {};
      for (const prop of node.children ?? []) {
        const [keyNode, valueNode] = prop.children ?? [];
        if (!keyNode || !valueNode) continue;
        const key = String(keyNode.value);
        if (Object.prototype.hasOwnProperty.call(out, key)) {
          diagnostics.push(
            report("json-syntax", { file, pointer: "", offset: keyNode.offset }, {
              problem: `duplicate key "${key}"`,
              fix: `keep only one "${key}" key in this object`,
            }),
          );
        }
        Object.defineProperty(out, key, {
          value: nodeValue(valueNode, file, childPointer(pointer, key), diagnostics),
          enumerable: true,
          writable: true,
          configurable: true,
        });
      }
      return out;
    }
    case "array":
      return (node.children ?? []).map((c, i) => nodeValue(c, file, childPointer(pointer, i), diagnostics));
    default:
      return node.value;
  }
}
