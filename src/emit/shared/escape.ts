/**
 * The one escaping layer between definition text and generated code. Definitions arrive in pull
 * requests and `generate` runs in CI, so every title, description, example, name and URL they hold
 * is untrusted: a `*\/`, a backtick, `${`, a quote or a line terminator (CR, LF, U+2028, U+2029) must
 * never change what the generated code means. Emitters and templates put such text into code only
 * through these functions (templates through the helpers of the same names, registered by
 * templates.ts); test/unit/emit/escape.test.ts runs every breakout through each of them.
 */
import { assertInternal } from "../../diagnostics/internal-error.js";

/** Every JavaScript line terminator (a CR LF pair counts once). */
const LINE_TERMINATORS = /\r\n|[\r\n\u2028\u2029]/g;
const SEPARATORS = /[\u2028\u2029]/g;
const separatorEscape = (c: string): string => (c === "\u2028" ? "\\u2028" : "\\u2029");

/**
 * A JavaScript string literal that holds `text` exactly: JSON's escaping (quotes, backslashes,
 * control characters, lone surrogates), plus U+2028 and U+2029, which older parsers take for line ends.
 * @example str('say "hi"') === '"say \\"hi\\""'
 */
export function str(text: string): string {
  return JSON.stringify(String(text)).replace(SEPARATORS, separatorEscape);
}

/**
 * Text for a line comment (`// …`): every line terminator becomes a space, so that the comment ends
 * where its line does.
 */
export function lineComment(text: string): string {
  return String(text).replace(LINE_TERMINATORS, " ");
}

/**
 * Text for a JSDoc or block comment (`/** … *\/`): `*\/` cannot end it and `/*` cannot open another;
 * a line terminator starts a new ` * ` line, indented by `indent` (the indentation of the comment).
 */
