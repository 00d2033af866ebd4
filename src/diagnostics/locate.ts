/** Turns (file, JSON pointer, key|value) into line:column, from the parsed tree, only when printing. */
import type { Node } from "jsonc-parser";
import { tokensOf, type Target } from "./diagnostic.js";

/** A source file as the loader kept it: its text and its parse tree (absent when it did not parse). */
export interface SourceText {
  readonly text: string;
  readonly tree: Node | undefined;
}

/** A 1-based line and column. */
export interface Position {
  readonly line: number;
  readonly column: number;
}

/** Line and column (both 1-based) of a character offset in `text`. */
export function positionAt(text: string, offset: number): Position {
  let line = 1;
  let lineStart = 0;
  for (let i = 0; i < offset && i < text.length; i++) {
    if (text.charCodeAt(i) === 10) {
      line++;
      lineStart = i + 1;
    }
  }
  return { line, column: offset - lineStart + 1 };
}

/**
 * Where each line of a source starts, computed once per source: finding the line of every
 * diagnostic by counting newlines from the start made a file of many diagnostics quadratic.
 */
const lineStarts = new WeakMap<SourceText, number[]>();

/** positionAt, by a binary search of the source's line starts. */
function positionIn(source: SourceText, offset: number): Position {
  let starts = lineStarts.get(source);
  if (!starts) {
    starts = [0];
    for (let i = source.text.indexOf("\n"); i !== -1; i = source.text.indexOf("\n", i + 1)) starts.push(i + 1);
    lineStarts.set(source, starts);
  }
  const at = Math.min(offset, source.text.length);
  let low = 0;
  let high = starts.length - 1;
  while (low < high) {
    const mid = (low + high + 1) >> 1;
    if (starts[mid]! <= at) low = mid;
    else high = mid - 1;
  }
  return { line: low + 1, column: offset - starts[low]! + 1 };
}

/** The value node a pointer names, walking as deep as the document goes; `complete` if it got there. */
export function walkPointer(root: Node, pointer: string): { node: Node; complete: boolean } {
  let node = root;
  for (const token of tokensOf(pointer)) {
    const next = childOf(node, token);
    if (!next) return { node, complete: false };
    node = next;
  }
  return { node, complete: true };
}

/** The properties of an object node by key (the first of a repeated key), built once per node. */
const propertiesOf = new WeakMap<Node, Map<string, Node | undefined>>();

function childOf(node: Node, token: string): Node | undefined {
  if (node.type === "object") {
    let props = propertiesOf.get(node);
    if (!props) {
      props = new Map();
      for (const p of node.children ?? []) {
        const key = p.children?.[0]?.value;
        if (typeof key === "string" && !props.has(key)) props.set(key, p.children?.[1]);
      }
      propertiesOf.set(node, props);
    }
    return props.get(token);
  }
  if (node.type === "array" && /^\d+$/.test(token)) return node.children?.[Number(token)];
  return undefined;
}

/**
 * The position a target points at: the key of a property (kind "key") or its value. A pointer that
 * goes deeper than the document points at the key of its deepest existing ancestor.
 */
export function locate(source: SourceText | undefined, target: Target): Position {
  if (source && target.offset !== undefined) return positionIn(source, target.offset);
  if (!source?.tree) return { line: 1, column: 1 };
  const { node, complete } = walkPointer(source.tree, target.pointer);
  const keyNode = node.parent?.type === "property" ? node.parent.children?.[0] : undefined;
  const wantsKey = target.kind === "key" && complete;
  return positionIn(source, wantsKey && keyNode ? keyNode.offset : node.offset);
}
