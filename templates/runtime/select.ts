/**
 * The `fields` and `expand` query parameters: partial representations and link expansion.
 * Both take a selection such as `title,author(name,books(title))`, parsed into a tree of names.
 */
import type { FieldSpec, ResourceSpec } from "./spec.js";

/** A tree of selected names; an empty object is a selected leaf. Trees built here have no prototype. */
export type Selection = { readonly [name: string]: Selection };

export type ParseSelectionResult = { readonly ok: true; readonly tree: Selection } | { readonly ok: false; readonly error: string };
export type CheckSelectionResult = { readonly ok: true } | { readonly ok: false; readonly name: string };

/** The selection that names nothing (no fields asked for, nothing to expand). */
export const EMPTY_SELECTION: Selection = Object.freeze(Object.create(null)) as Selection;

/** True when a selection names nothing. */
export function isEmptySelection(selection: Selection): boolean {
  for (const _ in selection) return false;
  return true;
}

/** Most levels of names in a selection, the top level included. */
export { MAX_SELECTION_DEPTH, MAX_SELECTION_NAMES } from "./conventions.js";
import { MAX_SELECTION_DEPTH, MAX_SELECTION_NAMES, SERVER_OWNED } from "./conventions.js";
/** Fields the server adds to every representation; `fields` may name them. */
export const SERVER_FIELDS: ReadonlySet<string> = new Set(SERVER_OWNED);

const NAME_CHAR = /^[A-Za-z0-9_$-]$/;
const BLANK = new Set([" ", "\t", "\r", "\n"]);
/** Names that would reach an object's prototype; no definition may declare them either. */
const FORBIDDEN = new Set(["__proto__", "constructor", "prototype"]);

type MutableSelection = { [name: string]: MutableSelection };

class SelectionSyntaxError extends Error {}

/**
 * Parses a `fields` or `expand` value into a tree of names, merging repeated names, or says what is wrong with it.
 * @example parseSelection("title,author(name)") → { ok: true, tree: { title: {}, author: { name: {} } } }
 */
export function parseSelection(expr: string): ParseSelectionResult {
  const parser = new SelectionParser(expr);
  try {
    const tree = parser.list(1, undefined);
    return { ok: true, tree };
  } catch (e) {
    if (e instanceof SelectionSyntaxError) return { ok: false, error: e.message };
    throw e;
  }
}

/**
 * Checks every name of a selection against the resource (fields mode: its fields and the server's; expand mode: its links), returning the first unknown name, dotted when nested.
 * Inside a link the names are the target's; inside a plain object (fields mode) its declared properties.
 * A writeOnly property is never returned, so it is unknown here too; so is one only older versions have
 * (FieldSpec.retired), unless `withRetired` (a request in an older version, its names already checked).
 * @example checkSelection({ author: { nme: {} } }, books, resources, "fields") → { ok: false, name: "author.nme" }
 */
export function checkSelection(
  tree: Selection,
  resource: ResourceSpec,
  resources: ReadonlyMap<string, ResourceSpec>,
  mode: "fields" | "expand",
  withRetired = false,
): CheckSelectionResult {
  const name = firstUnknownIn(tree, resource.fields, true, resources, mode, "", withRetired);
  return name === undefined ? { ok: true } : { ok: false, name };
}

/**
 * The tree of links to expand: every link named in `expand`, and every link that `fields` selects inside, at every level.
 * @example expansionOf({ title: {}, author: { name: {} } }, { publisher: {} }, books, resources) → { publisher: {}, author: {} }
 */
export function expansionOf(
  fields: Selection | undefined,
  expand: Selection | undefined,
  resource: ResourceSpec,
  resources: ReadonlyMap<string, ResourceSpec>,
): Selection {
  const out: MutableSelection = Object.create(null) as MutableSelection;
  const links = linkFields(resource);
  const names = [...keysOf(expand), ...keysOf(fields)];
  for (const name of names) {
    if (name in out) continue;
    const field = links.get(name);
    if (field === undefined) continue; // not a link: nothing to expand (checkSelection reports it)
    const inner = child(fields, name);
    const fieldsInside = inner !== undefined && keysOf(inner).length > 0 ? inner : undefined;
    const expandInside = child(expand, name);
    if (fieldsInside === undefined && expandInside === undefined) continue;
    const target = field.link === undefined ? undefined : resources.get(field.link.target);
    out[name] = target === undefined ? (Object.create(null) as MutableSelection) : (expansionOf(fieldsInside, expandInside, target, resources) as MutableSelection);
  }
  return out;
}

class SelectionParser {
  private readonly text: string;
  private pos = 0;
  private names = 0;

  constructor(text: string) {
    this.text = text;
  }