export function doc(text: string, indent = ""): string {
  return String(text)
    .replace(/\*\//g, "*\\/")
    .replace(/\/\*/g, "/\\*")
    .replace(LINE_TERMINATORS, `\n${indent} * `);
}

/** A whole JSDoc comment of `text`, on one line when it fits on one, indented by `indent`. */
export function docComment(text: string, indent = ""): string {
  const body = doc(text, indent);
  return body.includes("\n") ? `${indent}/**\n${indent} * ${body}\n${indent} */` : `${indent}/** ${body} */`;
}

/**
 * The body of a template literal (what goes between the backticks) that holds `text` exactly: a
 * backslash, a backtick and `${` are escaped, and so is a CR, which a template literal would read as LF.
 */
export function templateText(text: string): string {
  return String(text)
    .replace(/[\\`]/g, "\\$&")
    .replace(/\$\{/g, "\\${")
    .replace(/\r/g, "\\r")
    .replace(SEPARATORS, separatorEscape);
}

/** A name that can be written as a bare identifier (a binding, a function, a member after a dot). */
const IDENTIFIER = /^[A-Za-z_$][A-Za-z0-9_$]*$/;
const RESERVED = new Set(
  (
    "break case catch class const continue debugger default delete do else enum export extends false finally for function if import in " +
    "instanceof new null return super switch this throw true try typeof var void while with yield let static implements interface " +
    "package private protected public await arguments eval"
  ).split(" "),
);

/** True when `name` can be written as a bare identifier: ASCII, not a reserved word. */
export function isSafeIdentifier(name: string): boolean {
  return IDENTIFIER.test(name) && !RESERVED.has(name);
}

/**
 * `name` as an identifier. Names that become identifiers are decided by the model (model/names.ts)
 * and checked by `check`; anything else reaching here is a bug, never code.
 */
export function ident(name: string): string {
  assertInternal(typeof name === "string" && isSafeIdentifier(name), `not a safe identifier: ${JSON.stringify(name)}`);
  return name;
}

/**
 * `name` as a property key of an object literal, interface or type literal: bare when it is an
 * identifier, a string literal otherwise, and `["__proto__"]` for the one key an object literal would
 * read as its prototype rather than a property.
 */
export function key(name: string): string {
  if (name === "__proto__") return `[${str(name)}]`;
  return IDENTIFIER.test(name) ? name : str(name);
}

/** `name` as a quoted property key (`["__proto__"]` for that one, as in key()). */
export function stringKey(name: string): string {
  return name === "__proto__" ? `[${str(name)}]` : str(name);
}

/** `object.name`, or `object["name"]` when `name` is not an identifier. */
export function member(object: string, name: string): string {
  return IDENTIFIER.test(name) ? `${object}.${name}` : `${object}[${str(name)}]`;
}

/**
 * A JSON value as JavaScript source that evaluates to it: JSON.stringify's text (with `space`, as
 * JSON.stringify takes it), U+2028 and U+2029 escaped, and a `"__proto__"` key written `["__proto__"]`,
 * so that it stays a property instead of setting the object's prototype.
 */
export function jsValue(value: unknown, space?: number): string {
  const json = JSON.stringify(value, null, space);
  assertInternal(json !== undefined, "jsValue: not a JSON value");
  const text = json.includes('"__proto__"') ? jsonWithKeys(value, space ?? 0, "") : json;
  return text.replace(SEPARATORS, separatorEscape);
}

/** JSON.stringify(value, null, space) with every key through `key()`'s rule for `__proto__`. */
function jsonWithKeys(value: unknown, space: number, indent: string): string {
  if (value === null || typeof value !== "object") return JSON.stringify(value) ?? "null";
  const inner = indent + " ".repeat(space);
  const open = space ? `\n${inner}` : "";
  const close = space ? `\n${indent}` : "";
  const comma = space ? `,\n${inner}` : ",";
  if (Array.isArray(value)) {
    if (value.length === 0) return "[]";
    return `[${open}${value.map((v) => (v === undefined || typeof v === "function" ? "null" : jsonWithKeys(v, space, inner))).join(comma)}${close}]`;
  }
  const entries = Object.entries(value as Record<string, unknown>).filter(([, v]) => v !== undefined && typeof v !== "function");
  if (entries.length === 0) return "{}";
  const colon = space ? ": " : ":";
  return `{${open}${entries.map(([k, v]) => `${k === "__proto__" ? `[${JSON.stringify(k)}]` : JSON.stringify(k)}${colon}${jsonWithKeys(v, space, inner)}`).join(comma)}${close}}`;
}

/**
 * JavaScript source that evaluates to a JSON value by parsing it at run time: `JSON.parse(String.raw`…`)`
 * around JSON.stringify's text (with `space`). A literal of data costs the TypeScript compiler seconds per
 * megabyte (it types every node) where a string costs nothing, and V8 parses JSON faster than an object
 * literal. Between the backticks a backtick, `${`, U+2028 and U+2029 are written as JSON's \u escapes (they
 * occur only inside JSON strings, where an escape reads the same), so nothing can end the template early;
 * JSON.parse keeps a `"__proto__"` key an own property.
 * @example parsedJson({ a: "`" }) === 'JSON.parse(String.raw`{"a":"\\u0060"}`)'
 */
export function parsedJson(value: unknown, space?: number): string {
  const json = JSON.stringify(value, null, space);
  assertInternal(json !== undefined, "parsedJson: not a JSON value");
  return parsedText(json);
}

/**
 * parsedJson of an array, written one item per line (each item's JSON on its line, after `indent`), as a table
 * reads best.
 * @example parsedJsonList([{ a: 1 }, 2]) === 'JSON.parse(String.raw`[\n  {"a":1},\n  2\n]`)'
 */
export function parsedJsonList(items: readonly unknown[], indent = "  "): string {
  const lines = items.map((item) => {
    const json = JSON.stringify(item);
    assertInternal(json !== undefined, "parsedJsonList: not a JSON value");
    return indent + json;
  });
  return parsedText(lines.length === 0 ? "[]" : `[\n${lines.join(",\n")}\n]`);
}

/** JSON text in a String.raw template, parsed: what can end the template written as JSON's \u escapes. */
function parsedText(json: string): string {
  const text = json.replace(/`|\$\{|[\u2028\u2029]/g, (s) => (s === "`" ? "\\u0060" : s === "${" ? "$\\u007b" : separatorEscape(s)));
  return `JSON.parse(String.raw\`${text}\`)`;
}

/**
 * JSON for a JavaScript file or a `<script>` element: `<`, `>` and `&` are written as \u escapes, so
 * that no `</script>` or `<!--` can appear in it, and U+2028 and U+2029 too. JSON.parse and a
 * JavaScript parser read the same value.
 */
export function scriptJson(value: unknown, space?: number): string {
  return jsValue(value, space).replace(/[<>&]/g, (c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, "0")}`);
}

/**
 * A shell word that stands for `text` exactly, on one line (it may sit in a Markdown code block):
 * bare when it has only safe characters, else single-quoted (a `'` inside is closed, escaped and
 * reopened), or ANSI-C quoted (`$'…'`: bash, zsh, ksh, POSIX 2024) when it holds a control character
 * or a line separator, which single quotes would keep raw.
 * @example shellWord("it's") === "'it'\\''s'"
 */
export function shellWord(text: string): string {
  const s = String(text);
  if (/^[A-Za-z0-9_@%+=:,./-]+$/.test(s)) return s;
  if (!/[\u0000-\u001f\u007f\u0085\u2028\u2029]/.test(s)) return `'${s.replace(/'/g, `'\\''`)}'`;
  const escaped = s.replace(/[\\'\u0000-\u001f\u007f\u0085\u2028\u2029]/g, (c) => {
    if (c === "\\" || c === "'") return `\\${c}`;
    const code = c.charCodeAt(0);
    return code < 0x80 ? `\\x${code.toString(16).padStart(2, "0")}` : `\\u${code.toString(16).padStart(4, "0")}`;
  });
  return `$'${escaped}'`;
}

// ---------------------------------------------------------------------------------------------------
// Markdown (the package README, the Markdown reference)

/** Text escapeMd changes: a line end, inline punctuation, &, or a block marker or number at the start. */
const MD_SPECIAL = /[\r\n\\`*_[\]<>|~&]|^\s*[#+=\d-]/;

/**
 * Plain text on one line, escaped so that it renders as itself: line ends become spaces, the
 * characters that start inline Markdown or raw HTML (so also `<!--` and `-->`) are backslash-escaped,
 * an entity-like & too, and a block marker at the start. Safe in a table cell (| is escaped) and in an
 * HTML comment (no > is left bare).
 * @example escapeMd("a <b> | *c*") === "a \\<b\\> \\| \\*c\\*"
 */
export function escapeMd(s: string): string {
  if (!MD_SPECIAL.test(s)) return s;
  return s
    .replace(/\s*[\r\n]\s*/g, " ")
    .replace(/[\\`*_[\]<>|~]/g, "\\$&")
    .replace(/&(?=#?\w+;)/g, "\\&")
    .replace(/^(\s*)([#+=-])/, "$1\\$2")
    .replace(/^(\s*\d+)([.)])/, "$1\\$2");
}

/** A code span that holds `s` exactly, whatever backticks it contains (line ends become spaces). */
export function codeSpan(s: string): string {
  if (!s.includes("`") && !/[\r\n]/.test(s)) {
    const pad = s.startsWith(" ") && s.endsWith(" ") && s.trim() ? " " : "";
    return `\`${pad}${s}${pad}\``;
  }
  const one = s.replace(/\s*[\r\n]\s*/g, " ");
  const longest = Math.max(0, ...[...one.matchAll(/`+/g)].map((m) => m[0].length));
  const fence = "`".repeat(longest + 1);
  const pad = one.startsWith("`") || one.endsWith("`") || (one.startsWith(" ") && one.endsWith(" ") && one.trim()) ? " " : "";
  return `${fence}${pad}${one}${pad}${fence}`;
}

/** A code span in a table cell: a | inside is escaped too (GFM splits cells before it reads spans). */
export function cellCode(s: string): string {
  return codeSpan(s).replace(/\|/g, "\\|");
}

/** A fenced code block that holds `body` exactly: its fence is longer than any line of backticks in it. */
export function codeBlock(body: string, lang: string): string {
  const longest = Math.max(0, ...[...body.matchAll(/^\s*(`{3,})/gm)].map((m) => m[1]!.length));
  const fence = "`".repeat(Math.max(3, longest + 1));
  return `${fence}${lang}\n${body}\n${fence}`;
}

/**
 * The Handlebars helpers of this layer: `{{str x}}`, `{{doc x}}`, `{{lineComment x}}`,
 * `{{templateText x}}`, `{{ident x}}`, `{{propKey x}}` (key: a name a template's data has), `{{jsValue x}}`, `{{scriptJson x}}` and
 * `{{shellWord x}}` for code, `{{md x}}` (escapeMd) and `{{cellCode x}}` for Markdown. (Handlebars
 * passes an options object last: it is dropped.)
 */
export const escapeHelpers: Readonly<Record<string, (...args: unknown[]) => string>> = {
  str: (text) => str(asText(text, "str")),
  doc: (text) => doc(asText(text, "doc")),
  lineComment: (text) => lineComment(asText(text, "lineComment")),
  templateText: (text) => templateText(asText(text, "templateText")),
  ident: (name) => ident(asText(name, "ident")),
  propKey: (name) => key(asText(name, "propKey")),
  jsValue: (value) => jsValue(value ?? null),
  scriptJson: (value) => scriptJson(value ?? null),
  shellWord: (text) => shellWord(asText(text, "shellWord")),
  md: (text) => escapeMd(asText(text, "md")),
  cellCode: (text) => cellCode(asText(text, "cellCode")),
};

function asText(value: unknown, helper: string): string {
  assertInternal(typeof value === "string" || typeof value === "number", `{{${helper}}} needs a string, got ${typeof value}`);
  return String(value);
}