  /** Parses a comma-separated list of names at `depth`; `openAt` is the index of the "(" that opened it. */
  list(depth: number, openAt: number | undefined): MutableSelection {
    const into: MutableSelection = Object.create(null) as MutableSelection;
    for (;;) {
      this.skipBlanks();
      const start = this.pos;
      while (this.pos < this.text.length && NAME_CHAR.test(this.text[this.pos]!)) this.pos++;
      const name = this.text.slice(start, this.pos);
      if (name === "") {
        if (this.pos >= this.text.length && openAt !== undefined) this.unclosed(openAt);
        const c = this.text[this.pos];
        if (c === undefined || c === "," || c === "(" || c === ")") this.fail(`empty name at character ${this.pos + 1}`);
        this.invalid();
      }
      if (FORBIDDEN.has(name)) this.fail(`reserved name "${name}" at character ${start + 1}`);
      if (++this.names > MAX_SELECTION_NAMES) this.fail(`more than ${MAX_SELECTION_NAMES} names`);
      const node = (into[name] ??= Object.create(null) as MutableSelection);
      this.skipBlanks();
      if (this.text[this.pos] === "(") {
        const open = this.pos;
        if (depth >= MAX_SELECTION_DEPTH) this.fail(`nested deeper than ${MAX_SELECTION_DEPTH} levels at character ${open + 1}`);
        this.pos++;
        merge(node, this.list(depth + 1, open));
        if (this.pos >= this.text.length) this.unclosed(open);
        this.pos++; // the ")"
        this.skipBlanks();
      }
      const c = this.text[this.pos];
      if (c === undefined) return into;
      if (c === ",") {
        this.pos++;
        continue;
      }
      if (c === ")") {
        if (openAt === undefined) this.fail(`unbalanced parentheses: ")" at character ${this.pos + 1} has no matching "("`);
        return into;
      }
      if (NAME_CHAR.test(c) || c === "(") this.fail(`unexpected ${JSON.stringify(c)} at character ${this.pos + 1}: separate names with ","`);
      this.invalid();
    }
  }

  private skipBlanks(): void {
    while (BLANK.has(this.text[this.pos] ?? "")) this.pos++;
  }

  private invalid(): never {
    const char = String.fromCodePoint(this.text.codePointAt(this.pos)!);
    const hint = char === "." ? ': select inside a link or an object with "name(subfield)"' : "";
    this.fail(`invalid character ${JSON.stringify(char)} at character ${this.pos + 1}${hint}`);
  }

  private unclosed(openAt: number): never {
    this.fail(`unbalanced parentheses: "(" at character ${openAt + 1} is not closed`);
  }

  private fail(message: string): never {
    throw new SelectionSyntaxError(message);
  }
}

/** Adds every name of `from` to `into`, merging nested selections. */
function merge(into: MutableSelection, from: MutableSelection): void {
  for (const name of Object.keys(from)) {
    const node = (into[name] ??= Object.create(null) as MutableSelection);
    merge(node, from[name]!);
  }
}

function keysOf(tree: Selection | undefined): string[] {
  return tree === undefined ? [] : Object.keys(tree);
}

/** The own child selection `name` of a tree (never one found on a prototype). */
function child(tree: Selection | undefined, name: string): Selection | undefined {
  return tree !== undefined && Object.hasOwn(tree, name) ? tree[name] : undefined;
}

function isLink(field: FieldSpec | undefined): boolean {
  return field !== undefined && (field.kind === "link" || field.kind === "links");
}

function linkFields(resource: ResourceSpec): Map<string, FieldSpec> {
  return new Map(resource.fields.filter((f) => isLink(f) && !f.writeOnly).map((f) => [f.name, f]));
}

/** The first name of `tree` that is not among `declared` (a resource's fields, with the server's when `server`, or a plain object's properties), dotted when nested. */
function firstUnknownIn(
  tree: Selection,
  declared: readonly FieldSpec[],
  server: boolean,
  resources: ReadonlyMap<string, ResourceSpec>,
  mode: "fields" | "expand",
  prefix: string,
  withRetired: boolean,
): string | undefined {
  const fields = new Map(declared.filter((f) => !f.writeOnly && (withRetired || f.retired !== true)).map((f) => [f.name, f]));
  for (const name of Object.keys(tree)) {
    const path = prefix + name;
    const field = fields.get(name);
    const known = mode === "expand" ? isLink(field) : field !== undefined || (server && SERVER_FIELDS.has(name));
    if (!known) return path;
    const inner = tree[name]!;
    const nested = Object.keys(inner);
    if (nested.length === 0) continue;
    // A link has the names of its target inside it, a plain object (in fields) its declared properties;
    // for anything else the first nested name is the unknown one.
    if (mode === "fields" && field?.kind === "object" && field.properties !== undefined) {
      const unknown = firstUnknownIn(inner, field.properties, false, resources, mode, `${path}.`, withRetired);
      if (unknown !== undefined) return unknown;
      continue;
    }
    const target = isLink(field) && field?.link !== undefined ? resources.get(field.link.target) : undefined;
    if (target === undefined) return `${path}.${nested[0]}`;
    const unknown = firstUnknownIn(inner, target.fields, true, resources, mode, `${path}.`, withRetired);
    if (unknown !== undefined) return unknown;
  }
  return undefined;
}
